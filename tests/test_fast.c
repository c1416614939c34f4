/* test_fast.c: the default stream (per-GPU generators with geometric gaps,
 * sim/streams.c) and the schedule-free evaluator (sim/fast.c).
 *
 * Three kinds of evidence:
 *
 *  1. Exact equivalence where the streams are identical: on every round of
 *     many random small layouts (and a few 3D ones) in every supported model,
 *     the schedule-free evaluator's verdict is the lockstep engine's on the
 *     same per-GPU streams, and on completed rounds so are the event,
 *     invocation, sync and skip counts.  A study decided by the evaluator has
 *     exactly the totals of the same study run in the engine.
 *  2. The draws: the geometric gaps give the per-action distribution of the
 *     plain stream (a sync with probability s, candidate k with probability
 *     (1-s)(1-p)p^k, truncated), by a chi-square test.
 *  3. The same distribution of outcomes as the plain stream (--exact-stream):
 *     for small layouts with high deadlock ratios in every model, the two
 *     streams' deadlock ratios pass a two-proportion test and their mean
 *     events per round a two-sample test, at a strict level (|z| < 4.5).
 *     The seeds are fixed, so the test cannot flake; they were not chosen.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "../sim/config.h"
#include "../sim/engine.h"
#include "../sim/fast.h"
#include "../sim/montecarlo.h"
#include "../sim/play.h"
#include "../sim/rng.h"
#include "../sim/split.h"
#include "../sim/stats.h"
#include "../sim/streams.h"
#include "tests.h"

static int quick(void)
{
    return getenv("DL_TEST_QUICK") != NULL;
}

/* 2-7 GPUs, 1-5 groups, 1-5 collectives each (tests/layouts.c). */
static void random_layout(dl_layout *L, gsl_rng *rng)
{
    dl_test_random_layout(L, rng, 7, 5);
}

/* The models the evaluator decides: single queue, sync model (with and
 * without syncs), one slot with syncs. */
typedef struct fcase {
    const char *name;
    int slots, syncs;
} fcase;

static const fcase fcases[] = {
    {"single", 1, 0}, {"sync", 0, 1}, {"unlimited, no syncs", 0, 0}, {"one slot + syncs", 1, 1}};

typedef struct counts {
    long rounds, deadlocks, completes, mismatches;
} counts;

/* Decides round (seed, r) with the evaluator and with the engine on the same
 * streams; counts a mismatch with a message. */
static void compare_round(const dl_layout *L, const dl_params *P, dl_fast *F, dl_round *R,
                          dl_streams *S, unsigned long seed, long r, const char *what, counts *t)
{
    dl_streams_seed(S, seed, r);
    int a = dl_fast_run(F, S);
    dl_streams_seed(S, seed, r);
    int b = dl_round_run_streams(R, S, NULL);
    int same = a == b;
    if (same && b == DL_COMPLETED)
        same = F->events == R->events && F->invocations == R->invocations &&
               F->syncs == R->syncs && F->skips == R->skips && F->ndone == L->ncolls;
    t->rounds++;
    t->deadlocks += b == DL_DEADLOCK;
    t->completes += b == DL_COMPLETED;
    if (!same) {
        if (t->mismatches < 3)
            fprintf(stderr,
                    "\n  %s, seed %lu round %ld (disorder %.3f, sync %.3f): evaluator %s "
                    "(%ld events), engine %s (%ld events)\n",
                    what, seed, r, P->disorder, P->sync, a == DL_DEADLOCK ? "deadlock" : "completes",
                    F->events, b == DL_DEADLOCK ? "deadlock" : "completes", R->events);
        t->mismatches++;
    }
}

/* Every round of many random small layouts: the evaluator and the engine
 * agree on the verdict, and on completed rounds on every count. */
