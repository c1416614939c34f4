/* fast.h: the schedule-free evaluator: a round's verdict from the GPUs'
 * action sequences alone, for the single-queue model, the sync model and the
 * resource model with one slot (with or without syncs).
 *
 * Why the schedule does not matter there.  With the default stream
 * (streams.h) every GPU draws its actions from its own generator, so its
 * sequence of actions (sync, or invoke the k-th remaining candidate) is fixed
 * by (seed, round, gpu) whatever the other GPUs do.  Given the sequences,
 * the round is a system of processes in which nothing that can happen is
 * ever prevented by something else happening first: an invocation never
 * blocks; a collective whose parts all execute stays completable until it
 * completes (with one slot a part leaves the head of its FIFO only by
 * completing; with unlimited slots parts never stop executing); and a
 * suspended GPU's FIFO only shrinks, so once empty it stays empty until the
 * GPU resumes.  In such a system every maximal schedule reaches the same
 * final state.  With K = 1 and with unlimited slots a cycle of the dependency
 * graph never resolves and a state where no GPU can act has one
 * (docs/semantics.md), so the lockstep round deadlocks exactly when the GPUs
 * cannot all finish their sequences in ANY schedule, e.g. this one: run each
 * GPU as far as it can go, then one it released, and so on.
 *
 * Cost: a few array operations per invocation, no per-event random draw
 * (only at the rare syncs and skips), and runs of plain invocations between
 * them go through a tight loop.  It gives the verdict and, for completed
 * rounds, the same event counts as the lockstep engine on the same streams
 * (every action of every GPU is taken either way); it cannot give steps, the
 * deadlock's event or its cycle, for which the caller reruns the round in
 * the lockstep engine with the same streams (play.c).  Equivalence with the
 * engine is tested round by round (tests/test_fast.c). */
#ifndef DL_FAST_H
#define DL_FAST_H

#include <stdint.h>

typedef struct dl_fast_group dl_fast_group;

#include "engine.h"
#include "streams.h"

typedef struct dl_fast {
    const dl_layout *L;
    dl_params P;
    int *cnt;      /* [ncolls] -(parts) + parts executing; 0 = complete */
    int *negsize;  /* [ncolls] -(parts), to reset cnt */
    int *pc;       /* [nparts] the planned orders' collectives (L->plan without members) */
    int *skipped;  /* [nparts] per GPU (its plan's range): plan indices of the
                      skipped candidates not yet invoked, in order */
    int *fifo;     /* [nparts] per GPU: its FIFO (one slot) */
    int *pos;      /* [ngpus] plan entries [0, pos) are invoked or skipped */
    int *nskip;    /* [ngpus] */
    int *fh, *ft;  /* [ngpus] FIFO head and tail (one slot) */
    uint8_t *waiting; /* [ngpus] suspended by a sync */
    /* unlimited slots: completions counted per group; a suspended GPU waits
     * for thresholds on its groups (fast.c) */
    struct dl_fast_group { int done, min; } *gs; /* [ngroups] complete
                      collectives, smallest threshold of a waiter */
    int *ghead;    /* [ngroups] first waiter node, -1 */
    int *node_gpu, *node_group, *node_th, *nnext; /* [group members] */
    int **node_pos; /* [group members] plan positions of the group's
                       collectives on that member, increasing */
    int *posbuf;   /* [nparts] storage of node_pos */
    int *gpu_node_off, *gpu_node; /* a GPU's nodes */
    int *pend;     /* [ngpus] groups a suspended GPU still waits for */
    int *ready, nready; /* GPUs that can act */
    int *work;     /* [ncolls] completion worklist (one slot) */

    /* outcome */
    int status; /* DL_COMPLETED or DL_DEADLOCK */
    int ndone;
    long events, invocations, syncs, skips;
} dl_fast;

/* Can the evaluator decide rounds of these parameters?  Slots 0 or 1. */
int dl_fast_supported(const dl_params *P);

/* NULL if not supported. */
dl_fast *dl_fast_new(const dl_layout *L, const dl_params *P);
void dl_fast_free(dl_fast *F);

/* Decides a round from the streams (seeded by the caller with
 * dl_streams_seed): DL_COMPLETED or DL_DEADLOCK. */
int dl_fast_run(dl_fast *F, dl_streams *S);

#endif
