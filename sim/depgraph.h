/* depgraph.h: the spec's part-level dependency graph, built with igraph.
 *
 * This is the slow, plain construction the incremental detector (cycle.c)
 * is checked against (`--verify`, tests), and what `--dot` / `--graphml`
 * export at a deadlock.  Nodes are collective parts: every invoked,
 * incomplete part, and, on a suspended GPU, every not-yet-invoked part of a
 * collective that some GPU has invoked.  Edges:
 *   1. an executing part X_i -> each blocked counterpart X_j (j != i);
 *   2. a blocked part Y_j -> every executing part on GPU j.
 * Blocked = QUEUED, or NOT_INVOKED on a suspended GPU (dl_part_blocked).
 * igraph is not thread-safe: every function here takes one global lock. */
#ifndef DL_DEPGRAPH_H
#define DL_DEPGRAPH_H

#include <stdio.h>

#include "engine.h"

typedef struct dl_depgraph dl_depgraph;

dl_depgraph *dl_depgraph_build(const dl_round *R);
void dl_depgraph_free(dl_depgraph *D);

int dl_depgraph_nodes(const dl_depgraph *D);
int dl_depgraph_edges(const dl_depgraph *D);

/* 1 if the graph has a cycle (decided with igraph_is_dag), else 0. */
int dl_depgraph_has_cycle(const dl_depgraph *D);

/* The verdict: with AND waits only (one slot, unlimited slots) a cycle;
 * with K >= 2 slots a queued part waits for ONE executing part of its GPU
 * (an OR node), and the state is deadlocked iff the AND-OR reduction leaves
 * a node it cannot release.  dl_depgraph_stuck: how many it leaves. */
int dl_depgraph_deadlocked(const dl_depgraph *D);
int dl_depgraph_stuck(const dl_depgraph *D);

/* Extracts one cycle of stuck nodes (any cycle with AND waits only): writes up to max (gpu, coll) pairs in cycle order and returns their
 * count, or 0 if the graph is acyclic. */
int dl_depgraph_cycle(const dl_depgraph *D, dl_cycle_part *out, int max);

/* Export (Graphviz DOT or GraphML), nodes labelled "X_i" (collective X on
 * GPU i) with attributes gpu, coll, state, and the cycle's nodes marked.
 * 0 on success, -1 on an I/O error. */
int dl_depgraph_write_dot(const dl_depgraph *D, FILE *f);
int dl_depgraph_write_graphml(const dl_depgraph *D, FILE *f);

/* Builds, decides (dl_depgraph_deadlocked), frees: 1 = deadlock, 0 = none. */
int dl_depgraph_verdict(const dl_round *R);

#endif