static void test_evaluator_equals_engine(void)
{
    long layouts = quick() ? 600 : 3000, per_layout = 8;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    for (size_t m = 0; m < sizeof fcases / sizeof fcases[0]; m++) {
        counts t = {0};
        for (long k = 0; k < layouts; k++) {
            gsl_rng_set(rng, 5000UL + 7919UL * m + (unsigned long)k);
            dl_layout L;
            random_layout(&L, rng);
            /* disorder high in half the layouts (mostly deadlocks), low in
             * the other half (mostly completes) */
            double u = gsl_rng_uniform(rng);
            dl_params P = {.disorder = u < 0.5 ? 0.01 + 0.3 * u : 0.1 + 1.6 * (u - 0.5),
                           .sync = fcases[m].syncs ? 0.05 + 0.4 * gsl_rng_uniform(rng) : 0,
                           .slots = fcases[m].slots};
            if (P.disorder > 1)
                P.disorder = 1;
            const gsl_rng_type *type = k % 3 == 2 ? gsl_rng_mt19937 : gsl_rng_taus2;
            dl_fast *F = dl_fast_new(&L, &P);
            CU_ASSERT_PTR_NOT_NULL_FATAL(F);
            dl_round *R = dl_round_new(&L, &P);
            dl_streams *S = dl_streams_new(type, L.ngpus, &P);
            for (long r = 0; r < per_layout; r++)
                compare_round(&L, &P, F, R, S, 100UL + (unsigned long)k, r, fcases[m].name, &t);
            dl_streams_free(S);
            dl_round_free(R);
            dl_fast_free(F);
            dl_layout_free(&L);
        }
        CU_ASSERT_EQUAL(t.mismatches, 0);
        /* both outcomes common, so that the agreement is not vacuous */
        if (fcases[m].syncs || fcases[m].slots) {
            CU_ASSERT(t.deadlocks > t.rounds / 10);
            CU_ASSERT(t.completes > t.rounds / 10);
        } else {
            CU_ASSERT_EQUAL(t.deadlocks, 0); /* unlimited slots without syncs never */
        }
        if (t.mismatches || getenv("DL_TEST_VERBOSE") || ((fcases[m].syncs || fcases[m].slots) &&
                             (t.deadlocks <= t.rounds / 10 || t.completes <= t.rounds / 10)))
            fprintf(stderr, "\n  %s: %ld rounds, %ld deadlocks, %ld completes, %ld mismatches\n",
                    fcases[m].name, t.rounds, t.deadlocks, t.completes, t.mismatches);
    }
    gsl_rng_free(rng);
}

/* The same on 3D layouts of the paper's shape, small enough for many rounds,
 * with probabilities that make deadlocks common. */
static void test_evaluator_equals_engine_3d(void)
{
    const struct { const char *json; double disorder, sync; } cases[] = {
        {"{\"model\": \"sync\", \"tp\": 4, \"dp\": 4, \"pp\": 2, \"tp_colls\": 40, \"dp_colls\": 120}",
         0.04, 0.04},
        {"{\"model\": \"sync\", \"tp\": 2, \"dp\": 3, \"pp\": 2, \"tp_colls\": 30, \"dp_colls\": 60,"
         " \"order\": \"sequential\"}", 0.05, 0.05},
        {"{\"model\": \"single\", \"tp\": 4, \"dp\": 2, \"pp\": 2, \"tp_colls\": 20, \"dp_colls\": 60}",
         0.002, 0},
        {"{\"model\": \"resource\", \"slots\": 1, \"tp\": 2, \"dp\": 2, \"pp\": 2, \"tp_colls\": 20,"
         " \"dp_colls\": 40}", 0.01, 0.02},
    };
    long rounds = quick() ? 150 : 600;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        dl_config c;
        char err[256];
        CU_ASSERT_FATAL(dl_config_parse(&c, cases[k].json, "inline", err, sizeof err) == 0);
        dl_params P = {.disorder = cases[k].disorder, .sync = cases[k].sync, .slots = c.slots};
        dl_fast *F = dl_fast_new(&c.layout, &P);
        dl_round *R = dl_round_new(&c.layout, &P);
        dl_streams *S = dl_streams_new(gsl_rng_taus2, c.layout.ngpus, &P);
        counts t = {0};
        for (long r = 0; r < rounds; r++)
            compare_round(&c.layout, &P, F, R, S, 31, r, cases[k].json, &t);
        CU_ASSERT_EQUAL(t.mismatches, 0);
        CU_ASSERT(t.deadlocks > t.rounds / 20 && t.completes > t.rounds / 20);
        if (!(t.deadlocks > t.rounds / 20 && t.completes > t.rounds / 20))
            fprintf(stderr, "\n  %s: %ld deadlocks, %ld completes of %ld\n", cases[k].json,
                    t.deadlocks, t.completes, t.rounds);
        dl_streams_free(S);
        dl_round_free(R);
        dl_fast_free(F);
        dl_config_free(&c);
    }
}

/* The evaluator's closed form of the planned order (how many of a group's
 * collectives lie in a GPU's first pos plan entries) against the plan
 * itself, at every position, on random layouts of both orders and on a 3D
 * layout whose groups have different counts. */
