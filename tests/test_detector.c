/* test_detector.c: the incremental detector (cycle.c) against the plain
 * igraph construction of the spec's dependency graph (depgraph.c).
 *
 * The key test drives many small random rounds of every model and compares
 * the two verdicts after every event through the engine's verify hook.  The
 * parameters are chosen so that many rounds deadlock and many complete: a
 * test where nearly every round ends the same way would agree vacuously.
 * Every deadlock cycle, the engine's and depgraph's, is also checked edge by
 * edge against the spec's rules, evaluated here directly from the state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>

#include <gsl/gsl_rng.h>
#include <igraph.h>

#include "tests.h"
#include "../sim/depgraph.h"
#include "../sim/engine.h"
#include "../sim/layout.h"

/* ---- random small layouts: tests/layouts.c ---- */

static void random_layout(dl_layout *L, gsl_rng *rng)
{
    dl_test_random_layout(L, rng, 6, 4);
}

/* ---- the spec's edges, evaluated from the state alone ---- */

static int part_of(const dl_layout *L, int gpu, int coll)
{
    if (coll < 0 || coll >= L->ncolls || gpu < 0 || gpu >= L->ngpus)
        return -1;
    int m = dl_layout_member(L, coll, gpu);
    return m < 0 ? -1 : L->part_off[coll] + m;
}

static int coll_started(const dl_round *R, int c)
{
    for (int p = R->L->part_off[c]; p < R->L->part_off[c + 1]; p++)
        if (R->state[p] == DL_QUEUED || R->state[p] == DL_EXECUTING)
            return 1;
    return 0;
}

/* A node of the graph that waits: QUEUED, or NOT_INVOKED on a suspended
 * GPU for a collective some GPU has invoked. */
static int waiting_node(const dl_round *R, int p)
{
    if (R->state[p] == DL_QUEUED)
        return 1;
    return R->state[p] == DL_NOT_INVOKED && R->suspended[R->L->part_gpu[p]] &&
           coll_started(R, R->L->part_coll[p]);
}

/* Is a -> b an edge of the spec's graph? */
static int spec_edge(const dl_round *R, dl_cycle_part a, dl_cycle_part b)
{
    int pa = part_of(R->L, a.gpu, a.coll), pb = part_of(R->L, b.gpu, b.coll);
    if (pa < 0 || pb < 0 || pa == pb)
        return 0;
    if (a.coll == b.coll) /* 1. executing X_i -> blocked X_j */
        return R->state[pa] == DL_EXECUTING && waiting_node(R, pb);
    if (a.gpu == b.gpu) /* 2. blocked Y_j -> executing part on GPU j */
        return waiting_node(R, pa) && R->state[pb] == DL_EXECUTING;
    return 0;
}

/* Is cyc[0..n) a simple cycle of the spec's graph, starting at an
 * executing part?  Explains the first failure on stderr. */
static int spec_cycle(const dl_round *R, const dl_cycle_part *cyc, int n, const char *who)
{
    if (n < 2) {
        fprintf(stderr, "%s: cycle of %d parts\n", who, n);
        return 0;
    }
    if (R->state[part_of(R->L, cyc[0].gpu, cyc[0].coll)] != DL_EXECUTING) {
        fprintf(stderr, "%s: cycle starts at a part that is not executing\n", who);
        return 0;
    }
    for (int k = 0; k < n; k++) {
        for (int l = 0; l < k; l++)
            if (cyc[k].gpu == cyc[l].gpu && cyc[k].coll == cyc[l].coll) {
                fprintf(stderr, "%s: part c%d@%d repeats\n", who, cyc[k].coll, cyc[k].gpu);
                return 0;
            }
        dl_cycle_part a = cyc[k], b = cyc[(k + 1) % n];
        if (!spec_edge(R, a, b)) {
            fprintf(stderr, "%s: c%d@%d -> c%d@%d is not an edge\n", who, a.coll, a.gpu, b.coll,
                    b.gpu);
            return 0;
        }
    }
    return 1;
}

/* The engine's cycle has the documented shape: pairs (executing X on i,
 * blocked X on the next GPU). */
static int engine_cycle_shape(const dl_round *R)
{
    if (R->ncycle % 2)
        return 0;
    for (int k = 0; k < R->ncycle; k += 2)
        if (R->cycle[k].coll != R->cycle[k + 1].coll ||
            R->state[part_of(R->L, R->cycle[k].gpu, R->cycle[k].coll)] != DL_EXECUTING)
            return 0;
    return 1;
}

/* ---- verify hook ---- */

