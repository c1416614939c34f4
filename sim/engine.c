/* engine.c: one round's state machine and its lockstep driver.
 *
 * Hot path: an invocation appends a part to its GPU's FIFO, admits it if a
 * slot is free, and completes its collective when the last member admits
 * it.  Only when the event creates a dependency edge (a blocked part with an
 * executing counterpart) is the GPU marked dirty for the cycle detector, so
 * most events cost a few array writes and one or two random draws. */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "matching.h"
#include "streams.h"
#include "util.h"

dl_round *dl_round_new(const dl_layout *L, const dl_params *P)
{
    dl_round *R = dl_xcalloc(1, sizeof *R);
    size_t np = (size_t)L->nparts, nc = (size_t)L->ncolls, ng = (size_t)L->ngpus;
    R->L = L;
    R->P = *P;
    R->state = dl_xmalloc(np);
    R->prev = dl_xmalloc(np * sizeof(int));
    R->next = dl_xmalloc(np * sizeof(int));
    R->nexec = dl_xmalloc(nc * sizeof(int));
    R->head = dl_xmalloc(ng * sizeof(int));
    R->tail = dl_xmalloc(ng * sizeof(int));
    R->first_queued = dl_xmalloc(ng * sizeof(int));
    R->nexec_gpu = dl_xmalloc(ng * sizeof(int));
    R->suspended = dl_xmalloc(ng);
    R->rem = dl_xmalloc(np * sizeof *R->rem);
    R->rem_head = dl_xmalloc(ng * sizeof(int));
    R->rem_len = dl_xmalloc(ng * sizeof(int));
    R->dirty = dl_xmalloc(ng * sizeof(int));
    R->is_dirty = dl_xcalloc(ng, 1);
    R->mark = dl_xcalloc(ng, sizeof(int));
    R->stack_gpu = dl_xmalloc((ng + 1) * sizeof(int));
    R->stack_part = dl_xmalloc((ng + 1) * sizeof(int));
    R->stack_m = dl_xmalloc((ng + 1) * sizeof(int));
    R->work = dl_xmalloc(nc * sizeof(int));
    R->cycle = dl_xmalloc(2 * (ng + 1) * sizeof *R->cycle);
    R->rules = dl_rules_for(P->slots);
    if (P->match) {
        R->ncalls = dl_xmalloc((size_t)(P->match->call_off[P->match->ncomms] + 1) * sizeof(int));
        R->label = dl_xmalloc((nc ? nc : 1) * sizeof(int));
        R->called = dl_xmalloc((np ? np : 1) * sizeof(int));
    }
    dl_round_reset(R);
    return R;
}

void dl_round_free(dl_round *R)
{
    if (!R)
        return;
    free(R->state);
    free(R->prev);
    free(R->next);
    free(R->nexec);
    free(R->head);
    free(R->tail);
    free(R->first_queued);
    free(R->nexec_gpu);
    free(R->suspended);
    free(R->rem);
    free(R->rem_head);
    free(R->rem_len);
    free(R->dirty);
    free(R->is_dirty);
    free(R->mark);
    free(R->stack_gpu);
    free(R->stack_part);
    free(R->stack_m);
    free(R->work);
    free(R->cycle);
    free(R->need);
    free(R->anyrel);
    free(R->nrel);
    free(R->ncalls);
    free(R->label);
    free(R->called);
    free(R);
}

void dl_round_reset(dl_round *R)
{
    const dl_layout *L = R->L;
    size_t ng = (size_t)L->ngpus;
    memset(R->state, DL_NOT_INVOKED, (size_t)L->nparts);
    memset(R->nexec, 0, (size_t)L->ncolls * sizeof(int));
    memset(R->head, -1, ng * sizeof(int));
    memset(R->tail, -1, ng * sizeof(int));
    memset(R->first_queued, -1, ng * sizeof(int));
    memset(R->nexec_gpu, 0, ng * sizeof(int));
    memset(R->suspended, 0, ng);
    memcpy(R->rem, L->plan, (size_t)L->nparts * sizeof *R->rem);
    memset(R->rem_head, 0, ng * sizeof(int));
    for (int i = 0; i < L->ngpus; i++)
        R->rem_len[i] = L->plan_off[i + 1] - L->plan_off[i];
    for (int k = 0; k < R->ndirty; k++)
        R->is_dirty[R->dirty[k]] = 0;
    R->ndirty = 0;
    R->ndone = 0;
    R->nqueued = R->nsuspended = 0;
    R->status = DL_RUNNING;
    R->step = R->events = R->invocations = R->syncs = R->skips = 0;
    R->deadlock_step = R->deadlock_event = -1;
    R->ncycle = 0;
    R->cyclic = 0;
    R->mismatches = 0;
    R->nmixed = 0;
    R->mix_slot = -1;
    if (R->P.match) {
        memset(R->ncalls, 0, (size_t)R->P.match->call_off[R->P.match->ncomms] * sizeof(int));
        memset(R->label, -1, (size_t)L->ncolls * sizeof(int));
        memset(R->called, -1, (size_t)L->nparts * sizeof(int));
    }
}

