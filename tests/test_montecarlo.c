/* test_montecarlo.c: studies: thread-count independence, the one-group
 * analytic value, the binomial interval, --verify, model equivalences. */
#include <math.h>
#include <stdlib.h>

#include "../sim/config.h"
#include "../sim/montecarlo.h"
#include "../sim/stats.h"
#include "tests.h"

static dl_study study(const dl_layout *L, dl_params P, long rounds, int threads)
{
    dl_study S = {.L = L, .P = P, .rounds = rounds, .seed = 42, .rng = "taus2",
                  .threads = threads};
    char err[128];
    CU_ASSERT_FATAL(dl_study_run(&S, err, sizeof err) == 0);
    return S;
}

static void one_group(dl_layout *L, int gpus, int colls)
{
    int g[64];
    char err[128];
    for (int i = 0; i < gpus; i++)
        g[i] = i;
    dl_layout_init(L, gpus);
    CU_ASSERT_FATAL(dl_layout_add_group(L, g, gpus, colls, err, sizeof err) == 0);
    CU_ASSERT_FATAL(dl_layout_finish(L, DL_ORDER_INTERLEAVE, err, sizeof err) == 0);
}

/* Same seed, same result, for 1, 2 and 3 threads, in every model. */
static void test_thread_count_independence(void)
{
    const char *json = "{\"model\": \"sync\", \"grouping\": \"3d\", \"tp\": 2, \"dp\": 2, "
                       "\"pp\": 2, \"tp_colls\": 20, \"dp_colls\": 30}";
    dl_config c;
    char err[256];
    CU_ASSERT_FATAL(dl_config_parse(&c, json, "inline", err, sizeof err) == 0);
    const dl_params models[] = {{0.02, 0, 1, NULL}, {0.05, 0.05, 0, NULL}, {0.05, 0.05, 2, NULL}};
    for (size_t m = 0; m < 3; m++) {
        dl_study a = study(&c.layout, models[m], 600, 1);
        dl_study b = study(&c.layout, models[m], 600, 2);
        dl_study d = study(&c.layout, models[m], 600, 3);
        CU_ASSERT(a.deadlocks > 0 && a.deadlocks < 600);
        CU_ASSERT_EQUAL(a.deadlocks, b.deadlocks);
        CU_ASSERT_EQUAL(a.deadlocks, d.deadlocks);
        CU_ASSERT_EQUAL(a.events, b.events);
        CU_ASSERT_EQUAL(a.events, d.events);
        CU_ASSERT_EQUAL(a.skips, d.skips);
        CU_ASSERT_EQUAL(a.syncs, d.syncs);
        CU_ASSERT_EQUAL(a.first_deadlock, d.first_deadlock);
        CU_ASSERT_EQUAL(b.threads_used, 2);
    }
    dl_config_free(&c);
}

/* A study run as shares of its rounds (what MPI ranks do, sim/mpi.c) adds
 * up to the whole: totals, the first deadlock, the per-round rows; a share
 * outside the study is refused. */
