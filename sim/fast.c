/* fast.c: the schedule-free evaluator (fast.h explains why it is exact and
 * how it is cheap).
 *
 * A round: draw every GPU's script, then run the scripts.  Each GPU runs as
 * far as it can: until it has invoked everything, or until a sync finds
 * invoked parts that are not complete; the completion that frees it puts it
 * back on the ready stack.  The round is complete when every collective is,
 * deadlocked when the stack empties first. */
#include "fast.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Script entries: m >= 1 is a run of m plain invocations (the head of the
 * plan, while no skipped candidate is pending); OP_SYNC a sync; -(k+2) an
 * action that invokes the k-th candidate of the remaining list. */
enum { OP_SYNC = -1 };

int dl_fast_supported(const dl_params *P)
{
    /* the model's machine says which evaluator, if any; matching by order
     * runs on call slots, which only the engine knows */
    return dl_rules_for(P->slots)->evaluator != DL_EVAL_NONE && !P->match;
}

/* ---- the planned order in closed form ----
 *
 * layout.c builds a GPU's plan from its groups g_0 < g_1 < ... (n_k
 * collectives each): `sequential` takes all of g_0's, then g_1's, ...;
 * `interleave` takes index 0 of each group, then index 1, ... (a group
 * whose collectives have run out drops out).  So the position of g_k's
 * collective idx is, with n = the counts, */
static inline int interleave_pos(const int *n, int r, int k, int idx)
{
    int p = 0;
    for (int j = 0; j < r; j++)
        p += n[j] < idx ? n[j] : idx; /* every group's collectives before index idx */
    for (int j = 0; j < k; j++)
        p += n[j] > idx; /* index idx of the groups before g_k */
    return p;
}

static inline int sequential_pos(const int *n, int k, int idx)
{
    for (int j = 0; j < k; j++)
        idx += n[j];
    return idx;
}

/* Its inverse: interleave's round idx holds index idx of the groups with
 * more than idx collectives, in group order; rounds with the same groups
 * form stretches, walked one per distinct count. */
static int interleave_count(const int *n, int r, int k, int pos)
{
    int idx = 0, base = 0; /* base: the entries of rounds before idx */
    for (;;) {
        int active = 0, rank = 0, next = INT_MAX;
        for (int j = 0; j < r; j++)
            if (n[j] > idx) {
                active++;
                rank += j < k;
                if (n[j] < next)
                    next = n[j];
            }
        if (n[k] <= idx) /* all of g_k's lie before base <= pos */
            return n[k];
        int len = (next - idx) * active; /* rounds idx..next-1 */
        if (pos < base + len) {
            int full = (pos - base) / active, rem = (pos - base) % active;
            return idx + full + (rank < rem);
        }
        base += len;
        idx = next;
    }
}

int dl_fast_plan_count(const dl_fast *F, int i, int k, int pos)
{
    const int *n = F->gpu_n + F->gpu_node_off[i];
    int r = F->gpu_node_off[i + 1] - F->gpu_node_off[i];
    if (F->L->order == DL_ORDER_SEQUENTIAL) {
        int c = pos - sequential_pos(n, k, 0);
        return c < 0 ? 0 : c > n[k] ? n[k] : c;
    }
    return interleave_count(n, r, k, pos);
}

/* Nodes (one per group member) and each GPU's list of them; then checks
 * that every GPU's plan is the closed form above (-1 if not: the evaluator
 * then declines the layout, and the engine plays it). */