static inline void mark_dirty(dl_round *R, int gpu)
{
    if (!R->is_dirty[gpu]) {
        R->is_dirty[gpu] = 1;
        R->dirty[R->ndirty++] = gpu;
    }
}

/* Does collective c have a part, other than `except`, in the given state
 * class?  want_blocked: a blocked part; else an executing one. */
static int has_counterpart(const dl_round *R, int c, int except, int want_blocked)
{
    for (int q = R->L->part_off[c], end = R->L->part_off[c + 1]; q < end; q++) {
        if (q == except)
            continue;
        if (want_blocked ? dl_part_blocked(R, q) : R->state[q] == DL_EXECUTING)
            return 1;
    }
    return 0;
}

/* Part p starts executing on gpu; returns 1 if that completes its collective. */
static int admit(dl_round *R, int gpu, int p)
{
    int c = R->L->part_coll[p];
    R->state[p] = DL_EXECUTING;
    R->nexec_gpu[gpu]++;
    int n = R->L->part_off[c + 1] - R->L->part_off[c];
    if (++R->nexec[c] == n)
        return 1;
    /* New edges gpu -> GPUs where c is blocked. */
    if ((R->nqueued || R->nsuspended) && has_counterpart(R, c, p, 1))
        mark_dirty(R, gpu);
    return 0;
}

/* Removes p (executing) from gpu's FIFO, admits the first queued part into
 * the freed slot, and resumes a suspended GPU whose FIFO emptied. */
static void retire(dl_round *R, int gpu, int p, int *work, int *nwork)
{
    int a = R->prev[p], b = R->next[p];
    if (a >= 0) R->next[a] = b; else R->head[gpu] = b;
    if (b >= 0) R->prev[b] = a; else R->tail[gpu] = a;
    R->state[p] = DL_DONE;
    R->nexec_gpu[gpu]--;
    int q = R->first_queued[gpu];
    if (q >= 0) {
        R->first_queued[gpu] = R->next[q];
        R->nqueued--;
        if (admit(R, gpu, q))
            work[(*nwork)++] = R->L->part_coll[q];
    }
    if (R->suspended[gpu] && R->head[gpu] < 0) {
        R->suspended[gpu] = 0;
        R->nsuspended--;
    }
}

/* Completes collective c and everything its completion releases. */
static void complete(dl_round *R, int c)
{
    const dl_layout *L = R->L;
    int nwork = 0;
    R->work[nwork++] = c;
    while (nwork > 0) {
        int x = R->work[--nwork];
        R->ndone++;
        for (int p = L->part_off[x]; p < L->part_off[x + 1]; p++)
            retire(R, L->part_gpu[p], p, R->work, &nwork);
    }
}

/* Decides after an event: the model's verdict (sim/models/: the cycle rule
 * with one slot or unlimited slots, the AND-OR reduction with K >= 2),
 * verify hook, status. */
static int finish_event(dl_round *R)
{
    int cycle = R->rules->verdict(R);
    if (R->verify && R->verify(R, cycle, R->verify_ctx))
        R->mismatches++;
    if (cycle) {
        R->status = DL_DEADLOCK;
        R->deadlock_step = R->step;
        R->deadlock_event = R->events;
    } else if (R->ndone == R->L->ncolls) {
        R->status = DL_COMPLETED;
    }
    return R->status;
}

/* Matching by order: gpu's call of e.coll is its n-th call on the
 * collective's communicator, so it fills its part of slot n, named after
 * the communicator's n-th collective; returns that slot.  A slot filled by
 * two different collectives is a mismatch (the first is kept for reports). */
static int fill_slot(dl_round *R, int gpu, dl_plan_entry e)
{
    const dl_matching *M = R->P.match;
    int k = M->comm_of[e.coll];
    int n = R->ncalls[M->call_off[k] + e.member]++;
    int slot = M->comm_coll[M->comm_off[k] + n];
    R->called[R->L->part_off[slot] + e.member] = e.coll;
    if (R->label[slot] == -1) {
        R->label[slot] = e.coll;
    } else if (R->label[slot] >= 0 && R->label[slot] != e.coll) {
        if (!R->nmixed++) {
            R->mix_slot = slot;
            /* the first caller's GPU: the member whose part is invoked */
            int first = -1;
            for (int q = R->L->part_off[slot]; q < R->L->part_off[slot + 1] && first < 0; q++)
                if (R->state[q] != DL_NOT_INVOKED)
                    first = R->L->part_gpu[q];
            R->mix_gpu[0] = first;
            R->mix_coll[0] = R->label[slot];
            R->mix_gpu[1] = gpu;
            R->mix_coll[1] = e.coll;
        }
        R->label[slot] = -2; /* mixed: counted once */
    }
    return slot;
}

