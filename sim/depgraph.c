/* depgraph.c: the spec's part-level dependency graph, built plainly with
 * igraph from the round state alone.
 *
 * This is the independent check of the incremental detector (cycle.c), so it
 * reads nothing of the engine's own bookkeeping (FIFO links, counters, DFS
 * data): only R->state, R->suspended and the layout.  Each node remembers its
 * part, GPU, collective and state at build time, so a graph can be exported
 * after the round moved on.
 *
 * igraph 0.10 is built without thread support (IGRAPH_THREAD_SAFE 0): its
 * error handler, FINALLY stack and attribute table are process globals.
 * Studies run rounds on several threads, so every igraph call here runs
 * under one mutex; the public functions take it, the static ones assume it. */
#include "depgraph.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <igraph.h>

#include "util.h"

struct dl_depgraph {
    igraph_t g;
    igraph_t gs;   /* the edges between stuck nodes only, for the cycle */
    int n;         /* nodes */
    int nstuck;    /* nodes the AND-OR reduction cannot release */
    uint8_t *stuck; /* [n] */
    int *part;     /* [n] part of each node */
    int *gpu;      /* [n] its GPU */
    int *coll;     /* [n] its collective */
    uint8_t *st;   /* [n] its state (DL_NOT_INVOKED, DL_QUEUED, DL_EXECUTING) */
};

static pthread_mutex_t igraph_lock = PTHREAD_MUTEX_INITIALIZER;
static int attributes_on;

/* Takes the lock and, the first time, installs the C attribute handler.
 * It must be in place before the first graph is created: igraph destroys a
 * graph through the handler that is current then, and a graph made without
 * one has no attribute record to destroy. */
static void lock(void)
{
    pthread_mutex_lock(&igraph_lock);
    if (!attributes_on) {
        igraph_set_attribute_table(&igraph_cattribute_table);
        attributes_on = 1;
    }
}

static void unlock(void)
{
    pthread_mutex_unlock(&igraph_lock);
}

/* ---- construction ---- */

/* Does collective c have a part invoked and not complete?  Only then can its
 * not-invoked parts on suspended GPUs have an incoming edge. */
static int coll_active(const dl_round *R, int c)
{
    const dl_layout *L = R->L;
    for (int p = L->part_off[c]; p < L->part_off[c + 1]; p++)
        if (R->state[p] == DL_QUEUED || R->state[p] == DL_EXECUTING)
            return 1;
    return 0;
}

/* Numbers the nodes: node_of[part] is its node or -1. */
static void number_nodes(const dl_round *R, dl_depgraph *D, int *node_of)
{
    const dl_layout *L = R->L;
    D->n = 0;
    for (int c = 0; c < L->ncolls; c++) {
        int active = coll_active(R, c);
        for (int p = L->part_off[c]; p < L->part_off[c + 1]; p++) {
            int s = R->state[p];
            int node = s == DL_QUEUED || s == DL_EXECUTING ||
                       (active && s == DL_NOT_INVOKED && R->suspended[L->part_gpu[p]]);
            node_of[p] = node ? D->n : -1;
            if (!node)
                continue;
            D->part[D->n] = p;
            D->gpu[D->n] = L->part_gpu[p];
            D->coll[D->n] = c;
            D->st[D->n] = (uint8_t)s;
            D->n++;
        }
    }
}

/* A growable edge list of plain memory, filled outside the lock. */
typedef struct edge_list {
    igraph_integer_t *v; /* from, to, from, to, ... */
    size_t len, cap;
} edge_list;

static void add_edge(edge_list *E, int from, int to)
{
    if (E->len + 2 > E->cap) {
        E->cap = E->cap ? 2 * E->cap : 64;
        E->v = dl_xrealloc(E->v, E->cap * sizeof *E->v);
    }
    E->v[E->len++] = from;
    E->v[E->len++] = to;
}

/* Lists the executing nodes of each GPU (CSR: off[i] .. off[i+1] in node),
 * for rule 2. */