static void test_plan_count_closed_form(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    dl_params P = {.disorder = 0.1, .sync = 0.1, .slots = 0};
    long checked = 0, bad = 0, orders[2] = {0, 0};
    for (int k = 0; k <= 300; k++) {
        dl_layout L;
        dl_config c;
        char err[256];
        if (k < 300) {
            gsl_rng_set(rng, 777UL + (unsigned long)k);
            random_layout(&L, rng);
        } else {
            CU_ASSERT_FATAL(dl_config_parse(&c, "{\"model\": \"sync\", \"tp\": 4, \"dp\": 3, \"pp\": 2,"
                                                " \"tp_colls\": 7, \"dp_colls\": 19}",
                                            "inline", err, sizeof err) == 0);
            L = c.layout;
        }
        orders[L.order]++;
        dl_fast *F = dl_fast_new(&L, &P);
        CU_ASSERT_PTR_NOT_NULL_FATAL(F);
        for (int i = 0; i < L.ngpus; i++) {
            int off = F->gpu_node_off[i], r = F->gpu_node_off[i + 1] - off;
            int len = L.plan_off[i + 1] - L.plan_off[i];
            for (int s = 0; s < r; s++) {
                int g = F->node_group[F->gpu_node[off + s]], n = 0;
                for (int pos = 0; pos <= len; pos++) {
                    bad += dl_fast_plan_count(F, i, s, pos) != n;
                    checked++;
                    if (pos < len)
                        n += L.coll_group[L.plan[L.plan_off[i] + pos].coll] == g;
                }
            }
        }
        dl_fast_free(F);
        if (k < 300)
            dl_layout_free(&L);
        else
            dl_config_free(&c);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(checked > 10000 && orders[0] > 50 && orders[1] > 50);
    gsl_rng_free(rng);
}

/* Components (one slot): a 3D layout's pipeline stages; GPUs linked through
 * a chain of groups are one. */
static void test_components(void)
{
    dl_config c;
    char err[256];
    dl_params P = {.disorder = 0.1, .slots = 1};
    CU_ASSERT_FATAL(dl_config_parse(&c, "{\"model\": \"single\", \"tp\": 2, \"dp\": 3, \"pp\": 4,"
                                        " \"tp_colls\": 2, \"dp_colls\": 3}",
                                    "inline", err, sizeof err) == 0);
    dl_fast *F = dl_fast_new(&c.layout, &P);
    CU_ASSERT_FATAL(F != NULL);
    CU_ASSERT_EQUAL(F->ncomps, 4);
    for (int i = 0; i < c.layout.ngpus; i++)
        CU_ASSERT_EQUAL(F->comp_of[i], i / 6);
    dl_fast_free(F);
    dl_config_free(&c);
    CU_ASSERT_FATAL(dl_config_parse(&c, "{\"model\": \"single\", \"gpus\": 7, \"groups\": ["
                                        "{\"members\": [0, 5], \"colls\": 1}, {\"members\": [3], \"colls\": 1},"
                                        "{\"members\": [5, 2], \"colls\": 1}, {\"members\": [4, 6, 1], \"colls\": 1}]}",
                                    "inline", err, sizeof err) == 0);
    F = dl_fast_new(&c.layout, &P);
    CU_ASSERT_FATAL(F != NULL);
    const int want[7] = {0, 1, 0, 2, 1, 0, 1};
    CU_ASSERT_EQUAL(F->ncomps, 3);
    for (int i = 0; i < 7; i++)
        CU_ASSERT_EQUAL(F->comp_of[i], want[i]);
    dl_fast_free(F);
    dl_config_free(&c);
}

/* The paper's (4,4,4) synchronization layout at rates that deadlock a few
 * percent of rounds, and its single-queue row at a rate where most rounds
 * skip somewhere: evaluator and engine agree on every round. */
static void test_evaluator_equals_engine_paper(void)
{
    const struct { const char *json; double disorder, sync; int slots; } cases[] = {
        {"{\"model\": \"sync\", \"tp\": 4, \"dp\": 4, \"pp\": 4, \"tp_colls\": 400, \"dp_colls\": 1200}",
         0.01, 0.01, 0},
        {"{\"model\": \"single\", \"tp\": 4, \"dp\": 4, \"pp\": 4, \"tp_colls\": 400, \"dp_colls\": 1200}",
         1e-5, 0, 1},
    };
    long rounds = quick() ? 40 : 150;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        dl_config c;
        char err[256];
        CU_ASSERT_FATAL(dl_config_parse(&c, cases[k].json, "inline", err, sizeof err) == 0);
        dl_params P = {.disorder = cases[k].disorder, .sync = cases[k].sync, .slots = cases[k].slots};
        dl_fast *F = dl_fast_new(&c.layout, &P);
        dl_round *R = dl_round_new(&c.layout, &P);
        dl_streams *S = dl_streams_new(gsl_rng_taus2, c.layout.ngpus, &P);
        counts t = {0};
        for (long r = 0; r < rounds; r++)
            compare_round(&c.layout, &P, F, R, S, 2023, r, cases[k].json, &t);
        CU_ASSERT_EQUAL(t.mismatches, 0);
        CU_ASSERT(t.deadlocks > 0 && t.completes > rounds / 4);
        if (!(t.deadlocks > 0 && t.completes > rounds / 4) || getenv("DL_TEST_VERBOSE"))
            fprintf(stderr, "\n  %s: %ld deadlocks, %ld completes of %ld\n", cases[k].json,
                    t.deadlocks, t.completes, t.rounds);
        dl_streams_free(S);
        dl_round_free(R);
        dl_fast_free(F);
        dl_config_free(&c);
    }
}