typedef struct check_ctx {
    long events;     /* events compared */
    long mismatches; /* of which the verdicts differed */
    int print;       /* explain each event on stderr (replay of a mismatch) */
    const char *what; /* case and seed, for the report of a first mismatch */
} check_ctx;

/* Mismatches explained so far, over all threads: a few suffice. */
static atomic_int explained;

static void print_layout(const dl_layout *L)
{
    fprintf(stderr, "  layout: %d GPUs, order %s\n", L->ngpus, dl_order_name(L->order));
    for (int g = 0; g < L->ngroups; g++) {
        fprintf(stderr, "    group %d: %d collectives (c%d..), GPUs", g, L->groups[g].ncoll,
                L->groups[g].first_coll);
        for (int m = 0; m < L->groups[g].n; m++)
            fprintf(stderr, " %d", L->groups[g].gpus[m]);
        fprintf(stderr, "\n");
    }
}

static void print_state(const dl_round *R)
{
    static const char *name[] = {"not-invoked", "queued", "executing", "done"};
    fprintf(stderr, "  state after event %ld:", R->events);
    for (int p = 0; p < R->L->nparts; p++)
        if (R->state[p] != DL_DONE)
            fprintf(stderr, " c%d@%d=%s", R->L->part_coll[p], R->L->part_gpu[p],
                    name[R->state[p]]);
    fprintf(stderr, "\n  suspended GPUs:");
    for (int i = 0; i < R->L->ngpus; i++)
        if (R->suspended[i])
            fprintf(stderr, " %d", i);
    fprintf(stderr, "\n");
}

/* Reports the state of a mismatch at once: an engine that went wrong may
 * stall and abort before the round returns. */
static int verify_hook(const dl_round *R, int verdict, void *ctx)
{
    check_ctx *X = ctx;
    int slow = dl_depgraph_verdict(R);
    X->events++;
    if (slow == verdict)
        return 0;
    X->mismatches++;
    if (X->print) {
        fprintf(stderr, "  ^ MISMATCH: detector %d, igraph %d\n", verdict, slow);
    } else if (X->mismatches == 1 && atomic_fetch_add(&explained, 1) < 3) {
        fprintf(stderr, "detector mismatch (%s): detector %d, igraph %d\n", X->what, verdict, slow);
        print_layout(R->L);
        print_state(R);
    }
    return 1;
}

static void print_event(void *ctx, long step, int gpu, int action, int coll, int skipped)
{
    (void)ctx;
    if (action == DL_ACT_SYNC)
        fprintf(stderr, "  step %ld: GPU %d sync\n", step, gpu);
    else
        fprintf(stderr, "  step %ld: GPU %d invokes c%d (skipped %d)\n", step, gpu, coll, skipped);
}

/* ---- the random study ---- */

typedef struct model_case {
    const char *name;
    int slots, syncs;
} model_case;

static const model_case cases[] = {
    {"single (slots 1)", 1, 0},       {"sync (slots 0)", 0, 1},
    {"resource slots 2", 2, 0},       {"resource slots 3", 3, 0},
    {"resource slots 2 + sync", 2, 1}, {"resource slots 3 + sync", 3, 1},
};

typedef struct tally {
    long rounds, deadlocks, completes, events, mismatches, bad_cycles;
} tally;

/* Parameters of a round: frequent syncs where the model has them, and a
 * disorder that is high in half the rounds (most deadlock) and low in the
 * other half (most complete, after long runs of legal states). */
static dl_params round_params(const model_case *mc, gsl_rng *rng)
{
    dl_params P = {0};
    P.slots = mc->slots;
    double u = gsl_rng_uniform(rng);
    P.disorder = u < 0.5 ? 0.02 + 0.36 * u : 0.2 + 1.4 * (u - 0.5);
    P.sync = mc->syncs ? 0.15 + 0.35 * gsl_rng_uniform(rng) : 0;
    return P;
}

/* Reruns a mismatching round printing every event and verdict. */
static void explain(const model_case *mc, unsigned long seed)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(rng, seed);
    dl_layout L;
    random_layout(&L, rng);
    dl_params P = round_params(mc, rng);
    fprintf(stderr, "replay of %s, seed %lu (disorder %.3f, sync %.3f, slots %d):\n", mc->name,
            seed, P.disorder, P.sync, P.slots);
    dl_round *R = dl_round_new(&L, &P);
    check_ctx X = {.print = 1};
    R->verify = verify_hook;
    R->verify_ctx = &X;
    dl_sink sink = {print_event, NULL};
    dl_round_run(R, rng, &sink);
    dl_round_free(R);
    dl_layout_free(&L);
    gsl_rng_free(rng);
}

