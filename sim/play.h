/* play.h: one round of a study, from its index, in the study's stream.
 *
 * A round r of a study with seed s is fixed by (s, r) and the stream:
 *
 *   default   every GPU draws from its own generator seeded from (s, r, gpu),
 *             with geometric gaps between syncs and between skips (streams.h);
 *   exact     one generator seeded from (s, r), one uniform draw per action
 *             and per candidate looked at (--exact-stream; the stream of
 *             dlsim 0.1).
 *
 * The two give rounds with the same distribution but not the same rounds.
 * Either way a round's outcome is the lockstep engine's (engine.c).  In the
 * default stream, when the model allows it (one slot or unlimited slots) and
 * the caller needs no per-event detail, the round is first decided by the
 * schedule-free evaluator (fast.c), which gives the same verdict and, for a
 * completed round, the same counts; a deadlocked round is then replayed in
 * the engine from the same streams for its exact counts, step, event and
 * cycle (and the replay must deadlock too, or dlsim aborts).  On a layout of
 * identical independent components (3D) the replay runs component by
 * component (split.h), which gives the counts, step and event, not the cycle. */
#ifndef DL_PLAY_H
#define DL_PLAY_H

#include <gsl/gsl_rng.h>

#include "engine.h"
#include "fast.h"
#include "reference.h"
#include "split.h"
#include "streams.h"

typedef struct dl_player {
    const dl_layout *L;
    dl_params P;
    unsigned long seed;
    int exact;       /* the plain stream */
    gsl_rng *rng;    /* exact stream */
    dl_streams *S;   /* default stream */
    dl_round *R;     /* the lockstep engine; holds the round's final state when engine_state */
    dl_fast *F;      /* schedule-free evaluator, NULL where unsupported or exact */
    dl_split *X;     /* deadlocked rounds replayed component by component, NULL where the
                        layout's components are not copies of one another (split.h) */
    dl_ref *ref;     /* --semantics reference: every round is decided by its rules (reference.h);
                        default stream only, no engine state */

    /* outcome of the last round */
    int status;            /* DL_COMPLETED or DL_DEADLOCK */
    int engine_state;      /* R holds the round (steps, deadlock event, cycle are known) */
    long steps;            /* lockstep steps (steps of the last, counting from 1), -1 if unknown */
    long events, invocations, syncs, skips, mismatches;
    long deadlock_event;   /* -1 if completed */
    int corrupt;           /* completed, with two collectives matched (matching by order) */
} dl_player;

dl_player *dl_player_new(const dl_layout *L, const dl_params *P, const gsl_rng_type *type,
                         unsigned long seed, int exact);
void dl_player_free(dl_player *pl);

/* Plays round `round`.  detail: the caller needs the engine's state (steps,
 * the verify hook set on pl->R, a sink): the round runs in the engine.
 * sink may be NULL.  Returns DL_COMPLETED or DL_DEADLOCK. */
int dl_player_round(dl_player *pl, long round, int detail, const dl_sink *sink);

/* From now on every round is decided by the reference's rules
 * (--semantics reference, reference.h), from the default stream, with the
 * counts of that round and no engine state (detail and sink are ignored:
 * callers that need them refuse this semantics).  Not for the exact stream. */
void dl_player_use_reference(dl_player *pl, int sem); /* DL_SEM_REFERENCE[_NODROP] */

/* After dl_player_round(pl, r, 1, sink) returned DL_DEADLOCK: the rest of
 * every GPU's plan in the same stream (dl_round_finish_plan), to sink. */
void dl_player_finish_plan(dl_player *pl, const dl_sink *sink);

#endif