static void executing_by_gpu(const dl_depgraph *D, int ngpus, int *off, int *node)
{
    for (int v = 0; v < D->n; v++)
        if (D->st[v] == DL_EXECUTING)
            off[D->gpu[v] + 1]++;
    for (int i = 0; i < ngpus; i++)
        off[i + 1] += off[i];
    int *fill = dl_xcalloc((size_t)ngpus, sizeof(int));
    for (int v = 0; v < D->n; v++)
        if (D->st[v] == DL_EXECUTING)
            node[off[D->gpu[v]] + fill[D->gpu[v]]++] = v;
    free(fill);
}

/* The edges of the spec's two rules.  A node that is not executing is
 * blocked by construction (QUEUED, or NOT_INVOKED on a suspended GPU). */
static void collect_edges(const dl_round *R, const dl_depgraph *D, const int *node_of,
                          edge_list *E)
{
    const dl_layout *L = R->L;
    int *exec_off = dl_xcalloc((size_t)L->ngpus + 1, sizeof(int));
    int *exec_node = dl_xmalloc((size_t)(D->n ? D->n : 1) * sizeof(int));
    executing_by_gpu(D, L->ngpus, exec_off, exec_node);
    for (int v = 0; v < D->n; v++) {
        int c = D->coll[v];
        if (D->st[v] == DL_EXECUTING) {
            /* 1. executing X_i -> each blocked counterpart X_j */
            for (int q = L->part_off[c]; q < L->part_off[c + 1]; q++)
                if (q != D->part[v] && node_of[q] >= 0 && dl_part_blocked(R, q))
                    add_edge(E, v, node_of[q]);
        } else {
            /* 2. blocked Y_j -> every executing part on GPU j */
            int j = D->gpu[v];
            for (int k = exec_off[j]; k < exec_off[j + 1]; k++)
                add_edge(E, v, exec_node[k]);
        }
    }
    free(exec_off);
    free(exec_node);
}

/* The AND-OR reduction, done plainly to a fixpoint: a queued node (OR)
 * waits for ONE of its successors (any freed slot of its GPU lets the queue
 * move), every other node (AND) for ALL of them.  A node is released when
 * its wait is met by released nodes; nodes left are stuck for ever.  With
 * one slot an OR node has a single successor and with unlimited slots there
 * is none, so there the stuck nodes are those that reach a cycle. */
static void reduce(dl_depgraph *D, const edge_list *E)
{
    int n = D->n;
    memset(D->stuck, 1, (size_t)(n ? n : 1));
    for (int changed = 1; changed;) {
        changed = 0;
        for (int v = 0; v < n; v++) {
            if (!D->stuck[v])
                continue;
            int or_node = D->st[v] == DL_QUEUED, any = 0, all = 1;
            for (size_t k = 0; k < E->len; k += 2)
                if (E->v[k] == v) {
                    int r = !D->stuck[E->v[k + 1]];
                    any |= r;
                    all &= r;
                }
            if (or_node ? any : all) {
                D->stuck[v] = 0;
                changed = 1;
            }
        }
    }
    D->nstuck = 0;
    for (int v = 0; v < n; v++)
        D->nstuck += D->stuck[v];
}

/* Everything but the igraph object, which needs the lock. */
static dl_depgraph *build_plain(const dl_round *R, edge_list *E)
{
    const dl_layout *L = R->L;
    dl_depgraph *D = dl_xcalloc(1, sizeof *D);
    size_t np = (size_t)(L->nparts ? L->nparts : 1);
    D->part = dl_xmalloc(np * sizeof(int));
    D->gpu = dl_xmalloc(np * sizeof(int));
    D->coll = dl_xmalloc(np * sizeof(int));
    D->st = dl_xmalloc(np);
    D->stuck = dl_xmalloc(np);
    int *node_of = dl_xmalloc(np * sizeof(int));
    number_nodes(R, D, node_of);
    collect_edges(R, D, node_of, E);
    reduce(D, E);
    free(node_of);
    return D;
}

