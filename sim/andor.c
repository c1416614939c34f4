/* andor.c: the exact deadlock verdict with K >= 2 execution slots.
 *
 * With K >= 2 the dependency graph is an AND-OR graph: an executing part
 * needs ALL its blocked counterparts (AND), a queued part needs ONE of the
 * parts executing on its GPU to finish (OR: any freed slot lets the queue
 * move), a not yet invoked part on a suspended GPU needs ALL of them (AND:
 * the sync waits for the whole FIFO).  A cycle can then resolve, so the
 * cycle rule of cycle.c over-counts.  The state is deadlocked iff the graph
 * has a node that the standard reduction cannot release: start from the
 * executing parts without blocked counterparts (they can complete) and
 * release, to a fixpoint, every AND node whose successors are all released
 * and every OR node with one released successor.  An unreleased node can
 * never be released, whatever the GPUs that can still act do (its wait
 * closes inside the unreleased set, and new invocations queue behind it);
 * and a state in which no GPU can act and work remains has no releasable
 * node, so a round that reaches quiescence unfinished is a deadlock
 * (docs/semantics.md).  With one slot an OR node has one successor and with
 * unlimited slots there is none, so the reduction is the cycle rule there;
 * the engine keeps the cheaper cycle.c for those.
 *
 * Incrementally: an unreleased set contains a cycle, and a cycle that the
 * state did not have before an event runs through an edge the event made,
 * so while the graph is acyclic the engine's dirty-GPU search (cycle.c)
 * says when to reduce.  Once a cycle that does not deadlock exists
 * (R->cyclic), edges that vanish (a completion) can deadlock it, so the
 * reduction runs after every event until a full search finds no cycle. */
#include "engine.h"

#include <string.h>

#include "util.h"

void dl_andor_alloc(dl_round *R)
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

int dl_andor_check(dl_round *R)
{
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
