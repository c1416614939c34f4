/* sync.c: the synchronization model (paper 001, Fig. 1(d) and Fig. 2).
 *
 * What executes: everything invoked (unlimited resources, K = 0); a part
 * executes from its invocation until its collective completes.
 * What a blocked part waits for: the only blocked parts are the not yet
 * invoked parts of a GPU suspended by a sync, which wait for every part the
 * GPU had invoked (the sync returns when its FIFO is empty).  An executing
 * part waits for all its blocked counterparts.
 * When a collective completes: when every member has invoked it.
 * The verdict: every node waits for all its successors, so the state is
 * deadlocked iff the dependency graph has a cycle (cycle.c; edges enter
 * suspended GPUs only, so most invocations need no search).
 * Evaluator: an invocation never waits, so the verdict does not depend on the
 * schedule; fast.c's unlimited evaluator jumps a GPU from sync to sync. */
#include "model.h"

#include "../engine.h"

static int cycle_rule(dl_round *R)
{
    return R->ndirty ? dl_cycle_check(R) : 0;
}

const dl_rules dl_rules_unlimited = {
    .name = "unlimited slots",
    .verdict = cycle_rule,
    .evaluator = DL_EVAL_UNLIMITED,
};

const dl_model dl_model_sync = {
    .name = "sync",
    .legacy = "StreamWithSync",
    .summary = "unlimited resources, GPUs issue syncs with probability sync_prob",
    .slots = 0,
    .syncs = 1,
};
