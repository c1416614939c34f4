/* cycle.c: the incremental deadlock detector.
 *
 * It works on the GPU-level form of the dependency graph: GPU i -> GPU j when
 * a part executing on i has a blocked counterpart on j.  Every blocked part
 * on j waits for every part executing on j, so a cycle of GPUs is a cycle of
 * parts and back (docs/semantics.md).  Before an event the graph
 * had no cycle (a round stops at its first), so a new cycle runs through an
 * edge the event added, and both ends of such an edge were marked dirty: a
 * depth-first search from the dirty GPUs finds it (from those that an edge
 * can enter: may_close_cycle).  Edges are not stored;
 * they are enumerated from the FIFOs, whose executing parts form a prefix. */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>

/* DFS frame iterator: the next GPU reachable from frame f, or -1.  Frame
 * state: stack_part = executing part being scanned, stack_m = next member
 * index of its collective to look at. */
static inline __attribute__((always_inline)) int next_neighbour_in(dl_round *R, int f,
                                                                    int stuck)
{
    const dl_layout *L = R->L;
    int p = R->stack_part[f];
    while (p >= 0 && R->state[p] == DL_EXECUTING) {
        int c = L->part_coll[p], off = L->part_off[c], n = L->part_off[c + 1] - off;
        if (stuck && R->need[p] == 0)
            R->stack_m[f] = n; /* released by the reduction: no edge of the knot */
        while (R->stack_m[f] < n) {
            int q = off + R->stack_m[f]++;
            if (q != p && dl_part_blocked(R, q) && (!stuck || dl_andor_stuck(R, q)))
                return L->part_gpu[q];
        }
        p = R->stack_part[f] = R->next[p];
        R->stack_m[f] = 0;
    }
    return -1;
}

/* The whole graph (the cycle rule), or only the nodes that the last AND-OR
 * reduction left unreleased (models/resource.c). */
static int next_neighbour(dl_round *R, int f, int stuck)
{
    return stuck ? next_neighbour_in(R, f, 1) : next_neighbour_in(R, f, 0);
}

static void push(dl_round *R, int *sp, int gpu)
{
    R->mark[gpu] = (int)R->epoch;
    R->stack_gpu[*sp] = gpu;
    R->stack_part[*sp] = R->head[gpu];
    R->stack_m[*sp] = 0;
    (*sp)++;
}

/* The cycle is the stack from the frame of `gpu` to the top, closed by the
 * top frame's current edge.  Each frame's edge leaves its GPU through the
 * part it is scanning (stack_m already advanced past the blocked member). */
static void record_cycle(dl_round *R, int sp, int gpu)
{
    int from = sp - 1;
    while (R->stack_gpu[from] != gpu)
        from--;
    R->ncycle = 0;
    for (int f = from; f < sp; f++) {
        int c = R->L->part_coll[R->stack_part[f]];
        int to = f + 1 < sp ? R->stack_gpu[f + 1] : gpu;
        R->cycle[R->ncycle++] = (dl_cycle_part){R->stack_gpu[f], c};
        R->cycle[R->ncycle++] = (dl_cycle_part){to, c};
    }
}

static int dfs(dl_round *R, int start, int stuck)
{
    const int grey = (int)R->epoch, black = (int)R->epoch + 1;
    int sp = 0;
    push(R, &sp, start);
    while (sp > 0) {
        int k = next_neighbour(R, sp - 1, stuck);
        if (k < 0) {
            R->mark[R->stack_gpu[--sp]] = black;
        } else if (R->mark[k] == grey) {
            record_cycle(R, sp, k);
            return 1;
        } else if (R->mark[k] != black) {
            push(R, &sp, k);
        }
    }
    return 0;
}

/* Can GPU i lie on a cycle?  Only if an edge enters it, i.e. it has a
 * blocked part: a queued one, or a not yet invoked one while it is
 * suspended.  A dirty GPU without one is skipped: the new edges at it start
 * there, and a cycle through them would have to come back into it.  This
 * spares the search after nearly every invocation of the sync model, where
 * edges enter suspended GPUs only. */
static int may_close_cycle(const dl_round *R, int i)
{
    return R->suspended[i] || R->first_queued[i] >= 0;
}

static void new_epoch(dl_round *R)
{
    if (R->epoch > 0x7ffffff0u) {
        for (int i = 0; i < R->L->ngpus; i++)
            R->mark[i] = 0;
        R->epoch = 0;
    }
    R->epoch += 2;
}

int dl_cycle_check(dl_round *R)
{
    new_epoch(R);
    int found = 0;
    for (int k = 0; k < R->ndirty; k++) {
        int s = R->dirty[k];
        R->is_dirty[s] = 0;
        if (!found && R->mark[s] != (int)R->epoch + 1 && may_close_cycle(R, s) && dfs(R, s, 0))
            found = 1;
    }
    R->ndirty = 0;
    return found;
}

/* Every unreleased executing part has an unreleased blocked counterpart,
 * and every unreleased blocked part on GPU j waits for an unreleased part
 * executing on j (an OR node waits for all of them, an AND node for at
 * least one), so in the unreleased subgraph every GPU reached has an edge
 * out, and a search from any of them closes a cycle. */
void dl_cycle_in_stuck(dl_round *R, int gpu)
{
    new_epoch(R);
    if (!dfs(R, gpu, 1)) {
        fprintf(stderr, "dlsim: internal error: an AND-OR deadlock without a cycle\n");
        abort();
    }
}