/* Deadlocked rounds replayed component by component (sim/split.c) give the
 * whole-round engine's counts, step and event, round by round, on 3D
 * layouts where several stages often deadlock in the same round; layouts
 * with one component, or components that differ, are declined. */
static void test_split_equals_engine(void)
{
    const struct { const char *json; double disorder, sync; int slots; } cases[] = {
        {"{\"model\": \"sync\", \"tp\": 2, \"dp\": 3, \"pp\": 5, \"tp_colls\": 20, \"dp_colls\": 40}",
         0.08, 0.08, 0},
        {"{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 4, \"tp_colls\": 15, \"dp_colls\": 30,"
         " \"order\": \"sequential\"}", 0.1, 0.1, 0},
        {"{\"model\": \"single\", \"tp\": 4, \"dp\": 2, \"pp\": 4, \"tp_colls\": 20, \"dp_colls\": 60}",
         0.0008, 0, 1},
        {"{\"model\": \"resource\", \"slots\": 1, \"tp\": 2, \"dp\": 2, \"pp\": 3, \"tp_colls\": 20,"
         " \"dp_colls\": 40}", 0.004, 0.02, 1},
    };
    long rounds = quick() ? 150 : 600;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        dl_config c;
        char err[256];
        CU_ASSERT_FATAL(dl_config_parse(&c, cases[k].json, "inline", err, sizeof err) == 0);
        dl_params P = {.disorder = cases[k].disorder, .sync = cases[k].sync, .slots = cases[k].slots};
        dl_fast *F = dl_fast_new(&c.layout, &P);
        dl_split *X = dl_split_new(&c.layout, &P, gsl_rng_taus2, F);
        CU_ASSERT_FATAL(F != NULL && X != NULL);
        dl_round *R = dl_round_new(&c.layout, &P);
        dl_streams *S = dl_streams_new(gsl_rng_taus2, c.layout.ngpus, &P);
        long dead = 0, several = 0, bad = 0;
        for (long r = 0; r < rounds; r++) {
            dl_streams_seed(S, 77, r);
            if (dl_fast_run(F, S) != DL_DEADLOCK)
                continue;
            int ndead = 0;
            for (int q = 0; q < F->ncomps; q++)
                ndead += F->comp_dead[q];
            dead++;
            several += ndead > 1;
            dl_split_counts x;
            int rc = dl_split_round(X, 77, r, &x);
            dl_streams_seed(S, 77, r);
            int st = dl_round_run_streams(R, S, NULL);
            bad += rc != 0 || st != DL_DEADLOCK || x.steps != R->step + 1 || x.events != R->events ||
                   x.invocations != R->invocations || x.syncs != R->syncs ||
                   x.skips != R->skips || x.deadlock_event != R->deadlock_event;
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(dead > rounds / 10 && several > 5);
        if (bad || !(dead > rounds / 10 && several > 5) || getenv("DL_TEST_VERBOSE"))
            fprintf(stderr, "\n  %s: %ld deadlocked rounds (%ld in several stages), %ld differ\n",
                    cases[k].json, dead, several, bad);
        dl_streams_free(S);
        dl_round_free(R);
        dl_split_free(X);
        dl_fast_free(F);
        dl_config_free(&c);
    }
    /* declined: one component; two components of different shapes */
    const char *declined[] = {
        "{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 1, \"tp_colls\": 5, \"dp_colls\": 5}",
        "{\"model\": \"sync\", \"gpus\": 5, \"groups\": [{\"members\": [0, 1], \"colls\": 4},"
        " {\"members\": [2, 3, 4], \"colls\": 4}]}",
        "{\"model\": \"sync\", \"gpus\": 4, \"groups\": [{\"members\": [0, 1], \"colls\": 4},"
        " {\"members\": [2, 3], \"colls\": 5}]}",
    };
    for (int k = 0; k < 3; k++) {
        dl_config c;
        char err[256];
        CU_ASSERT_FATAL(dl_config_parse(&c, declined[k], "inline", err, sizeof err) == 0);
        dl_params P = {.disorder = 0.1, .sync = 0.1, .slots = 0};
        dl_fast *F = dl_fast_new(&c.layout, &P);
        CU_ASSERT_PTR_NULL(dl_split_new(&c.layout, &P, gsl_rng_taus2, F));
        dl_fast_free(F);
        dl_config_free(&c);
    }
}

/* With no disorder the planned orders are consistent: the evaluator finds
 * no deadlock in any supported model, with or without syncs. */
