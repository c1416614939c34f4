/* fast.c: the schedule-free evaluator (fast.h explains why it is exact).
 *
 * Each GPU runs as far as it can: until it has invoked everything, or until
 * a sync finds incomplete parts in its FIFO; the completion that empties the
 * FIFO puts it back on the ready stack.  The round is complete when every
 * collective is, deadlocked when the stack empties first. */
#include "fast.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int dl_fast_supported(const dl_params *P)
{
    return P->slots == 0 || P->slots == 1;
}

/* Unlimited slots: one node per (group, member): gpu_node[gpu_node_off[i]
 * + k] is GPU i's membership in its k-th group, and node_pos[node] lists the
 * plan positions of that group's collectives on that GPU.  Fails (-1) if a
 * GPU's plan does not take some group's collectives in increasing order
 * (both planned orders do). */
static int build_groups(dl_fast *F)
{
    const dl_layout *L = F->L;
    size_t ngr = (size_t)L->ngroups, ng = (size_t)L->ngpus, nm = 0;
    for (int g = 0; g < L->ngroups; g++)
        nm += (size_t)L->groups[g].n;
    F->gs = dl_xmalloc(ngr * sizeof *F->gs);
    F->ghead = dl_xmalloc(ngr * sizeof(int));
    F->node_gpu = dl_xmalloc(nm * sizeof(int));
    F->node_group = dl_xmalloc(nm * sizeof(int));
    F->node_th = dl_xmalloc(nm * sizeof(int));
    F->nnext = dl_xmalloc(nm * sizeof(int));
    F->node_pos = dl_xmalloc(nm * sizeof(int *));
    F->gpu_node_off = dl_xcalloc(ng + 1, sizeof(int));
    F->gpu_node = dl_xmalloc(nm * sizeof(int));
    F->pend = dl_xcalloc(ng, sizeof(int));
    F->posbuf = dl_xmalloc((size_t)L->nparts * sizeof(int));
    for (int g = 0; g < L->ngroups; g++)
        for (int m = 0; m < L->groups[g].n; m++)
            F->gpu_node_off[L->groups[g].gpus[m] + 1]++;
    for (int i = 0; i < L->ngpus; i++)
        F->gpu_node_off[i + 1] += F->gpu_node_off[i];
    int *fill = dl_xcalloc(ng, sizeof(int)), *nodeof = dl_xmalloc(nm * sizeof(int));
    int node = 0, *buf = F->posbuf;
    for (int g = 0; g < L->ngroups; g++)
        for (int m = 0; m < L->groups[g].n; m++, node++) {
            int i = L->groups[g].gpus[m];
            F->node_gpu[node] = i;
            F->node_group[node] = g;
            F->node_pos[node] = buf;
            buf += L->groups[g].ncoll;
            nodeof[F->gpu_node_off[i] + fill[i]] = node;
            F->gpu_node[F->gpu_node_off[i] + fill[i]++] = node;
        }
    free(fill);
    int ok = 0;
    for (int i = 0; i < L->ngpus && ok == 0; i++) {
        int nk = F->gpu_node_off[i + 1] - F->gpu_node_off[i];
        int *seen = dl_xcalloc((size_t)nk, sizeof(int));
        for (int q = L->plan_off[i]; q < L->plan_off[i + 1]; q++) {
            int c = L->plan[q].coll, g = L->coll_group[c], k = 0;
            while (k < nk && F->node_group[nodeof[F->gpu_node_off[i] + k]] != g)
                k++;
            int nd = nodeof[F->gpu_node_off[i] + k];
            if (c - L->groups[g].first_coll != seen[k])
                ok = -1; /* not in increasing order */
            else
                F->node_pos[nd][seen[k]++] = q - L->plan_off[i];
        }
        free(seen);
    }
    free(nodeof);
    return ok;
}

dl_fast *dl_fast_new(const dl_layout *L, const dl_params *P)
{
    if (!dl_fast_supported(P))
        return NULL;
    dl_fast *F = dl_xcalloc(1, sizeof *F);
    size_t nc = (size_t)L->ncolls, np = (size_t)L->nparts, ng = (size_t)L->ngpus;
    F->L = L;
    F->P = *P;
    F->cnt = dl_xmalloc(nc * sizeof(int));
    F->negsize = dl_xmalloc(nc * sizeof(int));
    for (int c = 0; c < L->ncolls; c++)
        F->negsize[c] = -(L->part_off[c + 1] - L->part_off[c]);
    F->skipped = dl_xmalloc(np * sizeof(int));
    F->pc = dl_xmalloc(np * sizeof(int));
    for (size_t q = 0; q < np; q++)
        F->pc[q] = L->plan[q].coll;
    if (P->slots == 1) {
        F->fifo = dl_xmalloc(np * sizeof(int));
        F->work = dl_xmalloc(nc * sizeof(int));
    } else if (build_groups(F) < 0) {
        dl_fast_free(F);
        return NULL;
    }
    F->pos = dl_xmalloc(ng * sizeof(int));
    F->nskip = dl_xcalloc(ng, sizeof(int));
    F->fh = dl_xmalloc(ng * sizeof(int));
    F->ft = dl_xmalloc(ng * sizeof(int));
    F->waiting = dl_xcalloc(ng, 1);
    F->ready = dl_xmalloc(ng * sizeof(int));
    return F;
}