static int build_nodes(dl_fast *F)
{
    const dl_layout *L = F->L;
    size_t ng = (size_t)L->ngpus, nm = 0;
    for (int g = 0; g < L->ngroups; g++)
        nm += (size_t)L->groups[g].n;
    F->gnode_off = dl_xmalloc(((size_t)L->ngroups + 1) * sizeof(int));
    F->node_gpu = dl_xmalloc(nm * sizeof(int));
    F->node_group = dl_xmalloc(nm * sizeof(int));
    F->gpu_node_off = dl_xcalloc(ng + 1, sizeof(int));
    F->gpu_node = dl_xmalloc(nm * sizeof(int));
    F->gpu_n = dl_xmalloc(nm * sizeof(int));
    for (int g = 0; g < L->ngroups; g++)
        for (int m = 0; m < L->groups[g].n; m++)
            F->gpu_node_off[L->groups[g].gpus[m] + 1]++;
    for (size_t i = 0; i < ng; i++)
        F->gpu_node_off[i + 1] += F->gpu_node_off[i];
    int *fill = dl_xcalloc(ng, sizeof(int)), node = 0;
    for (int g = 0; g < L->ngroups; g++) {
        F->gnode_off[g] = node;
        for (int m = 0; m < L->groups[g].n; m++, node++) {
            int i = L->groups[g].gpus[m], s = F->gpu_node_off[i] + fill[i]++;
            F->node_gpu[node] = i;
            F->node_group[node] = g;
            F->gpu_node[s] = node; /* groups in increasing order */
            F->gpu_n[s] = L->groups[g].ncoll;
        }
    }
    F->gnode_off[L->ngroups] = node;
    free(fill);
    for (int i = 0; i < L->ngpus; i++) {
        int off = F->gpu_node_off[i], r = F->gpu_node_off[i + 1] - off;
        const int *n = F->gpu_n + off;
        for (int q = L->plan_off[i]; q < L->plan_off[i + 1]; q++) {
            int c = L->plan[q].coll, g = L->coll_group[c], k = 0;
            while (k < r && F->node_group[F->gpu_node[off + k]] != g)
                k++;
            int idx = c - L->groups[g].first_coll;
            int want = L->order == DL_ORDER_SEQUENTIAL ? sequential_pos(n, k, idx)
                                                        : interleave_pos(n, r, k, idx);
            if (k == r || want != q - L->plan_off[i])
                return -1;
        }
    }
    return 0;
}

/* Components: GPUs linked by sharing a group (union-find).  GPUs of
 * different components never wait for each other. */