static void test_evaluator_consistent_orders(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    long n = quick() ? 500 : 2000, dead = 0;
    for (long k = 0; k < n; k++) {
        gsl_rng_set(rng, 90000UL + (unsigned long)k);
        dl_layout L;
        random_layout(&L, rng);
        const fcase *fc = &fcases[k % 4];
        dl_params P = {.disorder = 0, .sync = fc->syncs ? 0.5 * gsl_rng_uniform(rng) : 0,
                       .slots = fc->slots};
        dl_fast *F = dl_fast_new(&L, &P);
        dl_streams *S = dl_streams_new(gsl_rng_taus2, L.ngpus, &P);
        for (long r = 0; r < 4; r++) {
            dl_streams_seed(S, 7, r);
            dead += dl_fast_run(F, S) != DL_COMPLETED;
            CU_ASSERT_EQUAL(F->skips, 0);
            CU_ASSERT_EQUAL(F->invocations, L.nparts);
        }
        dl_streams_free(S);
        dl_fast_free(F);
        dl_layout_free(&L);
    }
    CU_ASSERT_EQUAL(dead, 0);
    gsl_rng_free(rng);
}

static dl_study run_study(const dl_layout *L, dl_params P, long rounds, unsigned long seed,
                          int threads, int exact, int engine_only)
{
    dl_study S = {.L = L, .P = P, .rounds = rounds, .seed = seed, .rng = "taus2",
                  .threads = threads, .exact_stream = exact, .engine_only = engine_only};
    char err[128];
    CU_ASSERT_FATAL(dl_study_run(&S, err, sizeof err) == 0);
    return S;
}

/* A study decided by the evaluator (deadlocked rounds replayed in the
 * engine) has exactly the totals of the same study run in the engine. */
static void test_study_equals_engine_study(void)
{
    const struct { const char *json; dl_params P; } cases[] = {
        {"{\"model\": \"sync\", \"tp\": 4, \"dp\": 2, \"pp\": 2, \"tp_colls\": 40, \"dp_colls\": 80}",
         {0.07, 0.07, 0, NULL}},
        {"{\"model\": \"single\", \"gpus\": 6, \"recipe\": {\"seed\": 3, \"classes\": ["
         "{\"count\": 4, \"size\": 3, \"colls\": [20, 40]}]}}", {0.003, 0, 1, NULL}},
        {"{\"model\": \"resource\", \"slots\": 1, \"tp\": 2, \"dp\": 2, \"pp\": 2, \"tp_colls\": 20,"
         " \"dp_colls\": 40}", {0.01, 0.02, 1, NULL}},
    };
    long rounds = quick() ? 300 : 1500;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        dl_config c;
        char err[256];
        CU_ASSERT_FATAL(dl_config_parse(&c, cases[k].json, "inline", err, sizeof err) == 0);
        dl_study a = run_study(&c.layout, cases[k].P, rounds, 17, 2, 0, 0);
        dl_study b = run_study(&c.layout, cases[k].P, rounds, 17, 1, 0, 1);
        CU_ASSERT(a.deadlocks > rounds / 20 && a.deadlocks < rounds - rounds / 20);
        CU_ASSERT_EQUAL(a.deadlocks, b.deadlocks);
        CU_ASSERT_EQUAL(a.events, b.events);
        CU_ASSERT_EQUAL(a.invocations, b.invocations);
        CU_ASSERT_EQUAL(a.syncs, b.syncs);
        CU_ASSERT_EQUAL(a.skips, b.skips);
        CU_ASSERT_EQUAL(a.first_deadlock, b.first_deadlock);
        if (a.deadlocks != b.deadlocks || a.events != b.events)
            fprintf(stderr, "\n  %s: evaluator %ld deadlocks %ld events, engine %ld, %ld\n",
                    cases[k].json, a.deadlocks, a.events, b.deadlocks, b.events);
        dl_config_free(&c);
    }
}

/* The exact stream is the plain engine on one generator per round seeded
 * from (seed, round), as before the default stream existed. */
