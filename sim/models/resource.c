/* resource.c: resource depletion (paper 001, Sec. 2.3 case 2), and the
 * machine with K >= 2 slots.
 *
 * What executes: the first K parts of each GPU's FIFO (config "slots"),
 * admitted in invocation order.  Syncs combine with it when sync_prob > 0.
 * With K = 1 this is the single-queue machine (single.c's rules).
 * What a blocked part waits for (K >= 2): an executing part needs ALL its
 * blocked counterparts (AND); a queued part needs ONE of the parts executing
 * on its GPU to finish (OR: any freed slot lets the queue move up); a not
 * yet invoked part on a suspended GPU needs ALL of them (AND: the sync
 * waits for the whole FIFO).
 * When a collective completes: when its part is among the first K of every
 * member's FIFO.
 * The verdict (K >= 2): a cycle can resolve, so the cycle rule over-counts.
 * The state is deadlocked iff the graph has a node that the standard AND-OR
 * reduction cannot release: start from the executing parts without blocked
 * counterparts (they can complete) and release, to a fixpoint, every AND node
 * whose successors are all released and every OR node with one released
 * successor.  An unreleased node can never be released, whatever the GPUs
 * that can still act do (its wait closes inside the unreleased set, and new
 * invocations queue behind it); and a state in which no GPU can act and work
 * remains has no releasable node, so a round that reaches quiescence
 * unfinished is a deadlock (docs/semantics.md; tests/test_andor.c checks it
 * against a brute force run to quiescence).
 * Incrementally: an unreleased set contains a cycle, and a cycle that the
 * state did not have before an event runs through an edge the event made, so
 * while the graph is acyclic the engine's dirty-GPU search (cycle.c) says
 * when to reduce.  Once a cycle that does not deadlock exists (R->cyclic),
 * edges that vanish (a completion) can deadlock it, so the reduction runs
 * after every event until a full search finds no cycle.
 * Evaluator: none (fast.c serves one slot and unlimited slots); every round
 * runs in the lockstep engine. */
#include "model.h"

#include <string.h>

#include "../engine.h"
#include "../util.h"

static void alloc(dl_round *R)
{
    size_t np = (size_t)R->L->nparts, ng = (size_t)R->L->ngpus;
    R->need = dl_xmalloc((np ? np : 1) * sizeof(int));
    R->anyrel = dl_xmalloc(ng ? ng : 1);
    R->nrel = dl_xmalloc((ng ? ng : 1) * sizeof(int));
}

/* Is the blocked part q released, given the GPUs' flags so far?  Queued:
 * one part executing on its GPU is (OR); not invoked on a suspended GPU:
 * all of them are (AND). */
static int released(const dl_round *R, int q)
{
    int j = R->L->part_gpu[q];
    if (R->state[q] == DL_QUEUED)
        return R->anyrel[j];
    return R->nrel[j] == R->nexec_gpu[j];
}

/* Can the executing part p complete, given the flags so far: are all its
 * blocked counterparts released? */
static int can_complete(const dl_round *R, int p)
{
    const dl_layout *L = R->L;
    int c = L->part_coll[p];
    for (int q = L->part_off[c]; q < L->part_off[c + 1]; q++)
        if (q != p && dl_part_blocked(R, q) && !released(R, q))
            return 0;
    return 1;
}

/* The reduction, to a fixpoint over the executing parts (at most K per GPU,
 * so a sweep is cheap however long the queues are; a release can only
 * release more, so sweeps repeat until one releases nothing).  need[p] is
 * 1 while p is unreleased.  Returns an unreleased executing part, or -1 if
 * every node is released. */
static int reduce(dl_round *R)
{
    const dl_layout *L = R->L;
    memset(R->anyrel, 0, (size_t)L->ngpus);
    memset(R->nrel, 0, (size_t)L->ngpus * sizeof(int));
    for (int j = 0; j < L->ngpus; j++)
        for (int p = R->head[j]; p >= 0 && R->state[p] == DL_EXECUTING; p = R->next[p])
            R->need[p] = 1;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int j = 0; j < L->ngpus; j++)
            for (int p = R->head[j]; p >= 0 && R->state[p] == DL_EXECUTING; p = R->next[p])
                if (R->need[p] && can_complete(R, p)) {
                    R->need[p] = 0;
                    R->nrel[j]++;
                    R->anyrel[j] = 1;
                    changed = 1;
                }
    }
    for (int j = 0; j < L->ngpus; j++)
        for (int p = R->head[j]; p >= 0 && R->state[p] == DL_EXECUTING; p = R->next[p])
            if (R->need[p])
                return p;
    return -1;
}

/* Is blocked part q unreleased by the last reduction? */
int dl_andor_stuck(const dl_round *R, int q)
{
    return !released(R, q);
}

static void clear_dirty(dl_round *R)
{
    for (int k = 0; k < R->ndirty; k++)
        R->is_dirty[R->dirty[k]] = 0;
    R->ndirty = 0;
}

/* The verdict with K >= 2 slots. */
static int and_or_rule(dl_round *R)
{
    if (!R->need)
        alloc(R);
    if (!R->cyclic) {
        if (!R->ndirty || !dl_cycle_check(R))
            return 0;
    }
    clear_dirty(R);
    int p = reduce(R);
    if (p >= 0) {
        dl_cycle_in_stuck(R, R->L->part_gpu[p]);
        return 1;
    }
    /* No deadlock: is there still a cycle (which a later completion could
     * close into a deadlock)?  A search from every GPU that one can enter. */
    for (int i = 0; i < R->L->ngpus; i++)
        if (R->suspended[i] || R->first_queued[i] >= 0) {
            R->is_dirty[i] = 1;
            R->dirty[R->ndirty++] = i;
        }
    R->cyclic = R->ndirty ? dl_cycle_check(R) : 0;
    R->ncycle = 0;
    return 0;
}

const dl_rules dl_rules_k_slots = {
    .name = "K >= 2 slots",
    .verdict = and_or_rule,
    .evaluator = DL_EVAL_NONE,
};

const dl_model dl_model_resource = {
    .name = "resource",
    .legacy = 0,
    .summary = "K execution slots per GPU (key \"slots\"), FIFO admission, optional syncs",
    .slots = -1,
    .syncs = 1,
};