static int find(int *up, int x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

static void build_components(dl_fast *F)
{
    const dl_layout *L = F->L;
    size_t ng = (size_t)L->ngpus;
    int *up = dl_xmalloc(ng * sizeof(int));
    for (int i = 0; i < L->ngpus; i++)
        up[i] = i;
    for (int g = 0; g < L->ngroups; g++)
        for (int m = 1; m < L->groups[g].n; m++) {
            int a = find(up, L->groups[g].gpus[0]), b = find(up, L->groups[g].gpus[m]);
            if (a != b)
                up[a > b ? a : b] = a < b ? a : b;
        }
    F->comp_of = dl_xmalloc(ng * sizeof(int));
    int *label = dl_xmalloc(ng * sizeof(int));
    F->ncomps = 0;
    for (int i = 0; i < L->ngpus; i++) {
        int root = find(up, i);
        if (root == i)
            label[i] = F->ncomps++;
        F->comp_of[i] = label[root]; /* root <= i: labelled already */
    }
    free(label);
    free(up);
    size_t nk = (size_t)F->ncomps;
    F->comp_gpu_off = dl_xcalloc(nk + 1, sizeof(int));
    F->comp_group_off = dl_xcalloc(nk + 1, sizeof(int));
    F->comp_gpu = dl_xmalloc(ng * sizeof(int));
    F->comp_group = dl_xmalloc((size_t)L->ngroups * sizeof(int));
    for (int i = 0; i < L->ngpus; i++)
        F->comp_gpu_off[F->comp_of[i] + 1]++;
    for (int g = 0; g < L->ngroups; g++)
        F->comp_group_off[F->comp_of[L->groups[g].gpus[0]] + 1]++;
    for (size_t k = 0; k < nk; k++) {
        F->comp_gpu_off[k + 1] += F->comp_gpu_off[k];
        F->comp_group_off[k + 1] += F->comp_group_off[k];
    }
    int *fg = dl_xcalloc(nk, sizeof(int)), *fr = dl_xcalloc(nk, sizeof(int));
    for (int i = 0; i < L->ngpus; i++) {
        int k = F->comp_of[i];
        F->comp_gpu[F->comp_gpu_off[k] + fg[k]++] = i;
    }
    for (int g = 0; g < L->ngroups; g++) {
        int k = F->comp_of[L->groups[g].gpus[0]];
        F->comp_group[F->comp_group_off[k] + fr[k]++] = g;
    }
    free(fg);
    free(fr);
}

dl_fast *dl_fast_new(const dl_layout *L, const dl_params *P)
{
    if (!dl_fast_supported(P))
        return NULL;
    dl_fast *F = dl_xcalloc(1, sizeof *F);
    size_t nc = (size_t)L->ncolls, np = (size_t)L->nparts, ng = (size_t)L->ngpus;
    F->L = L;
    F->P = *P;
    F->eval = dl_rules_for(P->slots)->evaluator;
    if (F->eval == DL_EVAL_UNLIMITED && build_nodes(F) < 0) { /* the closed form serves unlimited slots */
        dl_fast_free(F);
        return NULL;
    }
    F->pc = dl_xmalloc(np * sizeof(int));
    for (size_t q = 0; q < np; q++)
        F->pc[q] = L->plan[q].coll;
    F->skipped = dl_xmalloc(np * sizeof(int));
    F->cap_ops = 4 * ng + 16;
    F->ops = dl_xmalloc(F->cap_ops * sizeof(int));
    F->op_off = dl_xmalloc((ng + 1) * sizeof(size_t));
    F->cur = dl_xmalloc(ng * sizeof(size_t));
    F->skipper = dl_xcalloc(ng, 1);
    F->pos = dl_xcalloc(ng, sizeof(int));
    F->nskip = dl_xcalloc(ng, sizeof(int));
    F->waiting = dl_xcalloc(ng, 1);
    F->ready = dl_xmalloc(ng * sizeof(int));
    if (F->eval == DL_EVAL_ONE_SLOT) {
        F->cnt = dl_xmalloc(nc * sizeof(int));
        F->negsize = dl_xmalloc(nc * sizeof(int));
        for (int c = 0; c < L->ncolls; c++)
            F->negsize[c] = -(L->part_off[c + 1] - L->part_off[c]);
        F->fifo = dl_xmalloc(np * sizeof(int));
        F->fh = dl_xcalloc(ng, sizeof(int));
        F->ft = dl_xcalloc(ng, sizeof(int));
        F->work = dl_xmalloc(nc * sizeof(int));
    } else {
        size_t nm = (size_t)F->gnode_off[L->ngroups];
        F->pre = dl_xmalloc(nm * sizeof(int));
        F->th = dl_xmalloc(nm * sizeof(int));
        F->done = dl_xmalloc((size_t)L->ngroups * sizeof(int));
        F->wmin = dl_xmalloc((size_t)L->ngroups * sizeof(int));
        F->stamp = dl_xcalloc(nc, sizeof(unsigned));
    }
    build_components(F);
    F->comp_dead = dl_xcalloc((size_t)F->ncomps, 1);
    return F;
}

void dl_fast_free(dl_fast *F)
{
    if (!F)
        return;
    void *bufs[] = {F->pc, F->gnode_off, F->node_gpu, F->node_group, F->gpu_node_off,
                    F->gpu_node, F->gpu_n, F->ops, F->op_off, F->cur, F->skipper, F->pos,
                    F->nskip, F->skipped, F->waiting, F->ready, F->pre, F->th, F->done,
                    F->wmin, F->stamp, F->cnt, F->negsize, F->fifo, F->fh, F->ft, F->work,
                    F->comp_of, F->comp_gpu_off, F->comp_gpu, F->comp_group_off, F->comp_group,
                    F->comp_dead};
    for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; k++)
        free(bufs[k]);
    free(F);
}

/* ---- scripts ---- */

static inline void push_op(dl_fast *F, int op)
{
    if (F->nops == F->cap_ops) {
        F->cap_ops *= 2;
        F->ops = dl_xrealloc(F->ops, F->cap_ops * sizeof(int));
    }
    F->ops[F->nops++] = op;
}

/* Draws GPU i's whole action sequence into its script: the same draws in
 * the same order as the engine's dl_streams_action calls for this GPU,
 * except that a run of actions that are neither syncs nor skips (each one
 * failed trial, remlen >= 2, and one action off the sync gap) is taken off
 * the gaps at once. */
static void draw_script(dl_fast *F, dl_streams *S, int i)
{
    const dl_layout *L = F->L;
    const int len = L->plan_off[i + 1] - L->plan_off[i];
    const int has_sync = S->psync > 0;
    int pos = 0, ns = 0; /* as in the round: plan entries [0, pos) taken, ns skipped pending */
    long actions = 0, syncs = 0, skips = 0;
    F->op_off[i] = F->nops;
    for (;;) {
        int remlen = ns + len - pos;
        if (remlen == 0)
            break;
        if (ns == 0) {
            long m = remlen - 1;
            if (S->skip_gap[i] < m)
                m = S->skip_gap[i];
            if (has_sync && S->sync_gap[i] < m)
                m = S->sync_gap[i];
            if (m > 0) {
                S->skip_gap[i] -= m;
                if (has_sync)
                    S->sync_gap[i] -= m;
                push_op(F, (int)m);
                pos += (int)m;
                actions += m;
                continue;
            }
        }
        int k = dl_streams_action(S, i, remlen);
        actions++;
        if (k == DL_DRAW_SYNC) {
            syncs++;
            push_op(F, OP_SYNC);
            continue;
        }
        skips += k;
        push_op(F, -(k + 2));
        if (k < ns) {
            ns--;
        } else {
            pos += k - ns + 1;
            ns = k;
        }
    }
    F->events += actions;
    F->invocations += actions - syncs;
    F->syncs += syncs;
    F->skips += skips;
    F->skipper[i] = skips > 0;
}

