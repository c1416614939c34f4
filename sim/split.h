/* split.h: replaying a deadlocked round component by component.
 *
 * A deadlocked round is replayed in the lockstep engine for its counts up to
 * the first cycle (play.c).  On a large layout the whole-round replay is
 * slow: every step visits every GPU, and at thousands of GPUs nearly every
 * access misses the cache.  But GPUs of different components (fast.h: GPUs
 * linked by shared groups; a 3D layout's pipeline stages) never wait for
 * each other, so in lockstep each component runs exactly as it would alone,
 * its GPUs acting in the same steps and in the same order.  Where every
 * component is a copy of the first (same group shapes, counts and planned
 * orders up to renumbering, as in 3D layouts), one small engine on that
 * shape replays each component in turn from its GPUs' own streams:
 *
 *   1. the components the evaluator found deadlocked: each must deadlock in
 *      the engine too; the round's first deadlock is the earliest (step,
 *      GPU id) of theirs;
 *   2. every component counts its events up to and including that one (step
 *      before, or the same step and a GPU id not above it); each other
 *      component must end as the evaluator said.
 *
 * The sums are the whole-round engine's counts up to its deadlock (tested
 * round by round, tests/test_fast.c).  Only counts come out: the cycle and
 * per-event details need the whole-round engine (dlsim gen, --rounds-csv). */
#ifndef DL_SPLIT_H
#define DL_SPLIT_H

#include <gsl/gsl_rng.h>

#include "engine.h"
#include "fast.h"
#include "streams.h"

typedef struct dl_split dl_split;

/* What the whole-round engine would report for the round. */
typedef struct dl_split_counts {
    long steps, events, invocations, syncs, skips, deadlock_event;
} dl_split_counts;

/* NULL unless the layout has two or more components, all copies of the
 * first (F: the evaluator, whose components and verdicts it uses). */
dl_split *dl_split_new(const dl_layout *L, const dl_params *P, const gsl_rng_type *type,
                       const dl_fast *F);
void dl_split_free(dl_split *X);

/* Replays round `round` (seed) that F just found deadlocked.  0, or -1 if a
 * component's engine verdict is not the evaluator's (a bug: the caller
 * aborts). */
int dl_split_round(dl_split *X, unsigned long seed, long round, dl_split_counts *out);

#endif