static void test_exact_stream_is_plain_engine(void)
{
    dl_config c;
    char err[256];
    CU_ASSERT_FATAL(dl_config_parse(&c, "{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 2,"
                                        " \"tp_colls\": 20, \"dp_colls\": 30}",
                                    "inline", err, sizeof err) == 0);
    dl_params P = {0.12, 0.12, 0, NULL};
    long rounds = 300;
    dl_study S = {.L = &c.layout, .P = P, .rounds = rounds, .seed = 42, .rng = "taus2",
                  .threads = 2, .exact_stream = 1, .keep_rounds = 1};
    CU_ASSERT_FATAL(dl_study_run(&S, err, sizeof err) == 0);
    dl_round *R = dl_round_new(&c.layout, &P);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    long bad = 0, dead = 0;
    for (long r = 0; r < rounds; r++) {
        dl_rng_seed_round(rng, 42, r);
        int st = dl_round_run(R, rng, NULL);
        dead += st == DL_DEADLOCK;
        bad += S.per_round[r].deadlock != (st == DL_DEADLOCK) || S.per_round[r].events != R->events ||
               S.per_round[r].steps != R->step + 1;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(dead, S.deadlocks);
    CU_ASSERT(dead > 10 && dead < rounds - 10);
    gsl_rng_free(rng);
    dl_round_free(R);
    free(S.per_round);
    dl_config_free(&c);
}

/* ---- the draws ---- */

/* Chi-square statistic's upper tail for observed counts against expected
 * ones (cells with expectation < 5 pooled into the last). */
static double chisq_q(const long *obs, const double *expect, int n)
{
    double x2 = 0, po = 0, pe = 0;
    int df = -1;
    for (int i = 0; i < n; i++) {
        if (expect[i] < 5) {
            po += (double)obs[i];
            pe += expect[i];
            continue;
        }
        x2 += ((double)obs[i] - expect[i]) * ((double)obs[i] - expect[i]) / expect[i];
        df++;
    }
    if (pe > 0) {
        x2 += (po - pe) * (po - pe) / pe;
        df++;
    }
    return gsl_cdf_chisq_Q(x2, df);
}

/* Geometric gaps: P(gap = g) = (1-p)^g p. */
static void test_geometric_gaps(void)
{
    const double ps[] = {0.5, 0.1, 0.004};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    for (int k = 0; k < 3; k++) {
        double p = ps[k], lq = log1p(-p);
        enum { N = 400000, CELLS = 64 };
        long obs[CELLS] = {0};
        double expect[CELLS];
        gsl_rng_set(rng, 1234 + (unsigned long)k);
        /* cells of width w so that the tail spreads over them */
        long w = p > 0.05 ? 1 : 16;
        double sum = 0;
        for (long i = 0; i < N; i++) {
            long g = dl_geometric_gap(rng, p, lq);
            sum += (double)g;
            long cell = g / w;
            obs[cell < CELLS - 1 ? cell : CELLS - 1]++;
        }
        for (int c = 0; c < CELLS; c++) {
            double lo = pow(1 - p, (double)(c * w));
            double hi = c == CELLS - 1 ? 0 : pow(1 - p, (double)((c + 1) * w));
            expect[c] = N * (lo - hi);
        }
        double q = chisq_q(obs, expect, CELLS);
        CU_ASSERT(q > 1e-6);
        double mean = (1 - p) / p, sd = sqrt(1 - p) / p;
        CU_ASSERT(fabs(sum / N - mean) < 5 * sd / sqrt((double)N));
        if (q <= 1e-6)
            fprintf(stderr, "\n  gaps p=%g: chi-square tail %g\n", p, q);
    }
    CU_ASSERT_EQUAL(dl_geometric_gap(rng, 0, log1p(-0.0)), LONG_MAX);
    CU_ASSERT_EQUAL(dl_geometric_gap(rng, 1, log1p(-1.0)), 0);
    gsl_rng_free(rng);
}

/* The per-action law: sync with probability s; else candidate k of a
 * remaining list of n with probability (1-s)(1-p)p^k, (1-s)p^(n-1) for the
 * last.  Actions are drawn for one GPU in a row with varying list lengths,
 * so gaps carry over between actions as they do in a round. */
static void test_action_distribution(void)
{
    const struct { double s, p; } cases[] = {{0.2, 0.3}, {0, 0.5}, {0.05, 0.05}, {0.3, 1.0}};
    for (int k = 0; k < 4; k++) {
        dl_params P = {.disorder = cases[k].p, .sync = cases[k].s, .slots = 0};
        dl_streams *S = dl_streams_new(gsl_rng_taus2, 3, &P);
        dl_streams_seed(S, 99, k);
        enum { N = 300000, LENS = 4 };
        long obs[LENS][LENS + 1]; /* [n-1][k or sync = n] */
        long tot[LENS] = {0};
        memset(obs, 0, sizeof obs);
        for (long i = 0; i < N; i++) {
            int n = 1 + (int)(i % LENS), gpu = (int)(i % 3);
            int a = dl_streams_action(S, gpu, n);
            CU_ASSERT_FATAL(a == DL_DRAW_SYNC || (a >= 0 && a < n));
            obs[n - 1][a == DL_DRAW_SYNC ? n : a]++;
            tot[n - 1]++;
        }
        for (int n = 1; n <= LENS; n++) {
            double expect[LENS + 1];
            long o[LENS + 1];
            double s = cases[k].s, p = cases[k].p;
            for (int j = 0; j < n; j++) {
                double pk = j < n - 1 ? (1 - p) * pow(p, j) : pow(p, n - 1);
                expect[j] = (double)tot[n - 1] * (1 - s) * pk;
                o[j] = obs[n - 1][j];
            }
            expect[n] = (double)tot[n - 1] * s;
            o[n] = obs[n - 1][n];
            /* drop impossible cells (probability 0) */
            int m = 0;
            long oo[LENS + 1];
            double ee[LENS + 1];
            for (int j = 0; j <= n; j++) {
                if (expect[j] == 0) {
                    CU_ASSERT_EQUAL(o[j], 0);
                    continue;
                }
                oo[m] = o[j];
                ee[m++] = expect[j];
            }
            if (m < 2)
                continue;
            double q = chisq_q(oo, ee, m);
            CU_ASSERT(q > 1e-6);
            if (q <= 1e-6)
                fprintf(stderr, "\n  actions s=%g p=%g n=%d: chi-square tail %g\n", cases[k].s,
                        cases[k].p, n, q);
        }
        dl_streams_free(S);
    }
}

/* ---- the same distribution as the exact stream ---- */

/* Two-proportion z statistic (pooled). */
static double z_prop(long x1, long n1, long x2, long n2)
{
    double p = (double)(x1 + x2) / (double)(n1 + n2);
    double se = sqrt(p * (1 - p) * (1.0 / (double)n1 + 1.0 / (double)n2));
    return se > 0 ? ((double)x1 / (double)n1 - (double)x2 / (double)n2) / se : 0;
}

/* Two-sample z statistic of the means of per-round values. */
static double z_mean(const dl_round_result *a, const dl_round_result *b, long n,
                     long (*get)(const dl_round_result *))
{
    double ma = 0, mb = 0, va = 0, vb = 0;
    for (long r = 0; r < n; r++) {
        ma += (double)get(&a[r]);
        mb += (double)get(&b[r]);
    }
    ma /= (double)n;
    mb /= (double)n;
    for (long r = 0; r < n; r++) {
        va += ((double)get(&a[r]) - ma) * ((double)get(&a[r]) - ma);
        vb += ((double)get(&b[r]) - mb) * ((double)get(&b[r]) - mb);
    }
    va /= (double)(n - 1);
    vb /= (double)(n - 1);
    double se = sqrt(va / (double)n + vb / (double)n);
    return se > 0 ? (ma - mb) / se : (ma == mb ? 0 : 99);
}

static long get_events(const dl_round_result *x) { return x->events; }
static long get_skips(const dl_round_result *x) { return x->skips; }
static long get_syncs(const dl_round_result *x) { return x->syncs; }
static long get_steps(const dl_round_result *x) { return x->steps; }

/* For small layouts with high deadlock ratios, in every model (K = 2 too,
 * which the engine plays from the per-GPU streams): the default stream and
 * the exact one give deadlock ratios, and mean events, skips, syncs and
 * steps per round, that a two-sample test does not tell apart at |z| < 4.5
 * (two-sided level 7e-6).  The proportions also lie in each other's 99.99%
 * Clopper-Pearson intervals' union: the intervals overlap. */
static void test_same_distribution_as_exact(void)
{
    const struct { const char *json; dl_params P; } cases[] = {
        /* one group, single queue: analytic 1-(1-p)^(G(n-1)) = 0.52 */
        {"{\"model\": \"single\", \"gpus\": 4, \"groups\": [{\"members\": [0,1,2,3], \"colls\": 10}]}",
         {0.02, 0, 1, NULL}},
        {"{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 2, \"tp_colls\": 20, \"dp_colls\": 30}",
         {0.15, 0.15, 0, NULL}},
        {"{\"model\": \"sync\", \"gpus\": 4, \"groups\": [{\"members\": [0,1], \"colls\": 3},"
         " {\"members\": [1,2,3], \"colls\": 3}, {\"members\": [0,3], \"colls\": 2},"
         " {\"members\": [0,1,2,3], \"colls\": 2}]}", {0.2, 0.2, 0, NULL}},
        {"{\"model\": \"single\", \"tp\": 2, \"dp\": 3, \"pp\": 2, \"tp_colls\": 15, \"dp_colls\": 25}",
         {0.01, 0, 1, NULL}},
        {"{\"model\": \"resource\", \"slots\": 1, \"tp\": 2, \"dp\": 2, \"pp\": 2, \"tp_colls\": 10,"
         " \"dp_colls\": 20}", {0.03, 0.05, 1, NULL}},
        {"{\"model\": \"resource\", \"slots\": 2, \"tp\": 2, \"dp\": 2, \"pp\": 2, \"tp_colls\": 10,"
         " \"dp_colls\": 20}", {0.1, 0.1, 2, NULL}},
    };
    long rounds = quick() ? 4000 : 20000;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        dl_config c;
        char err[256];
        CU_ASSERT_FATAL(dl_config_parse(&c, cases[k].json, "inline", err, sizeof err) == 0);
        dl_study a = {.L = &c.layout, .P = cases[k].P, .rounds = rounds, .seed = 2023,
                      .rng = "taus2", .threads = 0, .keep_rounds = 1};
        dl_study b = a;
        b.exact_stream = 1;
        b.seed = 4046;
        CU_ASSERT_FATAL(dl_study_run(&a, err, sizeof err) == 0);
        CU_ASSERT_FATAL(dl_study_run(&b, err, sizeof err) == 0);
        double z = z_prop(a.deadlocks, rounds, b.deadlocks, rounds);
        double ze = z_mean(a.per_round, b.per_round, rounds, get_events);
        double zk = z_mean(a.per_round, b.per_round, rounds, get_skips);
        double zs = z_mean(a.per_round, b.per_round, rounds, get_syncs);
        double zt = z_mean(a.per_round, b.per_round, rounds, get_steps);
        double alo, ahi, blo, bhi;
        dl_binom_ci(a.deadlocks, rounds, 0.9999, &alo, &ahi);
        dl_binom_ci(b.deadlocks, rounds, 0.9999, &blo, &bhi);
        int ok = fabs(z) < 4.5 && fabs(ze) < 4.5 && fabs(zk) < 4.5 && fabs(zs) < 4.5 &&
                 fabs(zt) < 4.5 && alo <= bhi && blo <= ahi;
        /* the ratio is high enough for the test to have power */
        CU_ASSERT(a.deadlocks > rounds / 10 && b.deadlocks > rounds / 10);
        CU_ASSERT(ok);
        if (!ok || getenv("DL_TEST_VERBOSE"))
            fprintf(stderr,
                    "\n  case %zu: default %ld/%ld, exact %ld/%ld deadlocks: z %.2f; events z "
                    "%.2f, skips z %.2f, syncs z %.2f, steps z %.2f\n",
                    k, a.deadlocks, rounds, b.deadlocks, rounds, z, ze, zk, zs, zt);
        free(a.per_round);
        free(b.per_round);
        dl_config_free(&c);
    }
}