/* The plan index that candidate k of the remaining list (the pending
 * skipped entries sk[0..ns), then plan entries from pos) stands for; takes
 * it off the list, skipping the candidates before it. */
static inline int take(int *sk, int *pos, int *ns, int k)
{
    if (k < *ns) {
        int idx = sk[k];
        memmove(sk + k, sk + k + 1, (size_t)(*ns - k - 1) * sizeof *sk);
        (*ns)--;
        return idx;
    }
    while (*ns < k)
        sk[(*ns)++] = (*pos)++;
    return (*pos)++;
}

/* ---- unlimited slots: every invoked part executes ----
 *
 * A sync must wait while its GPU has an invoked, incomplete part.  GPU i is
 * a member of every collective of its groups, and a collective completes
 * once all members invoked it, so i's invoked parts in group g are all
 * complete exactly when done[g] (g's complete collectives) equals the
 * number of g's collectives i has invoked.  A GPU's invoked set in g is the
 * prefix of g's collectives that its plan entries [0, pos) hold (pre, in
 * closed form) less its few pending skipped ones, so done[g] is the
 * smallest member prefix less the distinct pending skipped collectives
 * below it.  A GPU moves from one sync to the next at once (no invocation
 * blocks), and done[] is recomputed for its groups when it stops. */

/* Complete collectives of group g, from its members' current states. */
static int group_done(dl_fast *F, int g)
{
    const dl_layout *L = F->L;
    int a = INT_MAX, skipping = 0;
    for (int nd = F->gnode_off[g]; nd < F->gnode_off[g + 1]; nd++) {
        if (F->pre[nd] < a)
            a = F->pre[nd];
        skipping |= F->nskip[F->node_gpu[nd]];
    }
    if (!skipping)
        return a;
    if (++F->epoch == 0) { /* wrapped: forget old stamps */
        memset(F->stamp, 0, (size_t)L->ncolls * sizeof *F->stamp);
        F->epoch = 1;
    }
    int first = L->groups[g].first_coll, lost = 0;
    for (int nd = F->gnode_off[g]; nd < F->gnode_off[g + 1]; nd++) {
        int j = F->node_gpu[nd];
        const int *sk = F->skipped + L->plan_off[j], *pc = F->pc + L->plan_off[j];
        for (int t = 0; t < F->nskip[j]; t++) {
            int c = pc[sk[t]];
            if (L->coll_group[c] == g && c - first < a && F->stamp[c] != F->epoch) {
                F->stamp[c] = F->epoch;
                lost++;
            }
        }
    }
    return a - lost;
}

static int satisfied(const dl_fast *F, int i)
{
    for (int s = F->gpu_node_off[i]; s < F->gpu_node_off[i + 1]; s++) {
        int nd = F->gpu_node[s];
        if (F->done[F->node_group[nd]] < F->th[nd])
            return 0;
    }
    return 1;
}

/* GPU i starts waiting (thresholds in th): each of its groups notes the
 * smallest threshold of its waiting members. */
static void start_waiting(dl_fast *F, int i)
{
    F->waiting[i] = 1;
    for (int s = F->gpu_node_off[i]; s < F->gpu_node_off[i + 1]; s++) {
        int nd = F->gpu_node[s], g = F->node_group[nd];
        if (F->th[nd] > F->done[g] && F->th[nd] < F->wmin[g])
            F->wmin[g] = F->th[nd];
    }
}

/* Group g's complete count reached wmin[g]: the members waiting for it are
 * released if their other groups are there too; wmin becomes the smallest
 * threshold not reached yet (members waiting only on other groups are
 * released by those). */