/* Checks a deadlocked round's cycles: the engine's, and depgraph's. */
static int check_deadlock(const dl_round *R)
{
    int ok = engine_cycle_shape(R) && spec_cycle(R, R->cycle, R->ncycle, "engine");
    dl_depgraph *D = dl_depgraph_build(R);
    int max = dl_depgraph_nodes(D);
    dl_cycle_part *cyc = calloc((size_t)(max ? max : 1), sizeof *cyc);
    int n = dl_depgraph_cycle(D, cyc, max);
    ok = ok && dl_depgraph_has_cycle(D) && spec_cycle(R, cyc, n, "depgraph");
    free(cyc);
    dl_depgraph_free(D);
    return ok;
}

static int all_done(const dl_round *R)
{
    for (int p = 0; p < R->L->nparts; p++)
        if (R->state[p] != DL_DONE)
            return 0;
    return 1;
}

/* One round of case mc with its own seed; adds to t. */
static void one_round(const model_case *mc, unsigned long seed, gsl_rng *rng, tally *t)
{
    gsl_rng_set(rng, seed);
    dl_layout L;
    random_layout(&L, rng);
    dl_params P = round_params(mc, rng);
    dl_round *R = dl_round_new(&L, &P);
    char what[96];
    snprintf(what, sizeof what, "%s, seed %lu, disorder %.3f, sync %.3f", mc->name, seed,
             P.disorder, P.sync);
    check_ctx X = {.what = what};
    R->verify = verify_hook;
    R->verify_ctx = &X;
    int st = dl_round_run(R, rng, NULL);
    t->rounds++;
    t->events += X.events;
    if (R->mismatches || X.mismatches) {
        if (!t->mismatches && atomic_load(&explained) <= 3)
            explain(mc, seed);
        /* the engine counts what the hook reports; take the larger in case not */
        t->mismatches += R->mismatches > X.mismatches ? R->mismatches : X.mismatches;
    }
    if (st == DL_DEADLOCK) {
        t->deadlocks++;
        if (!check_deadlock(R)) {
            if (!t->bad_cycles)
                fprintf(stderr, "bad cycle: %s, seed %lu\n", mc->name, seed);
            t->bad_cycles++;
        }
    } else if (st == DL_COMPLETED && all_done(R)) {
        t->completes++;
    }
    dl_round_free(R);
    dl_layout_free(&L);
}

static long rounds_per_model(void)
{
    return getenv("DL_TEST_QUICK") ? 2000 : 10000;
}

static void test_every_event_agrees(void)
{
    long rounds = rounds_per_model();
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    tally all = {0};
    for (size_t m = 0; m < sizeof cases / sizeof cases[0]; m++) {
        tally t = {0};
        for (long r = 0; r < rounds; r++)
            one_round(&cases[m], 1000003UL * (m + 1) + (unsigned long)r, rng, &t);
        printf("\n    %-24s %ld rounds, %ld events, %.1f%% deadlocked, %.1f%% complete, "
               "%ld mismatches",
               cases[m].name, t.rounds, t.events, 100.0 * t.deadlocks / t.rounds,
               100.0 * t.completes / t.rounds, t.mismatches);
        CU_ASSERT_EQUAL(t.mismatches, 0);
        CU_ASSERT_EQUAL(t.bad_cycles, 0);
        CU_ASSERT_EQUAL(t.deadlocks + t.completes, t.rounds);
        /* Not vacuous: both outcomes are common in every model. */
        CU_ASSERT(t.deadlocks * 10 > t.rounds);
        CU_ASSERT(t.completes * 10 > t.rounds);
        all.rounds += t.rounds;
        all.events += t.events;
    }
    printf("\n    total: %ld rounds, %ld events checked\n", all.rounds, all.events);
    gsl_rng_free(rng);
}

/* Studies run rounds on several threads, each checking with depgraph: the
 * global igraph lock must make that safe. */
typedef struct thread_job {
    int id;
    tally t;
} thread_job;

enum { THREAD_ROUNDS = 300 };

static void *thread_rounds(void *arg)
{
    thread_job *J = arg;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    for (unsigned long r = 0; r < THREAD_ROUNDS; r++)
        one_round(&cases[r % 6], 777000UL + 1000UL * (unsigned long)J->id + r, rng, &J->t);
    gsl_rng_free(rng);
    return NULL;
}