void dl_fast_free(dl_fast *F)
{
    if (!F)
        return;
    free(F->cnt);
    free(F->negsize);
    free(F->skipped);
    free(F->pc);
    free(F->fifo);
    free(F->work);
    free(F->gs);
    free(F->posbuf);
    free(F->ghead);
    free(F->node_gpu);
    free(F->node_group);
    free(F->node_th);
    free(F->nnext);
    free(F->node_pos);
    free(F->gpu_node_off);
    free(F->gpu_node);
    free(F->pend);
    free(F->pos);
    free(F->nskip);
    free(F->fh);
    free(F->ft);
    free(F->waiting);
    free(F->ready);
    free(F);
}

static void reset(dl_fast *F)
{
    const dl_layout *L = F->L;
    size_t ng = (size_t)L->ngpus;
    memcpy(F->cnt, F->negsize, (size_t)L->ncolls * sizeof(int));
    memset(F->pos, 0, ng * sizeof(int));
    memset(F->nskip, 0, ng * sizeof(int));
    memset(F->fh, 0, ng * sizeof(int));
    memset(F->ft, 0, ng * sizeof(int));
    memset(F->waiting, 0, ng);
    if (F->gs) {
        for (int g = 0; g < L->ngroups; g++)
            F->gs[g] = (dl_fast_group){0, INT_MAX};
        memset(F->ghead, -1, (size_t)L->ngroups * sizeof(int));
    }
    /* GPU 0 first (any order gives the same verdict). */
    for (int i = 0; i < L->ngpus; i++)
        F->ready[i] = L->ngpus - 1 - i;
    F->nready = L->ngpus;
    F->ndone = 0;
    F->events = F->invocations = F->syncs = F->skips = 0;
}

/* ---- unlimited slots: every invoked part executes ----
 *
 * A sync must wait while its GPU has an invoked, incomplete part.  GPU i is
 * a member of every collective of its groups, and a collective completes
 * only once all members invoked it, so i's invoked parts in group g are all
 * complete exactly when done[g] (g's complete collectives) equals the
 * number of g's collectives i has invoked.  That number is fixed while i is
 * suspended, so a suspended GPU waits for a threshold on each of its groups
 * not yet there; each group keeps the smallest threshold of its waiters,
 * and a completion costs one increment and one comparison. */

/* The number of group g's collectives that GPU i (node nd) has invoked:
 * those at plan positions below pos, less those in its skipped list. */