static void wake_group(dl_fast *F, int g)
{
    int d = F->done[g], min = INT_MAX;
    for (int nd = F->gnode_off[g]; nd < F->gnode_off[g + 1]; nd++) {
        int j = F->node_gpu[nd];
        if (!F->waiting[j])
            continue;
        if (F->th[nd] > d) {
            if (F->th[nd] < min)
                min = F->th[nd];
        } else if (satisfied(F, j)) {
            F->waiting[j] = 0;
            F->ready[F->nready++] = j;
        }
    }
    F->wmin[g] = min;
}

/* GPU i's state changed: its prefixes, its groups' complete counts, and the
 * waiting members those release. */
static void refresh(dl_fast *F, int i)
{
    int off = F->gpu_node_off[i], r = F->gpu_node_off[i + 1] - off;
    for (int k = 0; k < r; k++)
        F->pre[F->gpu_node[off + k]] = dl_fast_plan_count(F, i, k, F->pos[i]);
    for (int k = 0; k < r; k++) {
        int g = F->node_group[F->gpu_node[off + k]], d = group_done(F, g);
        if (d == F->done[g])
            continue;
        F->done[g] = d;
        if (d >= F->wmin[g])
            wake_group(F, g);
    }
}

/* GPU i at a sync: records what it waits for; 1 if that is not there yet. */
static int must_wait(dl_fast *F, int i)
{
    const dl_layout *L = F->L;
    const int *sk = F->skipped + L->plan_off[i], *pc = F->pc + L->plan_off[i];
    int wait = 0;
    for (int s = F->gpu_node_off[i]; s < F->gpu_node_off[i + 1]; s++) {
        int nd = F->gpu_node[s], g = F->node_group[nd], th = F->pre[nd];
        for (int t = 0; t < F->nskip[i]; t++)
            th -= L->coll_group[pc[sk[t]]] == g;
        F->th[nd] = th;
        wait |= F->done[g] < th;
    }
    return wait;
}

/* Runs GPU i from sync to sync until it has invoked everything or a sync
 * must wait. */
static void advance(dl_fast *F, int i)
{
    int *sk = F->skipped + F->L->plan_off[i];
    const int *ops = F->ops;
    size_t c = F->cur[i], end = F->op_off[i + 1];
    int pos = F->pos[i], ns = F->nskip[i];
    for (;;) {
        while (c < end && ops[c] != OP_SYNC) {
            int op = ops[c++];
            if (op > 0)
                pos += op;
            else
                take(sk, &pos, &ns, -op - 2);
        }
        F->pos[i] = pos;
        F->nskip[i] = ns;
        refresh(F, i);
        if (c == end)
            break;
        c++; /* the sync */
        if (must_wait(F, i)) {
            start_waiting(F, i);
            break;
        }
    }
    F->cur[i] = c;
}

static int run_unlimited(dl_fast *F)
{
    const dl_layout *L = F->L;
    size_t ng = (size_t)L->ngpus, nm = (size_t)F->gnode_off[L->ngroups];
    memset(F->pos, 0, ng * sizeof(int));
    memset(F->nskip, 0, ng * sizeof(int));
    memset(F->waiting, 0, ng);
    memset(F->pre, 0, nm * sizeof(int));
    memset(F->done, 0, (size_t)L->ngroups * sizeof(int));
    for (int g = 0; g < L->ngroups; g++)
        F->wmin[g] = INT_MAX;
    for (int i = 0; i < L->ngpus; i++) {
        F->cur[i] = F->op_off[i];
        F->ready[i] = L->ngpus - 1 - i; /* GPU 0 first (any order gives the same verdict) */
    }
    F->nready = L->ngpus;
    while (F->nready > 0)
        advance(F, F->ready[--F->nready]);
    F->ndone = 0;
    for (int g = 0; g < L->ngroups; g++)
        F->ndone += F->done[g];
    /* a GPU left waiting at a sync deadlocks its component */
    memset(F->comp_dead, 0, (size_t)F->ncomps);
    for (int i = 0; i < L->ngpus; i++)
        F->comp_dead[F->comp_of[i]] |= F->waiting[i];
    return F->ndone == L->ncolls ? DL_COMPLETED : DL_DEADLOCK;
}

/* ---- one slot: only the head of a GPU's FIFO executes ---- */

/* The head part of x's members just started executing on its last member:
 * x completes, each member's next part becomes its head, which may complete
 * further collectives; a suspended member whose FIFO empties resumes. */
