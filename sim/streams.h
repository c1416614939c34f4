/* streams.h: the default random stream of a round: one generator per GPU,
 * with geometric gaps between rare events.
 *
 * The plain ("exact") stream of engine.c draws, from one generator per
 * round, a uniform number for every action (sync or not) and for every
 * candidate a GPU looks at (skip or not), in the engine's global order.  Both
 * decisions are runs of independent Bernoulli trials, and a run of Bernoulli
 * trials is equally a sequence of geometric gaps between successes: here
 * each GPU keeps two counters,
 *
 *   sync_gap  actions it will take before its next sync,
 *   skip_gap  candidates it will keep (trials that fail) before its next skip,
 *
 * each drawn by inversion, floor(log U / log(1-p)), from that GPU's own
 * generator (seeded from (seed, round, gpu)) when the previous one is used
 * up.  Every action then has probability `sync` of being a sync and every
 * candidate but the last probability `disorder` of being skipped, all
 * independent, exactly as in the plain stream: the two streams give rounds
 * with the same distribution, not the same rounds.  Because a GPU draws only
 * from its own generator, its sequence of actions depends on nothing but
 * its own past, whatever the other GPUs do: the schedule-free evaluator
 * (fast.c) and the lockstep engine see the same sequences. */
#ifndef DL_STREAMS_H
#define DL_STREAMS_H

#include <limits.h>
#include <math.h>

#include <gsl/gsl_rng.h>

#include "engine.h"

enum { DL_DRAW_SYNC = -1 };

typedef struct dl_streams {
    int ngpus;
    double psync, pskip;  /* probabilities (psync 0: the model has no syncs) */
    double lsync, lskip;  /* log(1 - p) */
    gsl_rng **rng;        /* [ngpus] one generator per GPU */
    long *sync_gap, *skip_gap; /* [ngpus] */
} dl_streams;

/* Per-GPU generators of the given type for a layout of ngpus GPUs. */
dl_streams *dl_streams_new(const gsl_rng_type *type, int ngpus, const dl_params *P);
void dl_streams_free(dl_streams *S);

/* Seeds every GPU's generator for round `round` of a study seeded with
 * `seed` and draws the first gaps (sync gap, then skip gap, per GPU). */
void dl_streams_seed(dl_streams *S, unsigned long seed, long round);

/* The same for a part of a layout (split.h): generator j gets the stream of
 * GPU gpus[j] of the whole layout. */
void dl_streams_seed_gpus(dl_streams *S, unsigned long seed, long round, const int *gpus);

/* The number of failures before the first success of Bernoulli(p) trials;
 * lq = log(1-p).  LONG_MAX stands for "never" (p = 0). */
static inline long dl_geometric_gap(gsl_rng *r, double p, double lq)
{
    if (p <= 0)
        return LONG_MAX;
    if (p >= 1)
        return 0;
    double g = floor(log(gsl_rng_uniform_pos(r)) / lq);
    return g >= 9.0e18 ? LONG_MAX : (long)g;
}

/* GPU gpu's next action, given the length of its remaining planned list
 * (>= 1): DL_DRAW_SYNC, or the index k of the candidate it invokes. */
static inline int dl_streams_action(dl_streams *S, int gpu, int remlen)
{
    if (S->psync > 0) {
        if (S->sync_gap[gpu] == 0) {
            S->sync_gap[gpu] = dl_geometric_gap(S->rng[gpu], S->psync, S->lsync);
            return DL_DRAW_SYNC;
        }
        S->sync_gap[gpu]--;
    }
    int k = 0;
    while (k < remlen - 1) {
        if (S->skip_gap[gpu] > 0) {
            S->skip_gap[gpu]--;
            break;
        }
        S->skip_gap[gpu] = dl_geometric_gap(S->rng[gpu], S->pskip, S->lskip);
        k++;
    }
    return k;
}

#endif