static int invoked_in(const dl_fast *F, int i, int nd, int pos, int ns)
{
    const dl_layout *L = F->L;
    const int *ps = F->node_pos[nd];
    int g = F->node_group[nd], lo = 0, hi = L->groups[g].ncoll;
    while (lo < hi) { /* positions below pos */
        int mid = (lo + hi) / 2;
        if (ps[mid] < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    const int *pc = F->pc + L->plan_off[i];
    const int *sk = F->skipped + L->plan_off[i];
    for (int j = 0; j < ns; j++)
        lo -= L->coll_group[pc[sk[j]]] == g;
    return lo;
}

/* GPU i, with plan entries [0, pos) invoked or skipped (ns of them), syncs:
 * returns 1, and starts waiting, if it has an outstanding part. */
static int must_wait(dl_fast *F, int i, int pos, int ns)
{
    int pend = 0;
    for (int k = F->gpu_node_off[i]; k < F->gpu_node_off[i + 1]; k++) {
        int nd = F->gpu_node[k], g = F->node_group[nd];
        int th = invoked_in(F, i, nd, pos, ns);
        if (F->gs[g].done < th) {
            F->node_th[nd] = th;
            F->nnext[nd] = F->ghead[g];
            F->ghead[g] = nd;
            if (th < F->gs[g].min)
                F->gs[g].min = th;
            pend++;
        }
    }
    F->pend[i] = pend;
    return pend > 0;
}

/* Group g reached its smallest waiting threshold: drop the waiters it
 * satisfies; a GPU with no group left to wait for resumes. */
static void wake(dl_fast *F, int g)
{
    int done = F->gs[g].done, min = INT_MAX;
    int *link = &F->ghead[g];
    while (*link >= 0) {
        int nd = *link;
        if (F->node_th[nd] <= done) {
            *link = F->nnext[nd];
            int i = F->node_gpu[nd];
            if (--F->pend[i] == 0) {
                F->waiting[i] = 0;
                F->ready[F->nready++] = i;
            }
        } else {
            if (F->node_th[nd] < min)
                min = F->node_th[nd];
            link = &F->nnext[nd];
        }
    }
    F->gs[g].min = min;
}

/* cnt, cgroup and gs are F's arrays, passed in so that the caller's loop
 * keeps them in registers (wake() takes F). */
static inline void invoke_unlimited(dl_fast *F, int *cnt, const int *cgroup, dl_fast_group *gs,
                                    int c)
{
    if (++cnt[c] == 0) {
        int g = cgroup[c];
        if (++gs[g].done == gs[g].min)
            wake(F, g);
    }
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

/* Runs GPU i until it has invoked everything or a sync suspends it.
 * one_slot is a constant in each of the two instances. */
static inline __attribute__((always_inline)) void run_gpu(dl_fast *F, dl_streams *S, int i,
                                                          const int one_slot)
{
    const dl_layout *L = F->L;
    const int *plan = F->pc + L->plan_off[i];
    const int len = L->plan_off[i + 1] - L->plan_off[i];
    const int has_sync = S->psync > 0;
    int *sk = F->skipped + L->plan_off[i];
    int *const cnt = F->cnt;
    const int *const cgroup = L->coll_group;
    dl_fast_group *const gs = F->gs;
    int pos = F->pos[i], ns = F->nskip[i];
    for (;;) {
        int remlen = ns + len - pos;
        if (remlen == 0)
            break;
        if (ns == 0) {
            /* A run of m actions that are neither syncs nor skips: each
             * takes one failed trial (remlen >= 2) and one action off the
             * sync gap, and invokes the head of the plan. */
            long m = remlen - 1;
            if (S->skip_gap[i] < m)
                m = S->skip_gap[i];
            if (has_sync && S->sync_gap[i] < m)
                m = S->sync_gap[i];
            if (m > 0) {
                S->skip_gap[i] -= m;
                if (has_sync)
                    S->sync_gap[i] -= m;
                F->events += m;
                F->invocations += m;
                for (int end = pos + (int)m; pos < end; pos++) {
                    if (one_slot)
                        invoke_one_slot(F, i, plan[pos]);
                    else
                        invoke_unlimited(F, cnt, cgroup, gs, plan[pos]);
                }
                continue;
            }
        }
        int k = dl_streams_action(S, i, remlen);
        F->events++;
        if (k == DL_DRAW_SYNC) {
            F->syncs++;
            if (one_slot ? F->fh[i] < F->ft[i] : must_wait(F, i, pos, ns)) {
                F->waiting[i] = 1;
                break;
            }
            continue;
        }
        F->invocations++;
        F->skips += k;
        int idx; /* plan index of the candidate invoked */
        if (k < ns) {
            idx = sk[k];
            memmove(sk + k, sk + k + 1, (size_t)(ns - k - 1) * sizeof *sk);
            ns--;
        } else {
            for (int j = k - ns; j > 0; j--)
                sk[ns++] = pos++;
            idx = pos++;
        }
        if (one_slot)
            invoke_one_slot(F, i, plan[idx]);
        else
            invoke_unlimited(F, cnt, cgroup, gs, plan[idx]);
    }
    F->pos[i] = pos;
    F->nskip[i] = ns;
}

static void run_unlimited(dl_fast *F, dl_streams *S)
{
    while (F->nready > 0)
        run_gpu(F, S, F->ready[--F->nready], 0);
}

static void run_one_slot(dl_fast *F, dl_streams *S)
{
    while (F->nready > 0)
        run_gpu(F, S, F->ready[--F->nready], 1);
}

int dl_fast_run(dl_fast *F, dl_streams *S)
{
    reset(F);
    if (F->P.slots == 1)
        run_one_slot(F, S);
    else
        run_unlimited(F, S);
    if (F->gs) {
        F->ndone = 0;
        for (int g = 0; g < F->L->ngroups; g++)
            F->ndone += F->gs[g].done;
    }
    F->status = F->ndone == F->L->ncolls ? DL_COMPLETED : DL_DEADLOCK;
    return F->status;
}