static void complete_one_slot(dl_fast *F, int x)
{
    const dl_layout *L = F->L;
    int nwork = 0;
    F->work[nwork++] = x;
    while (nwork > 0) {
        int c = F->work[--nwork];
        F->ndone++;
        for (int p = L->part_off[c], end = L->part_off[c + 1]; p < end; p++) {
            int g = L->part_gpu[p];
            int *q = F->fifo + L->plan_off[g];
            int h = ++F->fh[g];
            if (h < F->ft[g]) {
                if (++F->cnt[q[h]] == 0)
                    F->work[nwork++] = q[h];
            } else if (F->waiting[g]) {
                F->waiting[g] = 0;
                F->ready[F->nready++] = g;
            }
        }
    }
}

static inline void invoke_one_slot(dl_fast *F, int gpu, int c)
{
    int *q = F->fifo + F->L->plan_off[gpu];
    int t = F->ft[gpu]++;
    q[t] = c;
    if (t == F->fh[gpu] && ++F->cnt[c] == 0) /* it is the head: it executes */
        complete_one_slot(F, c);
}

/* Runs GPU i's script until its end or a sync that must wait. */
static void run_one_slot_gpu(dl_fast *F, int i)
{
    const dl_layout *L = F->L;
    const int *plan = F->pc + L->plan_off[i];
    int *sk = F->skipped + L->plan_off[i];
    const int *ops = F->ops;
    size_t c = F->cur[i], end = F->op_off[i + 1];
    int pos = F->pos[i], ns = F->nskip[i];
    while (c < end) {
        int op = ops[c++];
        if (op > 0) {
            for (int e = pos + op; pos < e; pos++)
                invoke_one_slot(F, i, plan[pos]);
        } else if (op == OP_SYNC) {
            if (F->fh[i] < F->ft[i]) {
                F->waiting[i] = 1;
                break;
            }
        } else {
            invoke_one_slot(F, i, plan[take(sk, &pos, &ns, -op - 2)]);
        }
    }
    F->pos[i] = pos;
    F->nskip[i] = ns;
    F->cur[i] = c;
}

/* Runs component k from its initial state: 1 if it completes. */
static int run_component(dl_fast *F, int k)
{
    const dl_layout *L = F->L;
    int colls = 0;
    for (int t = F->comp_group_off[k]; t < F->comp_group_off[k + 1]; t++) {
        const dl_group *G = &L->groups[F->comp_group[t]];
        memcpy(F->cnt + G->first_coll, F->negsize + G->first_coll, (size_t)G->ncoll * sizeof(int));
        colls += G->ncoll;
    }
    F->nready = 0;
    for (int t = F->comp_gpu_off[k + 1] - 1; t >= F->comp_gpu_off[k]; t--) {
        int i = F->comp_gpu[t];
        F->pos[i] = F->nskip[i] = F->fh[i] = F->ft[i] = 0;
        F->waiting[i] = 0;
        F->cur[i] = F->op_off[i];
        F->ready[F->nready++] = i;
    }
    int before = F->ndone;
    while (F->nready > 0)
        run_one_slot_gpu(F, F->ready[--F->nready]);
    return F->ndone - before == colls;
}

/* A component in which no GPU skips runs its planned orders, which agree
 * (docs/semantics.md): it completes, and need not be run.  Every component
 * is decided (no stop at the first deadlocked one), for the replay of a
 * deadlocked round component by component (split.h). */
static int run_one_slot(dl_fast *F)
{
    int st = DL_COMPLETED;
    F->ndone = 0;
    for (int k = 0; k < F->ncomps; k++) {
        int skips = 0;
        for (int t = F->comp_gpu_off[k]; t < F->comp_gpu_off[k + 1] && !skips; t++)
            skips = F->skipper[F->comp_gpu[t]];
        F->comp_dead[k] = skips && !run_component(F, k);
        if (F->comp_dead[k])
            st = DL_DEADLOCK;
        else if (!skips)
            for (int t = F->comp_group_off[k]; t < F->comp_group_off[k + 1]; t++)
                F->ndone += F->L->groups[F->comp_group[t]].ncoll;
    }
    return st;
}

int dl_fast_run(dl_fast *F, dl_streams *S)
{
    const dl_layout *L = F->L;
    F->nops = 0;
    F->events = F->invocations = F->syncs = F->skips = 0;
    for (int i = 0; i < L->ngpus; i++)
        draw_script(F, S, i);
    F->op_off[L->ngpus] = F->nops;
    F->status = F->eval == DL_EVAL_ONE_SLOT ? run_one_slot(F) : run_unlimited(F);
    return F->status;
}
