/* engine.h: the state of one simulated round and the events that change it.
 *
 * The engine applies two events, invoke(gpu, coll) and sync(gpu), and after
 * each one decides, with the incremental detector (cycle.c), whether the
 * dependency graph has a cycle.  dl_round_run() drives a whole round in
 * lockstep from a random stream; `dlsim check` drives it from a trace.
 *
 * Semantics (see docs/semantics.md): a part is NOT_INVOKED,
 * QUEUED (invoked, waiting for an execution slot) or EXECUTING; a
 * collective completes when all its parts execute, and its parts vanish at
 * once (DONE).  Each GPU keeps its invoked, incomplete parts in a FIFO; the
 * first `slots` of it execute (all of it when slots == 0).  A sync on a GPU
 * with a non-empty FIFO suspends it until the FIFO is empty. */
#ifndef DL_ENGINE_H
#define DL_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "layout.h"
#include "models/model.h"

enum { DL_NOT_INVOKED = 0, DL_QUEUED = 1, DL_EXECUTING = 2, DL_DONE = 3 };
enum { DL_ACT_INVOKE = 0, DL_ACT_SYNC = 1 };
enum { DL_RUNNING = 0, DL_COMPLETED = 1, DL_DEADLOCK = 2, DL_CORRUPT = 3 };

struct dl_matching;

typedef struct dl_params {
    double disorder; /* probability of skipping each candidate but the last */
    double sync;     /* probability that a GPU's action is a sync (0 = never) */
    int slots;       /* execution slots per GPU, 0 = unlimited */
    /* how calls meet (matching.h): NULL = identity; else order, over these
     * communicators */
    const struct dl_matching *match;
} dl_params;

/* One (GPU, collective) pair of a deadlock cycle.  The pairs alternate: a part
 * executing on gpu, then the blocked part of the same collective on the next
 * GPU, which waits for an executing part of that GPU, and so on. */
typedef struct dl_cycle_part {
    int gpu, coll;
} dl_cycle_part;

/* Called for every event of a round, in global order. */
typedef struct dl_sink {
    void (*event)(void *ctx, long step, int gpu, int action, int coll, int skipped);
    void *ctx;
} dl_sink;

typedef struct dl_round {
    const dl_layout *L;
    dl_params P;
    const dl_rules *rules; /* the machine with P.slots slots: how the verdict is taken */

    /* per part */
    uint8_t *state; /* DL_NOT_INVOKED ... DL_DONE */
    int *prev, *next; /* links of the GPU FIFO, -1 terminated */

    /* per collective */
    int *nexec; /* parts executing */
    int ndone;  /* collectives complete */
    int nqueued, nsuspended; /* blocked parts can exist only if one is > 0 */

    /* per GPU */
    int *head, *tail;  /* FIFO of invoked, incomplete parts */
    int *first_queued; /* first part of the FIFO not executing, or -1 */
    int *nexec_gpu;    /* parts executing on the GPU */
    uint8_t *suspended;
    dl_plan_entry *rem; /* remaining planned list: rem[plan_off[i] + rem_head[i] ...] */
    int *rem_head, *rem_len;

    /* incremental cycle detector (cycle.c) */
    int *dirty, ndirty; /* GPUs where new edges start or end */
    uint8_t *is_dirty;
    int *mark;          /* DFS colour per GPU, relative to epoch */
    unsigned epoch;
    int *stack_gpu, *stack_part, *stack_m; /* DFS frames */
    int *work;          /* completion worklist */

    /* exact AND-OR verdict with slots >= 2 (models/resource.c; allocated on
     * first use) */
    int cyclic;         /* the graph has a cycle that did not deadlock */
    int *need;          /* per executing part: 1 while the reduction has not released it */
    uint8_t *anyrel;    /* per GPU: one of its executing parts is released */
    int *nrel;          /* per GPU: how many are */

    /* matching by order (P.match): the engine's parts are call slots */
    int *ncalls;        /* per (communicator, member): calls made so far */
    int *label;         /* per slot: the collective its first call invoked, -1; -2 mixed */
    int *called;        /* per part of a slot: the collective that call invoked, -1 */
    long nmixed;        /* slots filled by two different collectives */
    int mix_slot, mix_gpu[2], mix_coll[2]; /* the first such pair */

    /* optional check after every event (--verify, tests): called with the
     * detector's verdict (1 = cycle); a nonzero return counts a mismatch */
    int (*verify)(const struct dl_round *R, int verdict, void *ctx);
    void *verify_ctx;
    long mismatches;

    /* outcome */
    int status; /* DL_RUNNING, DL_COMPLETED, DL_DEADLOCK */
    long step, events, invocations, syncs, skips;
    long deadlock_step, deadlock_event;
    int ncycle;
    dl_cycle_part *cycle; /* [2*ngpus] */
} dl_round;

