/* test_matching.c: matching calls by order (sim/matching.c, the engine's
 * call slots): a swap on one communicator is corrupt, not a deadlock; the
 * same swap on every GPU is no mismatch; one communicator per collective is
 * identity event for event; a study counts corrupt rounds. */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "tests.h"
#include "../sim/engine.h"
#include "../sim/matching.h"
#include "../sim/montecarlo.h"

/* Two GPUs, one group {0,1} with collectives 0 and 1: one communicator. */
static void one_comm(dl_layout *L)
{
    static const int both[] = {0, 1};
    dl_layout_init(L, 2);
    dl_layout_add_group(L, both, 2, 2, NULL, 0);
    CU_ASSERT_EQUAL_FATAL(dl_layout_finish(L, DL_ORDER_INTERLEAVE, NULL, 0), 0);
}

static void test_swap_is_corrupt(void)
{
    dl_layout L;
    one_comm(&L);
    dl_matching M;
    CU_ASSERT_FATAL(dl_matching_init(&M, &L, NULL, NULL, 0) == 0);
    CU_ASSERT_EQUAL(M.ncomms, 1);
    for (int m = 0; m < 2; m++) {
        dl_params P = {.slots = 1, .match = m ? &M : NULL};
        dl_round *R = dl_round_new(&L, &P);
        dl_round_invoke(R, 0, 0);
        dl_round_invoke(R, 1, 1);
        dl_round_invoke(R, 0, 1);
        int st = dl_round_invoke(R, 1, 0);
        if (!m) { /* identity: the single queue deadlocks */
            CU_ASSERT_EQUAL(st, DL_DEADLOCK);
            CU_ASSERT_EQUAL(dl_round_verdict(R), DL_DEADLOCK);
        } else { /* order: call 0 meets call 0 (A with B), call 1 (B with A) */
            CU_ASSERT_EQUAL(st, DL_COMPLETED);
            CU_ASSERT_EQUAL(dl_round_verdict(R), DL_CORRUPT);
            CU_ASSERT_EQUAL(R->nmixed, 2);
            CU_ASSERT_EQUAL(R->mix_slot, 0);
            CU_ASSERT_EQUAL(R->mix_gpu[0], 0);
            CU_ASSERT_EQUAL(R->mix_coll[0], 0);
            CU_ASSERT_EQUAL(R->mix_gpu[1], 1);
            CU_ASSERT_EQUAL(R->mix_coll[1], 1);
        }
        dl_round_free(R);
    }
    /* Both GPUs invoke B first: each call meets the same collective. */
    dl_params P = {.slots = 1, .match = &M};
    dl_round *R = dl_round_new(&L, &P);
    dl_round_invoke(R, 0, 1);
    dl_round_invoke(R, 1, 1);
    dl_round_invoke(R, 0, 0);
    CU_ASSERT_EQUAL(dl_round_invoke(R, 1, 0), DL_COMPLETED);
    CU_ASSERT_EQUAL(dl_round_verdict(R), DL_COMPLETED);
    CU_ASSERT_EQUAL(R->nmixed, 0);
    dl_round_free(R);
    dl_matching_free(&M);
    dl_layout_free(&L);
}

/* A communicator may only hold collectives of one member list. */
static void test_bad_communicators(void)
{
    static const int a[] = {0, 1}, b[] = {1, 2};
    dl_layout L;
    dl_layout_init(&L, 3);
    dl_layout_add_group(&L, a, 2, 1, NULL, 0);
    dl_layout_add_group(&L, b, 2, 1, NULL, 0);
    CU_ASSERT_EQUAL_FATAL(dl_layout_finish(&L, DL_ORDER_INTERLEAVE, NULL, 0), 0);
    const int shared[2] = {0, 0};
    dl_matching M;
    char err[128] = "";
    CU_ASSERT_EQUAL(dl_matching_init(&M, &L, shared, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "collectives 0 and 1 share a communicator but not"));
    dl_layout_free(&L);
}