/* gpu invokes the k-th entry of its remaining planned list. */
static int invoke_at(dl_round *R, int gpu, int k)
{
    const dl_layout *L = R->L;
    dl_plan_entry *base = R->rem + L->plan_off[gpu] + R->rem_head[gpu];
    dl_plan_entry e = base[k];
    if (k > 0)
        memmove(base + 1, base, (size_t)k * sizeof *base);
    R->rem_head[gpu]++;
    R->rem_len[gpu]--;
    R->events++;
    R->invocations++;

    if (R->P.match)
        e.coll = fill_slot(R, gpu, e);
    int p = L->part_off[e.coll] + e.member;
    R->prev[p] = R->tail[gpu];
    R->next[p] = -1;
    if (R->tail[gpu] >= 0) R->next[R->tail[gpu]] = p; else R->head[gpu] = p;
    R->tail[gpu] = p;

    if (R->P.slots == 0 || R->nexec_gpu[gpu] < R->P.slots) {
        if (admit(R, gpu, p))
            complete(R, e.coll);
    } else {
        R->state[p] = DL_QUEUED;
        R->nqueued++;
        if (R->first_queued[gpu] < 0)
            R->first_queued[gpu] = p;
        /* New edges into gpu from the executing counterparts. */
        if (has_counterpart(R, e.coll, p, 0))
            mark_dirty(R, gpu);
    }
    return finish_event(R);
}

int dl_round_sync(dl_round *R, int gpu)
{
    R->events++;
    R->syncs++;
    if (R->head[gpu] >= 0) {
        /* Its not-yet-invoked parts become blocked: new edges into gpu. */
        R->suspended[gpu] = 1;
        R->nsuspended++;
        mark_dirty(R, gpu);
    }
    return finish_event(R);
}

/* Position of coll in gpu's remaining list, or -1. */
static int rem_find(const dl_round *R, int gpu, int coll)
{
    const dl_plan_entry *base = R->rem + R->L->plan_off[gpu] + R->rem_head[gpu];
    for (int k = 0; k < R->rem_len[gpu]; k++)
        if (base[k].coll == coll)
            return k;
    return -1;
}

int dl_round_invoke(dl_round *R, int gpu, int coll)
{
    int k = rem_find(R, gpu, coll);
    if (k < 0) {
        fprintf(stderr, "dlsim: internal error: GPU %d cannot invoke collective %d\n", gpu, coll);
        abort();
    }
    return invoke_at(R, gpu, k);
}

/* A sync needs no collective: a GPU may sync at any point of its plan, also
 * after its last invocation (real programs synchronize at the end of every
 * iteration); on an empty FIFO it does nothing. */
int dl_round_can_sync(const dl_round *R, int gpu, char *err, size_t errlen)
{
    if (gpu < 0 || gpu >= R->L->ngpus)
        return dl_fail(err, errlen, "GPU %d does not exist (the layout has GPUs 0..%d)", gpu,
                       R->L->ngpus - 1);
    if (R->status == DL_DEADLOCK)
        return dl_fail(err, errlen, "the round is already deadlocked");
    if (R->suspended[gpu])
        return dl_fail(err, errlen, "GPU %d is suspended by a sync and cannot act", gpu);
    return 0;
}

/* Acting is what a sync may do, with a collective left to invoke. */
int dl_round_can_act(const dl_round *R, int gpu, char *err, size_t errlen)
{
    if (dl_round_can_sync(R, gpu, err, errlen))
        return -1;
    if (R->rem_len[gpu] == 0)
        return dl_fail(err, errlen, "GPU %d has invoked all its collectives", gpu);
    return 0;
}


int dl_round_can_invoke(const dl_round *R, int gpu, int coll, char *err, size_t errlen)
{
    if (coll < 0 || coll >= R->L->ncolls)
        return dl_fail(err, errlen, "collective %d does not exist (the layout has 0..%d)", coll,
                       R->L->ncolls - 1);
    if (gpu >= 0 && gpu < R->L->ngpus && dl_layout_member(R->L, coll, gpu) < 0)
        return dl_fail(err, errlen, "GPU %d is not a member of collective %d's group %d", gpu,
                       coll, R->L->coll_group[coll]);
    if (dl_round_can_act(R, gpu, err, errlen) < 0)
        return -1;
    if (rem_find(R, gpu, coll) < 0)
        return dl_fail(err, errlen, "GPU %d has already invoked collective %d", gpu, coll);
    return 0;
}

/* Index of the candidate a GPU invokes: each candidate but the last is
 * skipped with probability `disorder`. */