static void test_threads(void)
{
    enum { NT = 4 };
    pthread_t th[NT];
    thread_job job[NT];
    memset(job, 0, sizeof job);
    for (int k = 0; k < NT; k++) {
        job[k].id = k;
        CU_ASSERT_FATAL(pthread_create(&th[k], NULL, thread_rounds, &job[k]) == 0);
    }
    for (int k = 0; k < NT; k++) {
        pthread_join(th[k], NULL);
        CU_ASSERT_EQUAL(job[k].t.rounds, THREAD_ROUNDS);
        CU_ASSERT_EQUAL(job[k].t.mismatches, 0);
        CU_ASSERT_EQUAL(job[k].t.bad_cycles, 0);
    }
}

/* ---- hand-made states ---- */

/* Two GPUs, one group {0,1} with two collectives. */
static void two_gpu_layout(dl_layout *L)
{
    int g[2] = {0, 1};
    char err[128];
    dl_layout_init(L, 2);
    CU_ASSERT_FATAL(dl_layout_add_group(L, g, 2, 2, err, sizeof err) == 0);
    CU_ASSERT_FATAL(dl_layout_finish(L, DL_ORDER_INTERLEAVE, err, sizeof err) == 0);
}

static void expect_graph(const dl_round *R, int nodes, int edges, int cycle)
{
    dl_depgraph *D = dl_depgraph_build(R);
    CU_ASSERT_EQUAL(dl_depgraph_nodes(D), nodes);
    CU_ASSERT_EQUAL(dl_depgraph_edges(D), edges);
    CU_ASSERT_EQUAL(dl_depgraph_has_cycle(D), cycle);
    CU_ASSERT_EQUAL(dl_depgraph_verdict(R), cycle);
    dl_cycle_part cyc[8];
    int n = dl_depgraph_cycle(D, cyc, 8);
    CU_ASSERT_EQUAL(n > 0, cycle);
    if (cycle)
        CU_ASSERT(spec_cycle(R, cyc, n, "depgraph"));
    dl_depgraph_free(D);
}

/* Single queue: GPU 0 runs c1 then queues c0, GPU 1 runs c0 then queues c1. */
static void test_single_queue_by_hand(void)
{
    dl_layout L;
    two_gpu_layout(&L);
    dl_params P = {.slots = 1};
    dl_round *R = dl_round_new(&L, &P);
    CU_ASSERT_EQUAL(dl_round_invoke(R, 0, 1), DL_RUNNING);
    expect_graph(R, 1, 0, 0); /* c1 on GPU 1: not invoked, GPU 1 free: no node */
    CU_ASSERT_EQUAL(dl_round_invoke(R, 1, 0), DL_RUNNING);
    CU_ASSERT_EQUAL(dl_round_invoke(R, 0, 0), DL_RUNNING);
    /* c0@1 -> c0@0 (queued) -> c1@0 */
    expect_graph(R, 3, 2, 0);
    CU_ASSERT_EQUAL(dl_round_invoke(R, 1, 1), DL_DEADLOCK);
    expect_graph(R, 4, 4, 1);
    CU_ASSERT(spec_cycle(R, R->cycle, R->ncycle, "engine"));
    dl_round_free(R);
    dl_layout_free(&L);
}

/* Sync: each GPU runs one collective and syncs, so each waits for the
 * other's not-yet-invoked part. */
static void test_sync_by_hand(void)
{
    dl_layout L;
    two_gpu_layout(&L);
    dl_params P = {.slots = 0, .sync = 0.5};
    dl_round *R = dl_round_new(&L, &P);
    CU_ASSERT_EQUAL(dl_round_invoke(R, 0, 0), DL_RUNNING);
    CU_ASSERT_EQUAL(dl_round_invoke(R, 1, 1), DL_RUNNING);
    CU_ASSERT_EQUAL(dl_round_sync(R, 0), DL_RUNNING);
    /* c1@1 -> c1@0 (not invoked, GPU 0 suspended) -> c0@0 */
    expect_graph(R, 3, 2, 0);
    CU_ASSERT_EQUAL(dl_round_sync(R, 1), DL_DEADLOCK);
    expect_graph(R, 4, 4, 1);
    CU_ASSERT(spec_cycle(R, R->cycle, R->ncycle, "engine"));
    dl_round_free(R);
    dl_layout_free(&L);
}

/* ---- export ---- */

/* A deadlocked round (2 slots and syncs, so nodes may be in any state) with
 * a cycle over 3 or more GPUs and some nodes off the cycle, so that the
 * in_cycle marks are tested. */
