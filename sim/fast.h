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
 * How it is cheap.  First every GPU's action sequence is drawn into a
 * script: runs of plain invocations (the head of the plan, no draw) as one
 * entry, and the rare syncs and skips as one entry each, so drawing costs
 * O(syncs + skips), not O(invocations).  Then:
 *
 *   one slot     the layout splits into independent components (GPUs linked
 *                by groups; a 3D layout's pipeline stages); a component in
 *                which no GPU skips follows the planned, consistent orders and
 *                completes; the others are run part by part (a few array
 *                operations per invocation);
 *   unlimited    only the syncs matter: a GPU jumps from sync to sync, and at
 *                a sync waits until, in each of its groups, the number of
 *                complete collectives reaches the number it has invoked;
 *                those numbers come in closed form from the planned order
 *                and the few skipped collectives, so a round costs
 *                O(GPUs + syncs + skips) times the group sizes.
 *
 * It gives the verdict, which components deadlock, and, for completed
 * rounds, the same event, invocation, sync and skip counts as the lockstep
 * engine on the same streams (every action of every GPU is taken either
 * way); it cannot give steps, the deadlock's event or its cycle, for which
 * the caller reruns the round in the lockstep engine with the same streams
 * (play.c; component by component where they are copies, split.h).
 * Equivalence with the engine is tested round by round (tests/test_fast.c). */
#ifndef DL_FAST_H
#define DL_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "streams.h"

typedef struct dl_fast {
    const dl_layout *L;
    dl_params P;
    int eval; /* DL_EVAL_ONE_SLOT or DL_EVAL_UNLIMITED: the model's evaluator */
    int *pc; /* [nparts] the planned orders' collectives (L->plan without members) */

    /* unlimited slots: nodes, one per (group, member); group g's are
     * gnode_off[g] + member index, GPU i's are gpu_node[gpu_node_off[i] ...]
     * in group order */
    int *gnode_off, *node_gpu, *node_group;
    int *gpu_node_off, *gpu_node, *gpu_n; /* gpu_n: like gpu_node, the group's collectives */

    /* scripts of the round: GPU i's entries are ops[op_off[i] .. op_off[i+1]) */
    int *ops;
    size_t nops, cap_ops, *op_off, *cur; /* cur: next entry of each GPU */
    uint8_t *skipper; /* [ngpus] the GPU skips at least once this round */

    /* state of a GPU: plan entries [0, pos) are invoked or skipped; the
     * skipped ones not yet invoked are skipped[plan_off[i] ...], nskip of them */
    int *pos, *nskip, *skipped;
    uint8_t *waiting; /* suspended by a sync */
    int *ready, nready; /* GPUs that can act */

    /* unlimited slots */
    int *pre;     /* [nodes] the group's collectives among the GPU's plan entries [0, pos) */
    int *th;      /* [nodes] of a waiting GPU: the complete collectives it waits for */
    int *done;    /* [ngroups] complete collectives */
    int *wmin;    /* [ngroups] smallest threshold of a waiting member not reached yet
                     (INT_MAX: none; may lag below after releases, which costs a scan) */
    unsigned *stamp, epoch; /* [ncolls] to count distinct skipped collectives */

    /* one slot */
    int *cnt;      /* [ncolls] -(parts) + parts executing; 0 = complete */
    int *negsize;  /* [ncolls] -(parts), to reset cnt */
    int *fifo;     /* [nparts] per GPU: its FIFO */
    int *fh, *ft;  /* [ngpus] FIFO head and tail */
    int *work;     /* [ncolls] completion worklist */

    /* components: GPUs linked by shared groups; component k's GPUs are
     * comp_gpu[comp_gpu_off[k] ...] in increasing order, its groups likewise */
    int ncomps;
    int *comp_of, *comp_gpu_off, *comp_gpu, *comp_group_off, *comp_group;
    uint8_t *comp_dead; /* [ncomps] of the last round: the component deadlocks */

    /* outcome */
    int status; /* DL_COMPLETED or DL_DEADLOCK */
    int ndone;  /* complete collectives (all of them when completed) */
    long events, invocations, syncs, skips; /* of the whole scripts */
} dl_fast;

/* Can the evaluator decide rounds of these parameters?  Slots 0 or 1. */
int dl_fast_supported(const dl_params *P);

/* NULL if not supported (model, or a planned order it does not know). */
dl_fast *dl_fast_new(const dl_layout *L, const dl_params *P);
void dl_fast_free(dl_fast *F);

/* Decides a round from the streams (seeded by the caller with
 * dl_streams_seed): DL_COMPLETED or DL_DEADLOCK. */
int dl_fast_run(dl_fast *F, dl_streams *S);

/* The number of the collectives of GPU i's k-th group (in group order)
 * among the first pos entries of its planned order, in closed form
 * (exposed for the tests, which check it against the plan). */
int dl_fast_plan_count(const dl_fast *F, int i, int k, int pos);

#endif