static inline int pick(dl_round *R, gsl_rng *rng, int gpu)
{
    int k = 0, last = R->rem_len[gpu] - 1;
    double p = R->P.disorder;
    if (p > 0)
        while (k < last && gsl_rng_uniform(rng) < p)
            k++;
    return k;
}

static void stall(const dl_round *R)
{
    fprintf(stderr,
            "dlsim: internal error: step %ld: no GPU can act, %d of %d collectives are "
            "incomplete and the dependency graph has no cycle\n",
            R->step, R->L->ncolls - R->ndone, R->L->ncolls);
    abort();
}

int dl_round_run(dl_round *R, gsl_rng *rng, const dl_sink *sink)
{
    dl_round_reset(R);
    return dl_round_drive(R, rng, sink);
}

/* The lockstep driver, from either stream: rng (the plain stream: one
 * uniform draw per action and per candidate looked at) or S (per-GPU
 * generators with geometric gaps, streams.h).  Inlined into its two callers
 * so that each gets the branch-free loop of its own stream. */
static inline __attribute__((always_inline)) int drive(dl_round *R, gsl_rng *rng,
                                                       dl_streams *S, const dl_sink *sink)
{
    const int ngpus = R->L->ngpus;
    const double psync = R->P.sync;
    for (;; R->step++) {
        int acted = 0;
        for (int i = 0; i < ngpus; i++) {
            if (R->suspended[i] || R->rem_len[i] == 0)
                continue;
            acted = 1;
            int st, k;
            if (S)
                k = dl_streams_action(S, i, R->rem_len[i]);
            else
                k = psync > 0 && gsl_rng_uniform(rng) < psync ? DL_DRAW_SYNC : pick(R, rng, i);
            if (k == DL_DRAW_SYNC) {
                if (sink)
                    sink->event(sink->ctx, R->step, i, DL_ACT_SYNC, -1, 0);
                st = dl_round_sync(R, i);
            } else {
                R->skips += k;
                if (sink) {
                    int c = R->rem[R->L->plan_off[i] + R->rem_head[i] + k].coll;
                    sink->event(sink->ctx, R->step, i, DL_ACT_INVOKE, c, k);
                }
                st = invoke_at(R, i, k);
            }
            if (st != DL_RUNNING)
                return st;
        }
        if (!acted)
            stall(R);
    }
}

int dl_round_drive(dl_round *R, gsl_rng *rng, const dl_sink *sink)
{
    return drive(R, rng, NULL, sink);
}

/* After a deadlock, the rest of every GPU's plan, drawn from the same stream
 * as if the GPUs ran on a library that cannot deadlock: no GPU is suspended
 * any more and no verdict is taken; each GPU acts once per step (from the
 * step after the deadlock) until it has invoked every collective.  The
 * events go to the sink only: the round's state and counts stay those of the
 * deadlock.  This is what a replay on hardware needs (dlsim gen --full):
 * every GPU's whole plan, in an order that follows the round up to its
 * deadlock. */
static void finish_plan(dl_round *R, gsl_rng *rng, dl_streams *S, const dl_sink *sink)
{
    const dl_layout *L = R->L;
    const double psync = R->P.sync;
    for (long step = R->step + 1;; step++) {
        int acted = 0;
        for (int i = 0; i < L->ngpus; i++) {
            int len = R->rem_len[i];
            if (len == 0)
                continue;
            acted = 1;
            int k;
            if (S)
                k = dl_streams_action(S, i, len);
            else
                k = psync > 0 && gsl_rng_uniform(rng) < psync ? DL_DRAW_SYNC : pick(R, rng, i);
            if (k == DL_DRAW_SYNC) {
                sink->event(sink->ctx, step, i, DL_ACT_SYNC, -1, 0);
                continue;
            }
            dl_plan_entry *base = R->rem + L->plan_off[i] + R->rem_head[i];
            sink->event(sink->ctx, step, i, DL_ACT_INVOKE, base[k].coll, k);
            if (k > 0)
                memmove(base + 1, base, (size_t)k * sizeof *base);
            R->rem_head[i]++;
            R->rem_len[i]--;
        }
        if (!acted)
            return;
    }
}

void dl_round_finish_plan(dl_round *R, gsl_rng *rng, const dl_sink *sink)
{
    finish_plan(R, rng, NULL, sink);
}

void dl_round_finish_plan_streams(dl_round *R, dl_streams *S, const dl_sink *sink)
{
    finish_plan(R, NULL, S, sink);
}

int dl_round_run_streams(dl_round *R, dl_streams *S, const dl_sink *sink)
{
    dl_round_reset(R);
    return dl_round_drive_streams(R, S, sink);
}

int dl_round_drive_streams(dl_round *R, dl_streams *S, const dl_sink *sink)
{
    return drive(R, NULL, S, sink);
}