static void test_shares_add_up(void)
{
    const char *json = "{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 2, "
                       "\"tp_colls\": 20, \"dp_colls\": 30}";
    dl_config c;
    char err[256];
    CU_ASSERT_FATAL(dl_config_parse(&c, json, "inline", err, sizeof err) == 0);
    const dl_params models[] = {{0.02, 0, 1, NULL}, {0.05, 0.05, 0, NULL}, {0.05, 0.05, 2, NULL}};
    const long cuts[] = {0, 1, 140, 141, 399, 401};
    for (size_t m = 0; m < 3; m++) {
        dl_study whole = {.L = &c.layout, .P = models[m], .rounds = 401, .seed = 42,
                          .rng = "taus2", .threads = 2, .keep_rounds = 1};
        CU_ASSERT_FATAL(dl_study_run(&whole, err, sizeof err) == 0);
        long dead = 0, events = 0, syncs = 0, skips = 0, first = -1, rows_differ = 0;
        for (int k = 0; k + 1 < 6; k++) {
            dl_study part = whole;
            part.first = cuts[k];
            part.count = cuts[k + 1] - cuts[k];
            part.per_round = NULL;
            CU_ASSERT_FATAL(dl_study_run(&part, err, sizeof err) == 0);
            dead += part.deadlocks;
            events += part.events;
            syncs += part.syncs;
            skips += part.skips;
            if (first < 0)
                first = part.first_deadlock;
            for (long r = 0; r < part.count; r++) {
                const dl_round_result *x = &part.per_round[r], *y = &whole.per_round[part.first + r];
                rows_differ += x->deadlock != y->deadlock || x->events != y->events ||
                               x->steps != y->steps || x->deadlock_event != y->deadlock_event;
            }
            free(part.per_round);
        }
        CU_ASSERT(whole.deadlocks > 0 && whole.deadlocks < whole.rounds);
        CU_ASSERT_EQUAL(dead, whole.deadlocks);
        CU_ASSERT_EQUAL(events, whole.events);
        CU_ASSERT_EQUAL(syncs, whole.syncs);
        CU_ASSERT_EQUAL(skips, whole.skips);
        CU_ASSERT_EQUAL(first, whole.first_deadlock);
        CU_ASSERT_EQUAL(rows_differ, 0);
        free(whole.per_round);
    }
    const long bad[][2] = {{-1, 10}, {395, 10}, {0, -3}, {401, 1}};
    for (int k = 0; k < 4; k++) {
        dl_study part = {.L = &c.layout, .P = models[0], .rounds = 401, .seed = 42,
                         .rng = "taus2", .first = bad[k][0], .count = bad[k][1]};
        CU_ASSERT_EQUAL(dl_study_run(&part, err, sizeof err), -1);
    }
    dl_config_free(&c);
}

/* One group of G GPUs and n collectives, single queue: a round deadlocks as
 * soon as one GPU skips, so the ratio is 1-(1-p)^(G(n-1)) up to O(p^2). */
static void test_one_group_analytic(void)
{
    const struct { int g, n; double p; long rounds; } cases[] = {
        {4, 10, 0.01, 8000}, {8, 161, 1e-4, 8000}, {3, 50, 0.002, 8000}};
    for (size_t k = 0; k < 3; k++) {
        dl_layout L;
        one_group(&L, cases[k].g, cases[k].n);
        dl_params P = {.disorder = cases[k].p, .slots = 1};
        dl_study S = study(&L, P, cases[k].rounds, 0);
        double expect = 1 - pow(1 - cases[k].p, cases[k].g * (cases[k].n - 1));
        double lo, hi;
        dl_binom_ci(S.deadlocks, S.rounds, 0.95, &lo, &hi);
        CU_ASSERT(lo <= expect && expect <= hi);
        if (!(lo <= expect && expect <= hi))
            fprintf(stderr, "\n  case %zu: analytic %.4f outside [%.4f, %.4f]\n", k, expect, lo, hi);
        dl_layout_free(&L);
    }
}

