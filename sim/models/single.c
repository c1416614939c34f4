/* single.c: the single-queue model (paper 001, Fig. 1(c)).
 *
 * What executes: one stream per GPU, so only the head of its FIFO (K = 1);
 * invoking never blocks the host.  No syncs (the resource model with K = 1
 * adds them to the same machine).
 * What a blocked part waits for: a queued part, for the head of its GPU's
 * FIFO to complete (one successor: an AND node); a not-yet-invoked part on a
 * suspended GPU (resource, K = 1, with syncs), for the whole FIFO.  An
 * executing part waits for all its blocked counterparts.
 * When a collective completes: when its part heads the FIFO of every member.
 * The verdict: every node waits for all its successors, so the state is
 * deadlocked iff the dependency graph has a cycle, and a cycle never
 * resolves: the incremental GPU-level search of cycle.c, from the GPUs where
 * the event made edges.
 * Evaluator: a part leaves the head only by completing, so the verdict does
 * not depend on the schedule; fast.c's one-slot evaluator decides rounds. */
#include "model.h"

#include "../engine.h"

static int cycle_rule(dl_round *R)
{
    return R->ndirty ? dl_cycle_check(R) : 0;
}

const dl_rules dl_rules_one_slot = {
    .name = "one slot",
    .verdict = cycle_rule,
    .evaluator = DL_EVAL_ONE_SLOT,
};

const dl_model dl_model_single = {
    .name = "single",
    .legacy = "Single",
    .summary = "one queue per GPU: only its head executes; no syncs",
    .slots = 1,
    .syncs = 0,
};