/* Under the lock: the igraph object from the edge list, which it frees. */
static void build_graph(dl_depgraph *D, edge_list *E)
{
    igraph_vector_int_t view = {0};
    const igraph_vector_int_t *edges =
        igraph_vector_int_view(&view, E->v, (igraph_integer_t)E->len);
    igraph_create(&D->g, edges, D->n, IGRAPH_DIRECTED);
    size_t m = 0;
    for (size_t k = 0; k < E->len; k += 2)
        if (D->stuck[E->v[k]] && D->stuck[E->v[k + 1]]) {
            E->v[m++] = E->v[k];
            E->v[m++] = E->v[k + 1];
        }
    edges = igraph_vector_int_view(&view, E->v, (igraph_integer_t)m);
    igraph_create(&D->gs, edges, D->n, IGRAPH_DIRECTED);
    free(E->v);
}

static void destroy(dl_depgraph *D)
{
    igraph_destroy(&D->g);
    igraph_destroy(&D->gs);
    free(D->stuck);
    free(D->part);
    free(D->gpu);
    free(D->coll);
    free(D->st);
    free(D);
}

static int has_cycle(const dl_depgraph *D)
{
    igraph_bool_t dag;
    igraph_is_dag(&D->g, &dag);
    return !dag;
}

/* Has a node an OR wait with a choice (a queued part on a GPU that runs two
 * parts or more)?  Only then can a cycle resolve (K >= 2 slots). */
static int has_choice(const dl_depgraph *D)
{
    igraph_vector_int_t nbrs;
    igraph_vector_int_init(&nbrs, 0);
    int choice = 0;
    for (int v = 0; v < D->n && !choice; v++)
        if (D->st[v] == DL_QUEUED) {
            igraph_neighbors(&D->g, &nbrs, v, IGRAPH_OUT);
            choice = igraph_vector_int_size(&nbrs) > 1;
        }
    igraph_vector_int_destroy(&nbrs);
    return choice;
}

/* The verdict: with AND waits only, a cycle (igraph_is_dag); with an OR
 * choice, a node that the reduction cannot release. */
static int deadlocked(const dl_depgraph *D)
{
    return has_choice(D) ? D->nstuck > 0 : has_cycle(D);
}

/* ---- cycle extraction ---- */

/* Writes the nodes of one simple cycle of stuck nodes into cyc (capacity
 * D->n) and returns its length, 0 if none (with AND waits only, every node
 * on a cycle is stuck, so this is any cycle of the graph).  Every edge joins an executing and a blocked
 * node, so a strongly connected component with more than one node holds an
 * executing node s; s has a successor v in the component, and a shortest
 * path v ~> s stays inside it and repeats no node.  The cycle is s, v, ...,
 * starting at an executing part as the engine reports it.  Deterministic:
 * s is the lowest such node, v its lowest successor in the component. */
static int find_cycle(const dl_depgraph *D, int *cyc)
{
    igraph_vector_int_t memb, csize, nbrs, path;
    igraph_integer_t ncomp;
    igraph_vector_int_init(&memb, 0);
    igraph_vector_int_init(&csize, 0);
    igraph_vector_int_init(&nbrs, 0);
    igraph_vector_int_init(&path, 0);
    igraph_connected_components(&D->gs, &memb, &csize, &ncomp, IGRAPH_STRONG);

    int len = 0;
    for (int s = 0; s < D->n && !len; s++) {
        igraph_integer_t comp = VECTOR(memb)[s];
        if (D->st[s] != DL_EXECUTING || VECTOR(csize)[comp] < 2)
            continue;
        igraph_neighbors(&D->gs, &nbrs, s, IGRAPH_OUT);
        for (igraph_integer_t k = 0; k < igraph_vector_int_size(&nbrs); k++) {
            igraph_integer_t v = VECTOR(nbrs)[k];
            if (VECTOR(memb)[v] != comp)
                continue;
            igraph_get_shortest_path(&D->gs, &path, NULL, v, s, IGRAPH_OUT);
            /* path is v ... s: the cycle is s followed by all but its last */
            cyc[len++] = s;
            for (igraph_integer_t t = 0; t + 1 < igraph_vector_int_size(&path); t++)
                cyc[len++] = (int)VECTOR(path)[t];
            break;
        }
    }
    igraph_vector_int_destroy(&memb);
    igraph_vector_int_destroy(&csize);
    igraph_vector_int_destroy(&nbrs);
    igraph_vector_int_destroy(&path);
    return len;
}

/* ---- export ---- */

