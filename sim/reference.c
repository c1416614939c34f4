/* reference.c: the authors' simulator's decision rules on dlsim's rounds
 * (reference.h says which rules; docs/semantics.md how they were read and
 * measured).  A round is played in lockstep from the per-GPU streams, as the
 * engine does, but with the reference's state: per GPU the submitted,
 * incomplete parts (its "submitted undone" set) and whether it hangs; per
 * group, in the single-queue rules, the pending batch.  With several
 * components each is played alone (reference.h, `split`). */
#include "reference.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *dl_semantics_name(int sem)
{
    return sem == DL_SEM_REFERENCE ? "reference" : sem == DL_SEM_REFERENCE_NODROP ? "reference-nodrop"
                                                                                  : "exact";
}

int dl_semantics_parse(const char *s)
{
    if (!strcmp(s, "exact"))
        return DL_SEM_EXACT;
    if (!strcmp(s, "reference"))
        return DL_SEM_REFERENCE;
    if (!strcmp(s, "reference-nodrop"))
        return DL_SEM_REFERENCE_NODROP;
    return -1;
}

int dl_semantics_is_reference(int sem)
{
    return sem == DL_SEM_REFERENCE || sem == DL_SEM_REFERENCE_NODROP;
}

/* GPUs linked by shared groups (union-find), numbered 0..ncomps-1. */
static int find(int *up, int i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

static void build_components(dl_ref *X)
{
    const dl_layout *L = X->L;
    int *up = dl_xmalloc((size_t)L->ngpus * sizeof(int));
    for (int i = 0; i < L->ngpus; i++)
        up[i] = i;
    for (int g = 0; g < L->ngroups; g++)
        for (int m = 1; m < L->groups[g].n; m++)
            up[find(up, L->groups[g].gpus[m])] = find(up, L->groups[g].gpus[0]);
    int *id = dl_xmalloc((size_t)L->ngpus * sizeof(int));
    for (int i = 0; i < L->ngpus; i++)
        id[i] = -1;
    X->ncomps = 0;
    for (int i = 0; i < L->ngpus; i++) {
        int r = find(up, i);
        if (id[r] < 0)
            id[r] = X->ncomps++;
        X->comp[i] = id[r];
    }
    free(id);
    free(up);
    /* each component's GPUs, ascending */
    X->comp_off = dl_xcalloc((size_t)X->ncomps + 1, sizeof(int));
    X->comp_gpus = dl_xmalloc((size_t)L->ngpus * sizeof(int));
    X->all_gpus = dl_xmalloc((size_t)L->ngpus * sizeof(int));
    for (int i = 0; i < L->ngpus; i++) {
        X->comp_off[X->comp[i] + 1]++;
        X->all_gpus[i] = i;
    }
    for (int c = 0; c < X->ncomps; c++)
        X->comp_off[c + 1] += X->comp_off[c];
    int *fill = dl_xcalloc((size_t)X->ncomps, sizeof(int));
    for (int i = 0; i < L->ngpus; i++)
        X->comp_gpus[X->comp_off[X->comp[i]] + fill[X->comp[i]]++] = i;
    free(fill);
    X->split = X->ncomps > 1;
}

/* Each GPU's groups. */
static void build_gpu_groups(dl_ref *X)
{
    const dl_layout *L = X->L;
    X->ggroup_off = dl_xcalloc((size_t)L->ngpus + 1, sizeof(int));
    for (int g = 0; g < L->ngroups; g++)
        for (int m = 0; m < L->groups[g].n; m++)
            X->ggroup_off[L->groups[g].gpus[m] + 1]++;
    for (int i = 0; i < L->ngpus; i++)
        X->ggroup_off[i + 1] += X->ggroup_off[i];
    X->ggroup = dl_xmalloc((size_t)X->ggroup_off[L->ngpus] * sizeof(int));
    int *fill = dl_xcalloc((size_t)L->ngpus, sizeof(int));
    for (int g = 0; g < L->ngroups; g++)
        for (int m = 0; m < L->groups[g].n; m++) {
            int i = L->groups[g].gpus[m];
            X->ggroup[X->ggroup_off[i] + fill[i]++] = g;
        }
    free(fill);
}

/* Aligned: every collective sits at the same position of every member's
 * plan (3D layouts).  Then a component whose GPUs never skip submits each
 * collective on all members in one step and cannot trip the check. */
static int is_aligned(const dl_layout *L)
{
    int *pos = dl_xmalloc((size_t)L->ncolls * sizeof(int)), ok = 1;
    for (int c = 0; c < L->ncolls; c++)
        pos[c] = -1;
    for (int i = 0; i < L->ngpus && ok; i++)
        for (int q = L->plan_off[i]; q < L->plan_off[i + 1]; q++) {
            int c = L->plan[q].coll, at = q - L->plan_off[i];
            if (pos[c] < 0)
                pos[c] = at;
            else if (pos[c] != at)
                ok = 0;
        }
    free(pos);
    return ok;
}

dl_ref *dl_ref_new(const dl_layout *L, const dl_params *P)
{
    dl_ref *X = dl_xcalloc(1, sizeof *X);
    size_t ng = (size_t)L->ngpus, np = (size_t)L->nparts;
    X->L = L;
    X->P = *P;
    X->single = P->slots == 1 && P->sync <= 0;
    X->rem = dl_xmalloc(np * sizeof(dl_plan_entry));
    X->rem_head = dl_xmalloc(ng * sizeof(int));
    X->rem_len = dl_xmalloc(ng * sizeof(int));
    X->hung = dl_xcalloc(ng, 1);
    X->active = dl_xcalloc(ng, 1);
    X->sub_head = dl_xmalloc(ng * sizeof(int));
    X->nsub = dl_xmalloc(ng * sizeof(int));
    X->comp = dl_xmalloc(ng * sizeof(int));
    X->hung_list = dl_xmalloc(ng * sizeof(int));
    X->submitted = dl_xcalloc(np, 1);
    X->sprev = dl_xmalloc(np * sizeof(int));
    X->snext = dl_xmalloc(np * sizeof(int));
    X->left = dl_xmalloc((size_t)L->ncolls * sizeof(int));
    X->batch_coll = dl_xmalloc((size_t)L->ngroups * sizeof(int));
    X->batch_n = dl_xmalloc((size_t)L->ngroups * sizeof(int));
    X->node_off = dl_xmalloc(((size_t)L->ngroups + 1) * sizeof(int));
    X->node_off[0] = 0;
    for (int g = 0; g < L->ngroups; g++)
        X->node_off[g + 1] = X->node_off[g] + L->groups[g].n;
    X->in_batch = dl_xcalloc((size_t)X->node_off[L->ngroups], 1);
    X->nsubmit = dl_xcalloc((size_t)X->node_off[L->ngroups], sizeof(int));
    X->seq_len = dl_xcalloc((size_t)L->ngroups, sizeof(int));
    X->seq = dl_xmalloc((size_t)L->ncolls * sizeof(int));
    build_components(X);
    build_gpu_groups(X);
    X->comp_live = dl_xcalloc((size_t)X->ncomps, 1);
    X->aligned = is_aligned(L);
    return X;
}

void dl_ref_set_nodrop(dl_ref *X, int nodrop)
{
    X->nodrop = nodrop;
}

void dl_ref_free(dl_ref *X)
{
    if (!X)
        return;
    free(X->rem);
    free(X->rem_head);
    free(X->rem_len);
    free(X->hung);
    free(X->active);
    free(X->sub_head);
    free(X->nsub);
    free(X->comp);
    free(X->hung_list);
    free(X->submitted);
    free(X->sprev);
    free(X->snext);
    free(X->left);
    free(X->batch_coll);
    free(X->batch_n);
    free(X->node_off);
    free(X->in_batch);
    free(X->nsubmit);
    free(X->seq_len);
    free(X->seq);
    free(X->comp_live);
    free(X->comp_off);
    free(X->comp_gpus);
    free(X->all_gpus);
    free(X->ggroup_off);
    free(X->ggroup);
    free(X);
}

static int plan_len(const dl_layout *L, int i)
{
    return L->plan_off[i + 1] - L->plan_off[i];
}

/* Which GPUs this round plays.  With the single-queue rules on an aligned
 * layout, only the components with a GPU that skips: a GPU skips iff its
 * first skip gap is shorter than its candidates with a choice (plan - 1). */
static void choose_active(dl_ref *X, const dl_streams *S)
{
    const dl_layout *L = X->L;
    int all = !S || !(X->single && X->aligned);
    memset(X->comp_live, all, (size_t)X->ncomps);
    if (!all)
        for (int i = 0; i < L->ngpus; i++)
            if (S->skip_gap[i] < plan_len(L, i) - 1)
                X->comp_live[X->comp[i]] = 1;
    for (int i = 0; i < L->ngpus; i++)
        X->active[i] = X->comp_live[X->comp[i]];
}

static void reset(dl_ref *X)
{
    const dl_layout *L = X->L;
    for (int i = 0; i < L->ngpus; i++) {
        if (!X->active[i])
            continue;
        int off = L->plan_off[i], n = plan_len(L, i);
        memcpy(X->rem + off, L->plan + off, (size_t)n * sizeof(dl_plan_entry));
        X->rem_head[i] = 0;
        X->rem_len[i] = n;
        X->hung[i] = 0;
        X->sub_head[i] = -1;
        X->nsub[i] = 0;
    }
    if (X->single) {
        memset(X->batch_n, 0, (size_t)L->ngroups * sizeof(int));
        memset(X->in_batch, 0, (size_t)X->node_off[L->ngroups]);
        memset(X->nsubmit, 0, (size_t)X->node_off[L->ngroups] * sizeof(int));
        memset(X->seq_len, 0, (size_t)L->ngroups * sizeof(int));
    } else {
        memset(X->submitted, 0, (size_t)L->nparts);
        for (int c = 0; c < L->ncolls; c++)
            X->left[c] = L->part_off[c + 1] - L->part_off[c];
    }
    X->nhung = 0;
    X->steps = X->events = X->invocations = X->syncs = X->skips = X->drops = 0;
    X->deadlock_event = -1;
}

/* ---- single-queue rules: one pending batch per group ---- */

/* The nodrop ablation: this member's k-th submission to the group meets
 * the k-th of the others; the first to get there records it. */
static int nodrop_submit(dl_ref *X, int g, int node, int coll)
{
    int k = X->nsubmit[node]++, *seq = X->seq + X->L->groups[g].first_coll;
    if (k == X->seq_len[g]) {
        seq[X->seq_len[g]++] = coll;
        return DL_RUNNING;
    }
    return seq[k] == coll ? DL_RUNNING : DL_DEADLOCK;
}

static int single_submit(dl_ref *X, dl_plan_entry e)
{
    const dl_layout *L = X->L;
    int g = L->coll_group[e.coll], node = X->node_off[g] + e.member;
    if (X->nodrop)
        return nodrop_submit(X, g, node, e.coll);
    if (X->in_batch[node]) { /* already pending in this group: dropped */
        X->drops++;
        return DL_RUNNING;
    }
    X->in_batch[node] = 1;
    if (X->batch_n[g]++ == 0)
        X->batch_coll[g] = e.coll;
    else if (X->batch_coll[g] != e.coll)
        return DL_DEADLOCK; /* two different collectives pending in one group */
    if (X->batch_n[g] == L->groups[g].n) { /* every member submitted: cleared */
        X->batch_n[g] = 0;
        memset(X->in_batch + X->node_off[g], 0, (size_t)L->groups[g].n);
    }
    return DL_RUNNING;
}

/* ---- sync rules: submitted-undone sets, hangs, intersection ---- */

static void unlink_part(dl_ref *X, int gpu, int p)
{
    if (X->sprev[p] >= 0)
        X->snext[X->sprev[p]] = X->snext[p];
    else
        X->sub_head[gpu] = X->snext[p];
    if (X->snext[p] >= 0)
        X->sprev[X->snext[p]] = X->sprev[p];
    X->nsub[gpu]--;
}

static void release(dl_ref *X, int gpu)
{
    X->hung[gpu] = 0;
    for (int k = 0; k < X->nhung; k++)
        if (X->hung_list[k] == gpu) {
            X->hung_list[k] = X->hung_list[--X->nhung];
            return;
        }
}

/* Every GPU in a group of gpu holds `slots` or more submitted, incomplete
 * collectives (the reference checks every group after every submission;
 * only the submitter's groups can have changed to full). */
static int group_full(const dl_ref *X, int g)
{
    const dl_group *G = &X->L->groups[g];
    for (int m = 0; m < G->n; m++)
        if (X->nsub[G->gpus[m]] < X->P.slots)
            return 0;
    return 1;
}

static int full_somewhere(const dl_ref *X, int gpu)
{
    for (int k = X->ggroup_off[gpu]; k < X->ggroup_off[gpu + 1]; k++)
        if (group_full(X, X->ggroup[k]))
            return 1;
    return 0;
}

static int sync_submit(dl_ref *X, int gpu, dl_plan_entry e)
{
    const dl_layout *L = X->L;
    int p = L->part_off[e.coll] + e.member;
    X->submitted[p] = 1;
    X->sprev[p] = -1;
    X->snext[p] = X->sub_head[gpu];
    if (X->snext[p] >= 0)
        X->sprev[X->snext[p]] = p;
    X->sub_head[gpu] = p;
    X->nsub[gpu]++;
    if (--X->left[e.coll] == 0) /* complete: leaves every member's set */
        for (int q = L->part_off[e.coll]; q < L->part_off[e.coll + 1]; q++) {
            int j = L->part_gpu[q];
            unlink_part(X, j, q);
            if (X->hung[j] && X->nsub[j] == 0)
                release(X, j);
        }
    if (X->P.slots > 0 && full_somewhere(X, gpu))
        return DL_DEADLOCK;
    return DL_RUNNING;
}

/* The reference's check when GPU n hangs: n waits for some other hung GPU
 * (a collective n submitted that one has not) and some other hung GPU waits
 * for n (a collective it submitted, incomplete, that n has not). */
static int intersection(const dl_ref *X, int n)
{
    const dl_layout *L = X->L;
    int waits = 0, waited = 0;
    for (int p = X->sub_head[n]; p >= 0 && !waits; p = X->snext[p]) {
        int c = L->part_coll[p];
        for (int q = L->part_off[c]; q < L->part_off[c + 1]; q++)
            if (!X->submitted[q] && X->hung[L->part_gpu[q]] && L->part_gpu[q] != n) {
                waits = 1;
                break;
            }
    }
    for (int k = 0; k < X->nhung && waits && !waited; k++) {
        int h = X->hung_list[k];
        if (h == n)
            continue;
        for (int p = X->sub_head[h]; p >= 0 && !waited; p = X->snext[p]) {
            int c = L->part_coll[p];
            for (int q = L->part_off[c]; q < L->part_off[c + 1]; q++)
                if (L->part_gpu[q] == n && !X->submitted[q]) {
                    waited = 1;
                    break;
                }
        }
    }
    return waits && waited;
}

static int sync_at(dl_ref *X, int gpu)
{
    if (X->nsub[gpu] == 0)
        return DL_RUNNING;
    X->hung[gpu] = 1;
    X->hung_list[X->nhung++] = gpu;
    return X->nhung >= 2 && intersection(X, gpu) ? DL_DEADLOCK : DL_RUNNING;
}

/* ---- the lockstep round ---- */

/* At thousands of GPUs a round's state is far larger than the cache, and
 * each GPU walks its own list, so reading its next entry would nearly always
 * wait for memory: fetch the list DL_REF_AHEAD entries ahead.  Measured on
 * Table 1 row 9 (3072 GPUs, sync rules): 1.5 times as many rounds per
 * second (results/README.md, "Both semantics"). */
#ifndef DL_REF_AHEAD
#define DL_REF_AHEAD 64
#endif

int dl_ref_apply(dl_ref *X, int i, int k)
{
    X->events++;
    if (k == DL_DRAW_SYNC) {
        X->syncs++;
        return sync_at(X, i);
    }
    X->skips += k;
    X->invocations++;
    dl_plan_entry *base = X->rem + X->L->plan_off[i] + X->rem_head[i];
    dl_plan_entry e = base[k];
    __builtin_prefetch(base + DL_REF_AHEAD);
    if (k > 0)
        memmove(base + 1, base, (size_t)k * sizeof *base);
    X->rem_head[i]++;
    X->rem_len[i]--;
    return X->single ? single_submit(X, e) : sync_submit(X, i, e);
}

/* The GPUs not played (components that cannot trip the check) act once per
 * step from step 0 until their plans are done: their counts in closed form,
 * up to the deadlocking action (step, gpu) or to the end. */
static void count_idle(dl_ref *X, long dstep, int dgpu)
{
    const dl_layout *L = X->L;
    for (int i = 0; i < L->ngpus; i++) {
        if (X->active[i])
            continue;
        long n = plan_len(L, i);
        if (dgpu >= 0) {
            long upto = dstep + (i < dgpu);
            n = n < upto ? n : upto;
        } else if (n > X->steps) {
            X->steps = n;
        }
        X->events += n;
        X->invocations += n;
    }
}

void dl_ref_begin(dl_ref *X)
{
    choose_active(X, NULL);
    reset(X);
}

/* A point of the lockstep order: step, then GPU id. */
static int before(long s1, int g1, long s2, int g2)
{
    return s1 < s2 || (s1 == s2 && g1 < g2);
}

/* One lockstep run. */
typedef struct play_end {
    int status;       /* DL_DEADLOCK, DL_COMPLETED, or DL_RUNNING: reached the stop */
    long step;        /* deadlock: its step; completed: the first step with no work left */
    int gpu;          /* deadlock: its GPU */
    long last_step;   /* the last action taken (-1: none) */
    int last_gpu;
} play_end;

/* Lockstep over the GPUs gpus[0..n) (ascending ids) from step 0, exactly as
 * the whole round plays them, taking no action after (stop_step, stop_gpu). */
static play_end play(dl_ref *X, dl_streams *S, const int *gpus, int n, long stop_step,
                     int stop_gpu)
{
    play_end e = {DL_RUNNING, 0, -1, -1, -1};
    for (long step = 0; step <= stop_step; step++) {
        int acted = 0, pending = 0, cut = 0;
        for (int k = 0; k < n; k++) {
            int i = gpus[k];
            if (step == stop_step && i > stop_gpu) {
                cut = 1;
                break;
            }
            if (!X->active[i] || X->rem_len[i] == 0)
                continue;
            pending = 1;
            if (X->hung[i])
                continue;
            acted = 1;
            e.last_step = step;
            e.last_gpu = i;
            if (dl_ref_apply(X, i, dl_streams_action(S, i, X->rem_len[i])) == DL_DEADLOCK) {
                e.status = DL_DEADLOCK;
                e.step = step;
                e.gpu = i;
                return e;
            }
        }
        if (cut)
            break;
        if (!pending) {
            e.status = DL_COMPLETED;
            e.step = step;
            return e;
        }
        if (!acted) {
            /* every GPU left hangs, yet the check found no deadlock: a cycle
             * among hung GPUs would have tripped it, so this is a bug */
            fprintf(stderr, "dlsim: internal error: reference semantics: every GPU with work "
                            "left hangs at step %ld and the check found no deadlock\n", step);
            abort();
        }
    }
    return e;
}

/* Plays the round's units (split: each live component alone; else all GPUs
 * at once) up to (stop_step, stop_gpu), each deadlock found lowering the
 * stop for the units after it.  The outcome: DL_DEADLOCK at the earliest
 * deadlock, or DL_COMPLETED at the last unit's end; last_*: the latest
 * action any unit took, which is after the deadlock when a unit played
 * before the deadlocking one went past it (its counts are then too high). */
static play_end play_units(dl_ref *X, dl_streams *S, long stop_step, int stop_gpu)
{
    play_end out = {DL_COMPLETED, 0, -1, -1, -1};
    int units = X->split ? X->ncomps : 1;
    for (int u = 0; u < units; u++) {
        const int *gpus = X->all_gpus;
        int n = X->L->ngpus;
        if (X->split) {
            if (!X->comp_live[u])
                continue;
            gpus = X->comp_gpus + X->comp_off[u];
            n = X->comp_off[u + 1] - X->comp_off[u];
        }
        X->nhung = 0; /* the check looks at hung GPUs of the same component only */
        play_end e = play(X, S, gpus, n, stop_step, stop_gpu);
        if (before(out.last_step, out.last_gpu, e.last_step, e.last_gpu)) {
            out.last_step = e.last_step;
            out.last_gpu = e.last_gpu;
        }
        if (e.status == DL_DEADLOCK) {
            out.status = DL_DEADLOCK;
            out.step = stop_step = e.step;
            out.gpu = stop_gpu = e.gpu;
        } else if (e.status == DL_COMPLETED && out.status == DL_COMPLETED && e.step > out.step) {
            out.step = e.step;
        }
    }
    return out;
}

int dl_ref_run(dl_ref *X, dl_streams *S, unsigned long seed, long round)
{
    dl_streams_seed(S, seed, round);
    choose_active(X, S);
    reset(X);
    play_end e = play_units(X, S, LONG_MAX, 0);
    if (e.status == DL_DEADLOCK && before(e.step, e.gpu, e.last_step, e.last_gpu)) {
        /* a component played earlier went past the deadlock: replay the
         * round up to it for the counts of the whole round */
        long step = e.step;
        int gpu = e.gpu;
        X->replays++;
        dl_streams_seed(S, seed, round);
        reset(X);
        e = play_units(X, S, step, gpu);
        if (e.status != DL_DEADLOCK || e.step != step || e.gpu != gpu ||
            before(step, gpu, e.last_step, e.last_gpu)) {
            fprintf(stderr, "dlsim: internal error: reference semantics: round %ld (seed %lu) "
                            "deadlocks at step %ld, GPU %d, but not when replayed up to it\n",
                    round, seed, step, gpu);
            abort();
        }
    }
    X->status = e.status;
    if (e.status == DL_DEADLOCK) {
        X->steps = e.step + 1;
        count_idle(X, e.step, e.gpu);
        X->deadlock_event = X->events; /* idle GPUs' actions before it included */
    } else {
        X->steps = e.step;
        count_idle(X, -1, -1);
    }
    return e.status;
}