/* The analytic one-group value holds for the default stream at small p too,
 * where each GPU makes ~G(n-1) trials with a rare success. */
static void test_one_group_analytic_default(void)
{
    const struct { int g, n; double p; } cases[] = {{8, 161, 1e-4}, {4, 400, 1e-5}};
    for (int k = 0; k < 2; k++) {
        int gpus[8];
        for (int i = 0; i < cases[k].g; i++)
            gpus[i] = i;
        dl_layout L;
        char err[128];
        dl_layout_init(&L, cases[k].g);
        CU_ASSERT_FATAL(dl_layout_add_group(&L, gpus, cases[k].g, cases[k].n, err, sizeof err) == 0);
        CU_ASSERT_FATAL(dl_layout_finish(&L, DL_ORDER_INTERLEAVE, err, sizeof err) == 0);
        dl_params P = {.disorder = cases[k].p, .slots = 1};
        long rounds = quick() ? 20000 : 100000;
        dl_study S = run_study(&L, P, rounds, 8, 0, 0, 0);
        double expect = 1 - pow(1 - cases[k].p, cases[k].g * (cases[k].n - 1));
        double lo, hi;
        dl_binom_ci(S.deadlocks, S.rounds, 0.9999, &lo, &hi);
        CU_ASSERT(lo <= expect && expect <= hi);
        if (!(lo <= expect && expect <= hi))
            fprintf(stderr, "\n  case %d: analytic %.5f outside [%.5f, %.5f]\n", k, expect, lo, hi);
        dl_layout_free(&L);
    }
}