static dl_round *deadlocked_round(dl_layout *L)
{
    const model_case *mc = &cases[4];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    for (unsigned long seed = 1; seed < 100000; seed++) {
        gsl_rng_set(rng, seed);
        random_layout(L, rng);
        dl_params P = round_params(mc, rng);
        dl_round *R = dl_round_new(L, &P);
        if (dl_round_run(R, rng, NULL) == DL_DEADLOCK && R->ncycle >= 6) {
            dl_depgraph *D = dl_depgraph_build(R);
            int extra = dl_depgraph_nodes(D) > R->ncycle;
            dl_depgraph_free(D);
            if (extra) {
                gsl_rng_free(rng);
                return R;
            }
        }
        dl_round_free(R);
        dl_layout_free(L);
    }
    gsl_rng_free(rng);
    CU_FAIL_FATAL("no deadlocked round with a long cycle in 100000 seeds");
    return NULL;
}

static char *slurp(FILE *f)
{
    long n = ftell(f);
    char *s = calloc((size_t)n + 1, 1);
    rewind(f);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        s[0] = 0;
    return s;
}

static int count_lines_with(const char *s, const char *what)
{
    int n = 0;
    while (*s) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *hit = strstr(s, what);
        n += hit && hit < s + len;
        s += len + (end != NULL);
    }
    return n;
}

static void test_export_dot(void)
{
    dl_layout L;
    dl_round *R = deadlocked_round(&L);
    dl_depgraph *D = dl_depgraph_build(R);
    dl_cycle_part cyc[64];
    int ncyc = dl_depgraph_cycle(D, cyc, 64);
    FILE *f = tmpfile();
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(dl_depgraph_write_dot(D, f), 0);
    char *s = slurp(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "digraph"));
    CU_ASSERT_EQUAL(count_lines_with(s, "label="), dl_depgraph_nodes(D));
    CU_ASSERT_EQUAL(count_lines_with(s, "->"), dl_depgraph_edges(D));
    CU_ASSERT_EQUAL(count_lines_with(s, "in_cycle=1"), ncyc);
    /* igraph quotes a label only when it is not a plain identifier */
    char label[32], quoted[32];
    snprintf(label, sizeof label, "label=c%d_%d\n", cyc[0].coll, cyc[0].gpu);
    snprintf(quoted, sizeof quoted, "label=\"c%d_%d\"\n", cyc[0].coll, cyc[0].gpu);
    CU_ASSERT(strstr(s, label) || strstr(s, quoted));
    free(s);
    fclose(f);
    dl_depgraph_free(D);
    dl_round_free(R);
    dl_layout_free(&L);
}

static void test_export_graphml(void)
{
    dl_layout L;
    dl_round *R = deadlocked_round(&L);
    dl_depgraph *D = dl_depgraph_build(R);
    dl_cycle_part cyc[64];
    int ncyc = dl_depgraph_cycle(D, cyc, 64);
    FILE *f = tmpfile();
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(dl_depgraph_write_graphml(D, f), 0);
    rewind(f);
    /* depgraph installed the C attribute handler: the attributes come back */
    igraph_t g;
    CU_ASSERT_FATAL(igraph_read_graph_graphml(&g, f, 0) == IGRAPH_SUCCESS);
    CU_ASSERT(igraph_is_directed(&g));
    CU_ASSERT_EQUAL(igraph_vcount(&g), dl_depgraph_nodes(D));
    CU_ASSERT_EQUAL(igraph_ecount(&g), dl_depgraph_edges(D));
    int marked = 0;
    for (igraph_integer_t v = 0; v < igraph_vcount(&g); v++) {
        marked += VAN(&g, "in_cycle", v) == 1;
        char want[32];
        snprintf(want, sizeof want, "c%d_%d", (int)VAN(&g, "coll", v), (int)VAN(&g, "gpu", v));
        CU_ASSERT_STRING_EQUAL(VAS(&g, "label", v), want);
    }
    CU_ASSERT_EQUAL(marked, ncyc);
    igraph_destroy(&g);
    fclose(f);
    dl_depgraph_free(D);
    dl_round_free(R);
    dl_layout_free(&L);
}

int dl_register_detector_tests(void)
{
    CU_pSuite s = CU_add_suite("detector", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "single queue by hand", test_single_queue_by_hand) ||
        !CU_add_test(s, "sync by hand", test_sync_by_hand) ||
        !CU_add_test(s, "detector = igraph on every event", test_every_event_agrees) ||
        !CU_add_test(s, "depgraph under threads", test_threads) ||
        !CU_add_test(s, "DOT export", test_export_dot) ||
        !CU_add_test(s, "GraphML export", test_export_graphml))
        return -1;
    return 0;
}
