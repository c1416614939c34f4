/* split.c: replaying a deadlocked round component by component (split.h). */
#include "split.h"

#include <limits.h>
#include <stdlib.h>

#include "util.h"

struct dl_split {
    const dl_layout *L;
    const dl_fast *F; /* components, and the last round's verdict of each */
    int n;            /* GPUs per component */
    dl_layout sub;    /* the first component, its GPUs numbered 0..n-1 in id order */
    dl_round *R;      /* the lockstep engine on it */
    dl_streams *S;    /* its n generators */
};

/* Builds the first component as a layout of its own and checks that every
 * component is a copy: the same number of GPUs and groups, its t-th group
 * with the first's count and, member by member, the GPU at the same place in
 * its GPU list; every GPU's plan the copy's, renumbered.  0, or -1. */
static int build(dl_split *X)
{
    const dl_layout *L = X->L;
    const dl_fast *F = X->F;
    int *local = dl_xmalloc((size_t)L->ngpus * sizeof(int));   /* place in its component */
    int *place = dl_xmalloc((size_t)L->ngroups * sizeof(int)); /* likewise for groups */
    int *members = dl_xmalloc((size_t)L->ngpus * sizeof(int));
    int ok = 0, ng0 = F->comp_group_off[1] - F->comp_group_off[0];
    for (int k = 0; k < F->ncomps; k++) {
        for (int t = F->comp_gpu_off[k]; t < F->comp_gpu_off[k + 1]; t++)
            local[F->comp_gpu[t]] = t - F->comp_gpu_off[k];
        for (int t = F->comp_group_off[k]; t < F->comp_group_off[k + 1]; t++)
            place[F->comp_group[t]] = t - F->comp_group_off[k];
    }
    char err[256];
    dl_layout_init(&X->sub, X->n);
    for (int t = 0; t < ng0 && ok == 0; t++) {
        const dl_group *G = &L->groups[F->comp_group[t]];
        for (int m = 0; m < G->n; m++)
            members[m] = local[G->gpus[m]];
        ok = dl_layout_add_group(&X->sub, members, G->n, G->ncoll, err, sizeof err);
    }
    if (ok == 0)
        ok = dl_layout_finish(&X->sub, L->order, err, sizeof err);
    for (int k = 1; k < F->ncomps && ok == 0; k++) {
        if (F->comp_gpu_off[k + 1] - F->comp_gpu_off[k] != X->n ||
            F->comp_group_off[k + 1] - F->comp_group_off[k] != ng0) {
            ok = -1;
            break;
        }
        for (int t = 0; t < ng0 && ok == 0; t++) {
            const dl_group *G = &L->groups[F->comp_group[F->comp_group_off[k] + t]];
            const dl_group *H = &X->sub.groups[t];
            if (G->ncoll != H->ncoll || G->n != H->n)
                ok = -1;
            for (int m = 0; m < G->n && ok == 0; m++)
                if (local[G->gpus[m]] != H->gpus[m])
                    ok = -1;
        }
    }
    /* the planned orders, entry by entry, in every component (the first too) */
    for (int k = 0; k < F->ncomps && ok == 0; k++)
        for (int j = 0; j < X->n && ok == 0; j++) {
            int i = F->comp_gpu[F->comp_gpu_off[k] + j];
            int len = L->plan_off[i + 1] - L->plan_off[i];
            if (len != X->sub.plan_off[j + 1] - X->sub.plan_off[j]) {
                ok = -1;
                break;
            }
            for (int q = 0; q < len; q++) {
                dl_plan_entry e = L->plan[L->plan_off[i] + q], s = X->sub.plan[X->sub.plan_off[j] + q];
                int g = L->coll_group[e.coll];
                int c = X->sub.groups[place[g]].first_coll + (e.coll - L->groups[g].first_coll);
                if (c != s.coll || e.member != s.member) {
                    ok = -1;
                    break;
                }
            }
        }
    free(local);
    free(place);
    free(members);
    return ok;
}