static void test_binomial_interval(void)
{
    double lo, hi;
    dl_binom_ci(0, 100, 0.95, &lo, &hi);
    CU_ASSERT_EQUAL(lo, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(hi, 1 - pow(0.025, 1.0 / 100), 1e-9);
    dl_binom_ci(100, 100, 0.95, &lo, &hi);
    CU_ASSERT_EQUAL(hi, 1.0);
    CU_ASSERT_DOUBLE_EQUAL(lo, pow(0.025, 1.0 / 100), 1e-9);
    dl_binom_ci(5, 100, 0.95, &lo, &hi); /* the textbook Clopper-Pearson values */
    CU_ASSERT_DOUBLE_EQUAL(lo, 0.01643, 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(hi, 0.11284, 1e-4);
    dl_binom_ci(5000, 10000, 0.95, &lo, &hi); /* where GSL's own inverse gives up */
    CU_ASSERT_DOUBLE_EQUAL(lo, 0.49016, 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(hi, 0.50984, 1e-4);
    CU_ASSERT_DOUBLE_EQUAL(lo + hi, 1.0, 1e-9);
    dl_binom_ci(1, 1000000, 0.95, &lo, &hi);
    CU_ASSERT(lo > 0 && lo < 1e-6 && hi > 1e-6 && hi < 1e-5);
    dl_binom_ci(0, 0, 0.95, &lo, &hi);
    CU_ASSERT(lo == 0.0 && hi == 1.0);
}

/* --verify: igraph agrees with the detector on every event of a study. */
static void test_verify_study(void)
{
    const char *json = "{\"model\": \"sync\", \"gpus\": 4, \"groups\": ["
                       "{\"members\": [0,1], \"colls\": 3}, {\"members\": [1,2,3], \"colls\": 3},"
                       "{\"members\": [0,3], \"colls\": 2}, {\"members\": [0,1,2,3], \"colls\": 2}]}";
    dl_config c;
    char err[256];
    CU_ASSERT_FATAL(dl_config_parse(&c, json, "inline", err, sizeof err) == 0);
    dl_params P = {.disorder = 0.3, .sync = 0.3, .slots = 0};
    dl_study S = {.L = &c.layout, .P = P, .rounds = 300, .seed = 3, .rng = "taus2",
                  .threads = 2, .verify = 1};
    CU_ASSERT_FATAL(dl_study_run(&S, err, sizeof err) == 0);
    CU_ASSERT(S.deadlocks > 10 && S.deadlocks < 290);
    CU_ASSERT_EQUAL(S.mismatches, 0);
    dl_config_free(&c);
}

/* The resource model with one slot is the single-queue model, and the
 * reference's config names mean what ours do. */
static void test_model_equivalences(void)
{
    const char *single = "{\"model\": \"Single\", \"grouping_policy\": \"Megatron\","
                         "\"tp_group_size\": 2, \"dp_group_size\": 3, \"pp_group_size\": 2,"
                         "\"coll_cnt_per_tp_group\": 15, \"coll_cnt_per_dp_group\": 25,"
                         "\"disorder_prob\": 0.01, \"sync_prob\": 0}";
    const char *resource = "{\"model\": \"resource\", \"slots\": 1, \"tp\": 2, \"dp\": 3, \"pp\": 2,"
                           "\"tp_colls\": 15, \"dp_colls\": 25, \"disorder\": 0.01}";
    dl_config a, b;
    char err[256];
    CU_ASSERT_FATAL(dl_config_parse(&a, single, "single", err, sizeof err) == 0);
    CU_ASSERT_FATAL(dl_config_parse(&b, resource, "resource", err, sizeof err) == 0);
    dl_params pa = {a.disorder, a.model->syncs ? a.sync : 0, a.slots, NULL};
    dl_params pb = {b.disorder, b.model->syncs ? b.sync : 0, b.slots, NULL};
    CU_ASSERT_EQUAL(pa.slots, 1);
    CU_ASSERT_EQUAL(pb.slots, 1);
    dl_study x = study(&a.layout, pa, 500, 2), y = study(&b.layout, pb, 500, 2);
    CU_ASSERT(x.deadlocks > 0);
    CU_ASSERT_EQUAL(x.deadlocks, y.deadlocks);
    CU_ASSERT_EQUAL(x.events, y.events);
    dl_config_free(&a);
    dl_config_free(&b);
}

int dl_register_montecarlo_tests(void)
{
    CU_pSuite s = CU_add_suite("montecarlo", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "same seed, any thread count", test_thread_count_independence) ||
        !CU_add_test(s, "shares of a study add up to it", test_shares_add_up) ||
        !CU_add_test(s, "one group: 1-(1-p)^(G(n-1))", test_one_group_analytic) ||
        !CU_add_test(s, "Clopper-Pearson interval", test_binomial_interval) ||
        !CU_add_test(s, "--verify agrees on every event", test_verify_study) ||
        !CU_add_test(s, "resource K=1 = single; reference names", test_model_equivalences))
        return -1;
    return 0;
}