int dl_register_fast_tests(void)
{
    CU_pSuite s = CU_add_suite("fast", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "evaluator = engine, random layouts", test_evaluator_equals_engine) ||
        !CU_add_test(s, "evaluator = engine, 3D layouts", test_evaluator_equals_engine_3d) ||
        !CU_add_test(s, "evaluator = engine, paper's (4,4,4) layout", test_evaluator_equals_engine_paper) ||
        !CU_add_test(s, "evaluator: planned order in closed form", test_plan_count_closed_form) ||
        !CU_add_test(s, "evaluator: components", test_components) ||
        !CU_add_test(s, "deadlocked rounds replayed by component = engine", test_split_equals_engine) ||
        !CU_add_test(s, "evaluator: consistent orders complete", test_evaluator_consistent_orders) ||
        !CU_add_test(s, "study totals = engine study", test_study_equals_engine_study) ||
        !CU_add_test(s, "exact stream = plain engine", test_exact_stream_is_plain_engine) ||
        !CU_add_test(s, "geometric gaps", test_geometric_gaps) ||
        !CU_add_test(s, "per-action law of the draws", test_action_distribution) ||
        !CU_add_test(s, "same distribution as --exact-stream", test_same_distribution_as_exact) ||
        !CU_add_test(s, "one group analytic, default stream", test_one_group_analytic_default))
        return -1;
    return 0;
}