dl_round *dl_round_new(const dl_layout *L, const dl_params *P);
void dl_round_free(dl_round *R);
void dl_round_reset(dl_round *R);

/* Events.  Both return the status after the event (and its cascade of
 * completions).  They assume a legal event: use dl_round_can_invoke /
 * dl_round_can_act first when the event comes from outside (a trace). */
int dl_round_invoke(dl_round *R, int gpu, int coll);
int dl_round_sync(dl_round *R, int gpu);

/* 0 if gpu may invoke coll now, else -1 with the reason in err. */
int dl_round_can_invoke(const dl_round *R, int gpu, int coll, char *err, size_t errlen);
int dl_round_can_act(const dl_round *R, int gpu, char *err, size_t errlen);
/* A sync is legal on any GPU that is not suspended, also after its last
 * invocation and after every collective completed (a no-op there). */
int dl_round_can_sync(const dl_round *R, int gpu, char *err, size_t errlen);

/* Is this part blocked (a node with edges into it)?  QUEUED, or NOT_INVOKED
 * on a suspended GPU. */
static inline int dl_part_blocked(const dl_round *R, int part)
{
    return R->state[part] == DL_QUEUED ||
           (R->state[part] == DL_NOT_INVOKED && R->suspended[R->L->part_gpu[part]]);
}

/* The round's verdict: DL_DEADLOCK; DL_CORRUPT, completed but with a slot
 * that two different collectives filled (matching by order); DL_COMPLETED;
 * or DL_RUNNING. */
static inline int dl_round_verdict(const dl_round *R)
{
    return R->status == DL_COMPLETED && R->nmixed ? DL_CORRUPT : R->status;
}

/* Runs a round in lockstep with the given random stream.  sink may be NULL.
 * Returns DL_COMPLETED or DL_DEADLOCK; a stall without a cycle (a bug) aborts
 * the program with a message. */
int dl_round_run(dl_round *R, gsl_rng *rng, const dl_sink *sink);

/* The same from the current state and step (dl_round_run = reset + drive). */
int dl_round_drive(dl_round *R, gsl_rng *rng, const dl_sink *sink);

/* The same two with the default stream: every GPU draws its actions from its
 * own generator, with geometric gaps between syncs and between skips
 * (streams.h; seed it with dl_streams_seed first).  The plain functions above
 * are the "exact" stream (--exact-stream). */
struct dl_streams;
int dl_round_run_streams(dl_round *R, struct dl_streams *S, const dl_sink *sink);
int dl_round_drive_streams(dl_round *R, struct dl_streams *S, const dl_sink *sink);

/* After dl_round_run/drive (or the _streams forms) returned DL_DEADLOCK: the
 * rest of every GPU's plan from the same stream, as on a library that cannot
 * deadlock (no suspension, no verdict), one action per GPU per step, to the
 * sink only; R's state and counts stay those of the deadlock.  Used by
 * `dlsim gen --full` to write traces that a GPU replay can run to the end. */
void dl_round_finish_plan(dl_round *R, gsl_rng *rng, const dl_sink *sink);
void dl_round_finish_plan_streams(dl_round *R, struct dl_streams *S, const dl_sink *sink);

/* Cycle detector (cycle.c): checks the dirty GPUs; on a cycle fills
 * R->cycle/ncycle and returns 1. */
int dl_cycle_check(dl_round *R);

/* For the AND-OR verdict (models/resource.c): is blocked part q left
 * unreleased by the last reduction?  And the search that reports a cycle of
 * unreleased nodes from a GPU that has one (cycle.c). */
int dl_andor_stuck(const dl_round *R, int q);
void dl_cycle_in_stuck(dl_round *R, int gpu);

#endif