/* One communicator per collective: matching by order is identity, event for
 * event, on random rounds of every model (the exact stream). */
static void test_per_collective_is_identity(void)
{
    gsl_rng *a = gsl_rng_alloc(gsl_rng_taus2), *b = gsl_rng_alloc(gsl_rng_taus2);
    const int slots[] = {1, 0, 2, 3};
    long rounds = 0, dead = 0, differ = 0;
    for (unsigned long seed = 1; seed <= 4000; seed++) {
        gsl_rng_set(a, seed);
        dl_layout L;
        dl_test_random_layout(&L, a, 6, 4);
        int *per = malloc((size_t)L.ncolls * sizeof *per);
        for (int c = 0; c < L.ncolls; c++)
            per[c] = c;
        dl_matching M;
        CU_ASSERT_FATAL(dl_matching_init(&M, &L, per, NULL, 0) == 0);
        dl_params P = {.disorder = 0.05 + 0.4 * gsl_rng_uniform(a), .slots = slots[seed % 4]};
        P.sync = seed % 2 ? 0.1 + 0.3 * gsl_rng_uniform(a) : 0;
        gsl_rng_memcpy(b, a);
        dl_round *R = dl_round_new(&L, &P);
        dl_params Q = P;
        Q.match = &M;
        dl_round *S = dl_round_new(&L, &Q);
        int x = dl_round_run(R, a, NULL), y = dl_round_run(S, b, NULL);
        differ += x != y || R->events != S->events || R->step != S->step ||
                  R->ncycle != S->ncycle ||
                  memcmp(R->cycle, S->cycle, (size_t)R->ncycle * sizeof *R->cycle) ||
                  dl_round_verdict(S) == DL_CORRUPT;
        rounds++;
        dead += x == DL_DEADLOCK;
        dl_round_free(R);
        dl_round_free(S);
        dl_matching_free(&M);
        free(per);
        dl_layout_free(&L);
    }
    CU_ASSERT_EQUAL(differ, 0);
    CU_ASSERT(dead * 10 > rounds && dead * 10 < 9 * rounds);
    gsl_rng_free(a);
    gsl_rng_free(b);
}

/* A study on the one-communicator layout with disorder 0.5: the rounds whose
 * GPUs invoke in opposite orders deadlock under identity and are corrupt
 * under order, the same rounds (same streams), about half of them. */
static void test_study_counts_corrupt(void)
{
    dl_layout L;
    one_comm(&L);
    dl_matching M;
    CU_ASSERT_FATAL(dl_matching_init(&M, &L, NULL, NULL, 0) == 0);
    long dl[2], co[2];
    for (int m = 0; m < 2; m++) {
        dl_study S = {.L = &L, .P = {.disorder = 0.5, .slots = 1, .match = m ? &M : NULL},
                      .rounds = 4000, .seed = 9, .threads = 2};
        CU_ASSERT_FATAL(dl_study_run(&S, NULL, 0) == 0);
        dl[m] = S.deadlocks;
        co[m] = S.corrupts;
    }
    CU_ASSERT_EQUAL(co[0], 0);
    CU_ASSERT_EQUAL(dl[1], 0);
    CU_ASSERT_EQUAL(co[1], dl[0]);
    CU_ASSERT(dl[0] > 1800 && dl[0] < 2200);
    dl_matching_free(&M);
    dl_layout_free(&L);
}

int dl_register_matching_tests(void)
{
    CU_pSuite s = CU_add_suite("matching", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "a swap on one communicator is corrupt", test_swap_is_corrupt) ||
        !CU_add_test(s, "communicators need one member list", test_bad_communicators) ||
        !CU_add_test(s, "one communicator per collective = identity", test_per_collective_is_identity) ||
        !CU_add_test(s, "a study counts corrupt rounds", test_study_counts_corrupt))
        return -1;
    return 0;
}
