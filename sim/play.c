/* play.c: one round of a study in the study's stream (play.h). */
#include "play.h"

#include <stdio.h>
#include <stdlib.h>

#include "rng.h"
#include "util.h"

dl_player *dl_player_new(const dl_layout *L, const dl_params *P, const gsl_rng_type *type,
                         unsigned long seed, int exact)
{
    dl_player *pl = dl_xcalloc(1, sizeof *pl);
    pl->L = L;
    pl->P = *P;
    pl->seed = seed;
    pl->exact = exact;
    pl->R = dl_round_new(L, P);
    if (exact) {
        pl->rng = gsl_rng_alloc(type);
    } else {
        pl->S = dl_streams_new(type, L->ngpus, P);
        pl->F = dl_fast_new(L, P);
        pl->X = dl_split_new(L, P, type, pl->F);
    }
    return pl;
}

void dl_player_free(dl_player *pl)
{
    if (!pl)
        return;
    if (pl->rng)
        gsl_rng_free(pl->rng);
    dl_streams_free(pl->S);
    dl_split_free(pl->X);
    dl_fast_free(pl->F);
    dl_ref_free(pl->ref);
    dl_round_free(pl->R);
    free(pl);
}

static int from_engine(dl_player *pl, int st)
{
    const dl_round *R = pl->R;
    pl->status = st;
    pl->engine_state = 1;
    pl->steps = R->step + 1;
    pl->events = R->events;
    pl->invocations = R->invocations;
    pl->syncs = R->syncs;
    pl->skips = R->skips;
    pl->mismatches = R->mismatches;
    pl->deadlock_event = R->deadlock_event;
    pl->corrupt = dl_round_verdict(R) == DL_CORRUPT;
    return st;
}

/* The reference's rules decide (reference.h); its own counts, no engine
 * state (the caller refuses per-event detail in this semantics). */
static int from_reference(dl_player *pl, long round)
{
    const dl_ref *X = pl->ref;
    pl->status = dl_ref_run(pl->ref, pl->S, pl->seed, round);
    pl->engine_state = 0;
    pl->steps = X->steps;
    pl->events = X->events;
    pl->invocations = X->invocations;
    pl->syncs = X->syncs;
    pl->skips = X->skips;
    pl->mismatches = 0;
    pl->deadlock_event = X->deadlock_event;
    return pl->status;
}

int dl_player_round(dl_player *pl, long round, int detail, const dl_sink *sink)
{
    if (pl->exact) {
        dl_rng_seed_round(pl->rng, pl->seed, round);
        return from_engine(pl, dl_round_run(pl->R, pl->rng, sink));
    }
    if (pl->ref)
        return from_reference(pl, round); /* it seeds the streams */
    dl_streams_seed(pl->S, pl->seed, round);
    if (!pl->F || detail || sink)
        return from_engine(pl, dl_round_run_streams(pl->R, pl->S, sink));

    int st = dl_fast_run(pl->F, pl->S);
    if (st == DL_COMPLETED) {
        const dl_fast *F = pl->F;
        pl->status = st;
        pl->engine_state = 0;
        pl->steps = -1;
        pl->events = F->events;
        pl->invocations = F->invocations;
        pl->syncs = F->syncs;
        pl->skips = F->skips;
        pl->mismatches = 0;
        pl->deadlock_event = -1;
        pl->corrupt = 0;
        return st;
    }
    /* A deadlock: replay it in the engine from the same streams for its
     * counts up to the first cycle (and as a check of the evaluator). */
    if (pl->X) {
        dl_split_counts k;
        if (dl_split_round(pl->X, pl->seed, round, &k) < 0) {
            fprintf(stderr,
                    "dlsim: internal error: round %ld (seed %lu): the schedule-free evaluator "
                    "and the lockstep engine disagree on a component\n", round, pl->seed);
            abort();
        }
        pl->status = DL_DEADLOCK;
        pl->engine_state = 0;
        pl->steps = k.steps;
        pl->events = k.events;
        pl->invocations = k.invocations;
        pl->syncs = k.syncs;
        pl->skips = k.skips;
        pl->mismatches = 0;
        pl->deadlock_event = k.deadlock_event;
        pl->corrupt = 0;
        return DL_DEADLOCK;
    }
    dl_streams_seed(pl->S, pl->seed, round);
    int again = dl_round_run_streams(pl->R, pl->S, NULL);
    if (again != DL_DEADLOCK) {
        fprintf(stderr,
                "dlsim: internal error: round %ld (seed %lu): the schedule-free evaluator "
                "found a deadlock that the lockstep engine does not\n",
                round, pl->seed);
        abort();
    }
    return from_engine(pl, again);
}

void dl_player_use_reference(dl_player *pl, int sem)
{
    if (!pl->ref)
        pl->ref = dl_ref_new(pl->L, &pl->P);
    dl_ref_set_nodrop(pl->ref, sem == DL_SEM_REFERENCE_NODROP);
}

void dl_player_finish_plan(dl_player *pl, const dl_sink *sink)
{
    if (pl->exact)
        dl_round_finish_plan(pl->R, pl->rng, sink);
    else
        dl_round_finish_plan_streams(pl->R, pl->S, sink);
}