static const char *state_name(int s)
{
    return s == DL_EXECUTING ? "executing" : s == DL_QUEUED ? "queued" : "not-invoked";
}

/* A copy of the graph carrying the attributes, so that building for a
 * verdict (every event under --verify) never pays for strings. */
static void attributed_copy(const dl_depgraph *D, igraph_t *out)
{
    int *cyc = dl_xmalloc((size_t)(D->n ? D->n : 1) * sizeof(int));
    uint8_t *in_cycle = dl_xcalloc((size_t)(D->n ? D->n : 1), 1);
    int len = find_cycle(D, cyc);
    for (int k = 0; k < len; k++)
        in_cycle[cyc[k]] = 1;

    igraph_copy(out, &D->g);
    SETGAS(out, "name", "dependency graph");
    for (int v = 0; v < D->n; v++) {
        char label[48];
        snprintf(label, sizeof label, "c%d_%d", D->coll[v], D->gpu[v]);
        SETVAS(out, "label", v, label);
        SETVAN(out, "gpu", v, D->gpu[v]);
        SETVAN(out, "coll", v, D->coll[v]);
        SETVAS(out, "state", v, state_name(D->st[v]));
        SETVAN(out, "in_cycle", v, in_cycle[v]);
    }
    free(cyc);
    free(in_cycle);
}

/* Writes with igraph's writer; an I/O failure is reported as -1 instead of
 * igraph's default abort, so the handler is swapped for the call. */
static int write_with(const dl_depgraph *D, FILE *f, int graphml)
{
    igraph_t g;
    attributed_copy(D, &g);
    igraph_error_handler_t *old = igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_error_t rc = graphml ? igraph_write_graph_graphml(&g, f, 0)
                                : igraph_write_graph_dot(&g, f);
    igraph_set_error_handler(old);
    igraph_destroy(&g);
    if (rc != IGRAPH_SUCCESS || fflush(f) != 0 || ferror(f))
        return -1;
    return 0;
}

/* ---- public, locked ---- */

dl_depgraph *dl_depgraph_build(const dl_round *R)
{
    edge_list E = {0};
    dl_depgraph *D = build_plain(R, &E);
    lock();
    build_graph(D, &E);
    unlock();
    return D;
}

void dl_depgraph_free(dl_depgraph *D)
{
    if (!D)
        return;
    lock();
    destroy(D);
    unlock();
}

int dl_depgraph_nodes(const dl_depgraph *D)
{
    return D->n;
}

int dl_depgraph_edges(const dl_depgraph *D)
{
    lock();
    int m = (int)igraph_ecount(&D->g);
    unlock();
    return m;
}

int dl_depgraph_has_cycle(const dl_depgraph *D)
{
    lock();
    int r = has_cycle(D);
    unlock();
    return r;
}

int dl_depgraph_deadlocked(const dl_depgraph *D)
{
    lock();
    int r = deadlocked(D);
    unlock();
    return r;
}

int dl_depgraph_stuck(const dl_depgraph *D)
{
    return D->nstuck;
}

int dl_depgraph_cycle(const dl_depgraph *D, dl_cycle_part *out, int max)
{
    int *cyc = dl_xmalloc((size_t)(D->n ? D->n : 1) * sizeof(int));
    lock();
    int len = find_cycle(D, cyc);
    unlock();
    int k;
    for (k = 0; k < len && k < max; k++) {
        out[k].gpu = D->gpu[cyc[k]];
        out[k].coll = D->coll[cyc[k]];
    }
    free(cyc);
    return k;
}

int dl_depgraph_write_dot(const dl_depgraph *D, FILE *f)
{
    lock();
    int r = write_with(D, f, 0);
    unlock();
    return r;
}

int dl_depgraph_write_graphml(const dl_depgraph *D, FILE *f)
{
    lock();
    int r = write_with(D, f, 1);
    unlock();
    return r;
}

int dl_depgraph_verdict(const dl_round *R)
{
    edge_list E = {0};
    dl_depgraph *D = build_plain(R, &E);
    lock();
    build_graph(D, &E);
    int r = deadlocked(D);
    destroy(D);
    unlock();
    return r;
}