dl_split *dl_split_new(const dl_layout *L, const dl_params *P, const gsl_rng_type *type,
                       const dl_fast *F)
{
    if (!F || F->ncomps < 2)
        return NULL;
    dl_split *X = dl_xcalloc(1, sizeof *X);
    X->L = L;
    X->F = F;
    X->n = F->comp_gpu_off[1] - F->comp_gpu_off[0];
    if (build(X) < 0) {
        dl_layout_free(&X->sub);
        free(X);
        return NULL;
    }
    X->R = dl_round_new(&X->sub, P);
    X->S = dl_streams_new(type, X->n, P);
    return X;
}

void dl_split_free(dl_split *X)
{
    if (!X)
        return;
    dl_streams_free(X->S);
    dl_round_free(X->R);
    dl_layout_free(&X->sub);
    free(X);
}

/* One component's events as the sink sees them: the counts of those up to
 * (T, I) in the round's order (step, then GPU id), and the last one. */
typedef struct tally {
    const int *gpus; /* the component's GPU ids */
    long T;
    int I;
    long events, invocations, syncs, skips;
    long last_step;
    int last_gpu;
} tally;

static void on_event(void *ctx, long step, int gpu, int action, int coll, int skipped)
{
    tally *t = ctx;
    int id = t->gpus[gpu];
    t->last_step = step;
    t->last_gpu = id;
    if (step > t->T || (step == t->T && id > t->I))
        return;
    t->events++;
    if (action == DL_ACT_SYNC) {
        t->syncs++;
    } else {
        t->invocations++;
        t->skips += skipped;
    }
}

/* Component k of round `round` in the engine, counting into t. */
static int run_component(dl_split *X, int k, unsigned long seed, long round, tally *t)
{
    t->gpus = X->F->comp_gpu + X->F->comp_gpu_off[k];
    dl_streams_seed_gpus(X->S, seed, round, t->gpus);
    dl_sink sink = {on_event, t};
    return dl_round_run_streams(X->R, X->S, &sink);
}

/* In a model without syncs a component in which no GPU skips invokes its
 * plan one entry per GPU per step: its counts up to (T, I) need no replay. */
static int count_plain(const dl_split *X, int k, long T, int I, tally *t)
{
    const dl_fast *F = X->F;
    if (X->R->P.sync > 0)
        return 0;
    for (int s = F->comp_gpu_off[k]; s < F->comp_gpu_off[k + 1]; s++)
        if (F->skipper[F->comp_gpu[s]])
            return 0;
    for (int s = F->comp_gpu_off[k]; s < F->comp_gpu_off[k + 1]; s++) {
        int i = F->comp_gpu[s];
        long len = X->L->plan_off[i + 1] - X->L->plan_off[i];
        long e = T + (i <= I); /* steps 0..T-1, and step T if it acts before the deadlock */
        t->events += e < len ? e : len;
    }
    t->invocations = t->events;
    return 1;
}

int dl_split_round(dl_split *X, unsigned long seed, long round, dl_split_counts *out)
{
    const dl_fast *F = X->F;
    long T = LONG_MAX;
    int I = INT_MAX, first = -1;
    tally best = {0};
    for (int k = 0; k < F->ncomps; k++) {
        if (!F->comp_dead[k])
            continue;
        tally t = {.T = LONG_MAX, .I = INT_MAX};
        if (run_component(X, k, seed, round, &t) != DL_DEADLOCK)
            return -1;
        if (t.last_step < T || (t.last_step == T && t.last_gpu < I)) {
            T = t.last_step;
            I = t.last_gpu;
            first = k;
            best = t;
        }
    }
    if (first < 0)
        return -1;
    *out = (dl_split_counts){.steps = T + 1, .events = best.events,
                             .invocations = best.invocations, .syncs = best.syncs,
                             .skips = best.skips};
    for (int k = 0; k < F->ncomps; k++) {
        if (k == first)
            continue;
        tally t = {.T = T, .I = I};
        if (!count_plain(X, k, T, I, &t)) {
            int st = run_component(X, k, seed, round, &t);
            if (st != (F->comp_dead[k] ? DL_DEADLOCK : DL_COMPLETED))
                return -1;
        }
        out->events += t.events;
        out->invocations += t.invocations;
        out->syncs += t.syncs;
        out->skips += t.skips;
    }
    out->deadlock_event = out->events;
    return 0;
}
