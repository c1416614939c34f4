/* test_reference.c: --semantics reference (sim/reference.c), the authors'
 * simulator's rules on dlsim's rounds.
 *
 * The agreement with the authors' simulator itself needs that simulator
 * (Python, not in this repository): scripts/reference-check measures it
 * (results/reference-check.md).  Here, without it:
 *
 *  1. a round worked out by hand: a GPU that submits twice to one group
 *     drops a collective, and a later submission trips the batch check in a
 *     round that the exact semantics completes;
 *  2. the sync rules over-approximate the exact ones on the same streams:
 *     every round the exact semantics deadlocks, the reference rules
 *     deadlock too, and with consistent orders (no disorder) the reference
 *     rules still flag rounds that the exact semantics completes;
 *  3. the shortcut that leaves out skip-free components of aligned layouts
 *     gives the verdict and counts of playing every GPU, round by round;
 *  4. a resource limit that no GPU can reach is the plain sync rules;
 *  5. split play (each component alone) = the whole round in one lockstep;
 *  6. the nodrop ablation flags only same-group inversions, which the exact
 *     single queue deadlocks on too. */
#include <stdio.h>
#include <stdlib.h>

#include "../sim/config.h"
#include "../sim/play.h"
#include "../sim/reference.h"
#include "../sim/rng.h"
#include "../sim/streams.h"
#include "tests.h"

static long rounds_of(long full)
{
    return getenv("DL_TEST_QUICK") ? full / 4 : full;
}

static void load(dl_config *c, const char *json)
{
    char err[512];
    int rc = dl_config_parse(c, json, "inline", err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_FATAL(rc == 0);
}

static dl_params params(const dl_config *c)
{
    return (dl_params){.disorder = c->disorder, .sync = c->model->syncs ? c->sync : 0.0,
                       .slots = c->slots};
}

/* GPU 0 in group A (4 collectives), GPU 1 in A and B (1), GPU 2 in B; no
 * disorder.  Step 0: A0 on 0 and 1 completes, 2 submits B0.  Step 1: 0
 * submits A1 (pending), 1 submits B0 (completes B).  Step 2: 0 submits A2
 * while A1 is pending: dropped; 1 submits A1 (A's batch cleared).  Step 3:
 * 0 submits A3, 1 submits A2: two collectives in A's batch. */
static void test_drop_then_mixed_batch(void)
{
    dl_config c;
    load(&c, "{\"model\": \"single\", \"gpus\": 3, \"groups\": [{\"members\": [0, 1], \"colls\": 4},"
             " {\"members\": [1, 2], \"colls\": 1}], \"disorder\": 0}");
    dl_params P = params(&c);
    dl_ref *X = dl_ref_new(&c.layout, &P);
    dl_streams *S = dl_streams_new(dl_rng_type("taus2"), c.layout.ngpus, &P);
    CU_ASSERT(dl_ref_run(X, S, 1, 0) == DL_DEADLOCK);
    CU_ASSERT_EQUAL(X->drops, 1);
    CU_ASSERT_EQUAL(X->steps, 4);
    CU_ASSERT_EQUAL(X->deadlock_event, 9); /* 3 + 2 + 2 + 2 */
    CU_ASSERT_EQUAL(X->skips, 0);

    /* the exact semantics completes the same round */
    dl_player *pl = dl_player_new(&c.layout, &P, dl_rng_type("taus2"), 1, 0);
    CU_ASSERT(dl_player_round(pl, 0, 1, NULL) == DL_COMPLETED);
    dl_player_free(pl);
    dl_streams_free(S);
    dl_ref_free(X);
    dl_config_free(&c);
}

/* The same with B given 3 collectives: GPU 2 drops one too, and no batch
 * ever mixes, so the round completes with collectives never submitted. */
static void test_drops_can_complete(void)
{
    dl_config c;
    load(&c, "{\"model\": \"single\", \"gpus\": 3, \"groups\": [{\"members\": [0, 1], \"colls\": 3},"
             " {\"members\": [1, 2], \"colls\": 3}], \"disorder\": 0}");
    dl_params P = params(&c);
    dl_ref *X = dl_ref_new(&c.layout, &P);
    dl_streams *S = dl_streams_new(dl_rng_type("taus2"), c.layout.ngpus, &P);
    CU_ASSERT(dl_ref_run(X, S, 1, 0) == DL_COMPLETED);
    CU_ASSERT_EQUAL(X->drops, 2);
    CU_ASSERT_EQUAL(X->invocations, 12);
    CU_ASSERT_EQUAL(X->steps, 6);
    dl_streams_free(S);
    dl_ref_free(X);
    dl_config_free(&c);
}

/* The sync check event by event.  GPU 1 in group A (a0, a1) only, GPU 2 in
 * A and B (b0), GPU 0 in B.  GPU 2 invokes b0 and syncs: it hangs, waiting
 * for GPU 0.  GPU 1 invokes a0 and syncs: it hangs waiting for GPU 2, but no
 * hung GPU waits for GPU 1, so no deadlock (GPU 0's b0 will free them).  In
 * the second case GPUs 1 and 2 invoke a1 and a0 and sync: a two-GPU cycle. */
static void test_sync_check_events(void)
{
    dl_config c;
    load(&c, "{\"model\": \"sync\", \"gpus\": 3, \"groups\": [{\"members\": [1, 2], \"colls\": 2},"
             " {\"members\": [0, 2], \"colls\": 1}], \"disorder\": 0, \"sync\": 0.5}");
    dl_params P = params(&c);
    dl_ref *X = dl_ref_new(&c.layout, &P);
    /* GPU 2's plan: a0 b0 a1 */
    dl_ref_begin(X);
    CU_ASSERT(dl_ref_apply(X, 2, 1) == DL_RUNNING); /* b0 */
    CU_ASSERT(dl_ref_apply(X, 2, DL_DRAW_SYNC) == DL_RUNNING);
    CU_ASSERT(X->hung[2]);
    CU_ASSERT(dl_ref_apply(X, 1, 0) == DL_RUNNING); /* a0 */
    CU_ASSERT(dl_ref_apply(X, 1, DL_DRAW_SYNC) == DL_RUNNING); /* waits for 2, none waits for 1 */
    CU_ASSERT(X->hung[1] && X->nhung == 2);
    CU_ASSERT(dl_ref_apply(X, 0, 0) == DL_RUNNING); /* b0 completes: GPU 2 is free */
    CU_ASSERT(!X->hung[2] && X->hung[1]);
    CU_ASSERT(dl_ref_apply(X, 2, 0) == DL_RUNNING); /* a0 completes: GPU 1 is free */
    CU_ASSERT(X->nhung == 0);

    dl_ref_begin(X);
    CU_ASSERT(dl_ref_apply(X, 1, 1) == DL_RUNNING); /* a1 */
    CU_ASSERT(dl_ref_apply(X, 1, DL_DRAW_SYNC) == DL_RUNNING);
    CU_ASSERT(dl_ref_apply(X, 2, 0) == DL_RUNNING); /* a0 */
    CU_ASSERT(dl_ref_apply(X, 2, DL_DRAW_SYNC) == DL_DEADLOCK);
    dl_ref_free(X);
    dl_config_free(&c);
}

/* Plays `rounds` rounds of c in both semantics from the same streams. */
typedef struct both {
    long exact, ref, exact_not_ref;
} both;

static both play_both(const dl_config *c, long rounds)
{
    dl_params P = params(c);
    dl_player *pe = dl_player_new(&c->layout, &P, dl_rng_type("taus2"), 7, 0);
    dl_player *pr = dl_player_new(&c->layout, &P, dl_rng_type("taus2"), 7, 0);
    dl_player_use_reference(pr, DL_SEM_REFERENCE);
    both b = {0};
    for (long r = 0; r < rounds; r++) {
        int de = dl_player_round(pe, r, 0, NULL) == DL_DEADLOCK;
        int dr = dl_player_round(pr, r, 0, NULL) == DL_DEADLOCK;
        b.exact += de;
        b.ref += dr;
        b.exact_not_ref += de && !dr;
    }
    dl_player_free(pe);
    dl_player_free(pr);
    return b;
}

static void test_sync_over_approximates(void)
{
    static const char *cases[] = {
        "{\"model\": \"sync\", \"tp\": 2, \"dp\": 4, \"pp\": 2, \"tp_colls\": 20, \"dp_colls\": 60,"
        " \"disorder\": 1e-2, \"sync\": 1e-1}",
        "{\"model\": \"sync\", \"gpus\": 8, \"groups\": [{\"members\": [0, 1, 2], \"colls\": 20},"
        " {\"members\": [2, 3, 4], \"colls\": 40}, {\"members\": [4, 5, 6], \"colls\": 20},"
        " {\"members\": [6, 7, 0], \"colls\": 40}, {\"members\": [1, 3, 5, 7], \"colls\": 20}],"
        " \"disorder\": 1e-2, \"sync\": 1e-1}",
    };
    for (int k = 0; k < 2; k++) {
        dl_config c;
        load(&c, cases[k]);
        long n = rounds_of(4000);
        both b = play_both(&c, n);
        CU_ASSERT_EQUAL(b.exact_not_ref, 0);
        CU_ASSERT(b.exact > n / 100);
        CU_ASSERT(b.ref > b.exact + n / 100); /* strictly more, by more than noise */
        dl_config_free(&c);
    }
}

/* Consistent orders: the exact semantics never deadlocks; the reference's
 * intersection still flags GPUs that merely hang behind slower peers. */
static void test_sync_false_positives_without_disorder(void)
{
    dl_config c;
    load(&c, "{\"model\": \"sync\", \"gpus\": 8, \"groups\": [{\"members\": [0, 1, 2], \"colls\": 20},"
             " {\"members\": [2, 3, 4], \"colls\": 40}, {\"members\": [4, 5, 6], \"colls\": 20},"
             " {\"members\": [6, 7, 0], \"colls\": 40}, {\"members\": [1, 3, 5, 7], \"colls\": 20}],"
             " \"disorder\": 0, \"sync\": 1e-1}");
    long n = rounds_of(4000);
    both b = play_both(&c, n);
    CU_ASSERT_EQUAL(b.exact, 0);
    CU_ASSERT(b.ref > n / 50); /* 8.95% at 2,000 rounds (results/reference-check.md) */
    dl_config_free(&c);
}

/* Uneven free layout: GPUs in one group run ahead, drop collectives, and
 * trip the batch check in every round, with no disorder at all. */
static void test_single_uneven_always_flagged(void)
{
    dl_config c;
    load(&c, "{\"model\": \"single\", \"gpus\": 6, \"groups\": [{\"members\": [0, 1, 2], \"colls\": 10},"
             " {\"members\": [2, 3, 4], \"colls\": 30}, {\"members\": [4, 5, 0], \"colls\": 10}],"
             " \"disorder\": 0}");
    both b = play_both(&c, 200);
    CU_ASSERT_EQUAL(b.exact, 0);
    CU_ASSERT_EQUAL(b.ref, 200);
    dl_config_free(&c);
}

static void test_shortcut_equals_full_play(void)
{
    static const char *cases[] = {
        "{\"model\": \"single\", \"tp\": 2, \"dp\": 3, \"pp\": 4, \"tp_colls\": 10, \"dp_colls\": 30,"
        " \"disorder\": 5e-4}",
        "{\"model\": \"single\", \"tp\": 4, \"dp\": 2, \"pp\": 3, \"tp_colls\": 20, \"dp_colls\": 20,"
        " \"disorder\": 5e-4, \"order\": \"sequential\"}",
    };
    for (int k = 0; k < 2; k++) {
        dl_config c;
        load(&c, cases[k]);
        dl_params P = params(&c);
        dl_ref *A = dl_ref_new(&c.layout, &P), *B = dl_ref_new(&c.layout, &P);
        CU_ASSERT_FATAL(A->aligned == 1);
        B->aligned = 0; /* play every GPU */
        dl_streams *S = dl_streams_new(dl_rng_type("taus2"), c.layout.ngpus, &P);
        long n = rounds_of(4000), dead = 0, bad = 0;
        for (long r = 0; r < n; r++) {
            int a = dl_ref_run(A, S, 3, r);
            int b = dl_ref_run(B, S, 3, r);
            dead += a == DL_DEADLOCK;
            bad += a != b || A->steps != B->steps || A->events != B->events ||
                   A->invocations != B->invocations || A->skips != B->skips ||
                   A->deadlock_event != B->deadlock_event || A->drops != B->drops;
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(dead > n / 20 && dead < n - n / 20);
        dl_streams_free(S);
        dl_ref_free(A);
        dl_ref_free(B);
        dl_config_free(&c);
    }
}

/* Split play (each component alone, the default with several) gives the
 * verdict and counts of the whole round in one lockstep, round by round, in
 * every rule set: 3D layouts whose stages often deadlock at once, so that a
 * stage played later deadlocks earlier and the round is played again up to
 * it, and a free layout of uneven components. */
static void test_split_equals_whole_round(void)
{
    static const char *cases[] = {
        "{\"model\": \"sync\", \"tp\": 2, \"dp\": 3, \"pp\": 4, \"tp_colls\": 20, \"dp_colls\": 60,"
        " \"disorder\": 3e-2, \"sync\": 5e-2}",
        "{\"model\": \"single\", \"tp\": 2, \"dp\": 3, \"pp\": 4, \"tp_colls\": 10, \"dp_colls\": 30,"
        " \"disorder\": 2e-3}",
        "{\"model\": \"resource\", \"slots\": 2, \"tp\": 2, \"dp\": 2, \"pp\": 4, \"tp_colls\": 20,"
        " \"dp_colls\": 60, \"disorder\": 1e-2, \"sync\": 2e-2}",
        "{\"model\": \"sync\", \"gpus\": 9, \"groups\": [{\"members\": [0, 4], \"colls\": 30},"
        " {\"members\": [4, 8, 2], \"colls\": 10}, {\"members\": [1, 3], \"colls\": 20},"
        " {\"members\": [3, 5], \"colls\": 40}, {\"members\": [6, 7], \"colls\": 25}],"
        " \"disorder\": 5e-2, \"sync\": 1e-1}",
    };
    for (int k = 0; k < 4; k++) {
        dl_config c;
        load(&c, cases[k]);
        dl_params P = params(&c);
        dl_ref *A = dl_ref_new(&c.layout, &P), *B = dl_ref_new(&c.layout, &P);
        CU_ASSERT_FATAL(A->split == 1 && A->ncomps >= 3);
        B->split = 0; /* the whole round in one lockstep */
        dl_streams *S = dl_streams_new(dl_rng_type("taus2"), c.layout.ngpus, &P);
        long n = rounds_of(2000), dead = 0, bad = 0;
        for (long r = 0; r < n; r++) {
            int a = dl_ref_run(A, S, 9, r);
            int b = dl_ref_run(B, S, 9, r);
            dead += a == DL_DEADLOCK;
            bad += a != b || A->steps != B->steps || A->events != B->events ||
                   A->invocations != B->invocations || A->syncs != B->syncs ||
                   A->skips != B->skips || A->deadlock_event != B->deadlock_event ||
                   A->drops != B->drops;
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(dead > n / 20 && dead < n - n / 20);
        CU_ASSERT(A->replays > n / 100); /* the replay path ran */
        CU_ASSERT_EQUAL(B->replays, 0);
        if (getenv("DL_TEST_VERBOSE") || bad || A->replays <= n / 100)
            fprintf(stderr, "\n  case %d: %ld of %ld rounds differ, %ld deadlocked, %ld replayed\n", k,
                    bad, n, dead, A->replays);
        dl_streams_free(S);
        dl_ref_free(A);
        dl_ref_free(B);
        dl_config_free(&c);
    }
}

/* The nodrop ablation on the hand-worked round above: nothing is dropped,
 * group A's members submit a0..a3 in the same order, and the round
 * completes. */
static void test_nodrop_completes_hand_round(void)
{
    dl_config c;
    load(&c, "{\"model\": \"single\", \"gpus\": 3, \"groups\": [{\"members\": [0, 1], \"colls\": 4},"
             " {\"members\": [1, 2], \"colls\": 1}], \"disorder\": 0}");
    dl_params P = params(&c);
    dl_ref *X = dl_ref_new(&c.layout, &P);
    dl_streams *S = dl_streams_new(dl_rng_type("taus2"), c.layout.ngpus, &P);
    CU_ASSERT(dl_ref_run(X, S, 1, 0) == DL_DEADLOCK); /* with drops */
    dl_ref_set_nodrop(X, 1);
    CU_ASSERT(dl_ref_run(X, S, 1, 0) == DL_COMPLETED);
    CU_ASSERT_EQUAL(X->drops, 0);
    CU_ASSERT_EQUAL(X->invocations, 10); /* 4 + 5 + 1 */
    /* by hand: GPU 1's k-th and GPU 0's k-th submission to A disagree */
    dl_ref_begin(X);
    CU_ASSERT(dl_ref_apply(X, 0, 1) == DL_RUNNING); /* GPU 0: a1 first */
    CU_ASSERT(dl_ref_apply(X, 1, 0) == DL_DEADLOCK); /* GPU 1: a0 as its first */
    dl_streams_free(S);
    dl_ref_free(X);
    dl_config_free(&c);
}

/* Without drops the single-queue rules flag a round only for two members
 * whose k-th submissions to a group differ: a same-group inversion, which
 * the exact single queue deadlocks on too (each waits for the other's
 * earlier part).  So on the same streams every flagged round deadlocks in
 * the exact semantics, and the exact semantics deadlocks more on a free
 * layout, where a cycle can run through several groups. */
static void test_nodrop_within_exact(void)
{
    dl_config c;
    load(&c, "{\"model\": \"single\", \"gpus\": 8, \"groups\": [{\"members\": [0, 1, 2], \"colls\": 20},"
             " {\"members\": [2, 3, 4], \"colls\": 40}, {\"members\": [4, 5, 6], \"colls\": 20},"
             " {\"members\": [6, 7, 0], \"colls\": 40}, {\"members\": [1, 3, 5, 7], \"colls\": 20}],"
             " \"disorder\": 1e-2}");
    dl_params P = params(&c);
    dl_player *pe = dl_player_new(&c.layout, &P, dl_rng_type("taus2"), 7, 0);
    dl_player *pn = dl_player_new(&c.layout, &P, dl_rng_type("taus2"), 7, 0);
    dl_player_use_reference(pn, DL_SEM_REFERENCE_NODROP);
    long n = rounds_of(4000), exact = 0, nodrop = 0, outside = 0;
    for (long r = 0; r < n; r++) {
        int de = dl_player_round(pe, r, 0, NULL) == DL_DEADLOCK;
        int dn = dl_player_round(pn, r, 0, NULL) == DL_DEADLOCK;
        exact += de;
        nodrop += dn;
        outside += dn && !de;
    }
    CU_ASSERT_EQUAL(outside, 0);
    CU_ASSERT(nodrop > n / 20);
    CU_ASSERT(exact > nodrop + n / 100);
    if (getenv("DL_TEST_VERBOSE"))
        fprintf(stderr, "\n  nodrop %ld, exact %ld of %ld\n", nodrop, exact, n);
    dl_player_free(pe);
    dl_player_free(pn);
    dl_config_free(&c);
}

static void test_unreachable_limit_is_sync(void)
{
    dl_config c;
    load(&c, "{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 2, \"tp_colls\": 20, \"dp_colls\": 60,"
             " \"disorder\": 2e-2, \"sync\": 5e-2}");
    dl_params P = params(&c), Q = P;
    Q.slots = 1000; /* more than any GPU's collectives */
    dl_ref *A = dl_ref_new(&c.layout, &P), *B = dl_ref_new(&c.layout, &Q);
    dl_streams *S = dl_streams_new(dl_rng_type("taus2"), c.layout.ngpus, &P);
    long n = rounds_of(2000), bad = 0, dead = 0;
    for (long r = 0; r < n; r++) {
        int a = dl_ref_run(A, S, 5, r);
        int b = dl_ref_run(B, S, 5, r);
        dead += a == DL_DEADLOCK;
        bad += a != b || A->events != B->events;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(dead > 0);

    /* and a reachable one flags more */
    Q.slots = 2;
    dl_ref *C = dl_ref_new(&c.layout, &Q);
    long more = 0;
    for (long r = 0; r < n; r++) {
        more += dl_ref_run(C, S, 5, r) == DL_DEADLOCK;
    }
    CU_ASSERT(more > dead);
    dl_ref_free(C);
    dl_streams_free(S);
    dl_ref_free(A);
    dl_ref_free(B);
    dl_config_free(&c);
}

static void test_config_key(void)
{
    dl_config c;
    char err[512];
    load(&c, "{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 1, \"tp_colls\": 2, \"dp_colls\": 2,"
             " \"semantics\": \"reference\"}");
    CU_ASSERT_EQUAL(c.semantics, DL_SEM_REFERENCE);
    dl_config_free(&c);
    load(&c, "{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 1, \"tp_colls\": 2, \"dp_colls\": 2}");
    CU_ASSERT_EQUAL(c.semantics, DL_SEM_EXACT);
    dl_config_free(&c);
    CU_ASSERT(dl_config_parse(&c, "{\"model\": \"sync\", \"tp\": 2, \"dp\": 2, \"pp\": 1, \"tp_colls\": 2,"
                                  " \"dp_colls\": 2, \"semantics\": \"paper\"}",
                              "x.json", err, sizeof err) < 0);
    CU_ASSERT_STRING_EQUAL(err, "x.json: key 'semantics': unknown semantics 'paper' (known: exact, reference, reference-nodrop)");
}

int dl_register_reference_tests(void)
{
    CU_pSuite s = CU_add_suite("reference", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "dropped collective, then a mixed batch", test_drop_then_mixed_batch) ||
        !CU_add_test(s, "dropped collectives in a completed round", test_drops_can_complete) ||
        !CU_add_test(s, "sync check, event by event", test_sync_check_events) ||
        !CU_add_test(s, "sync rules flag every exact deadlock and more", test_sync_over_approximates) ||
        !CU_add_test(s, "sync rules flag rounds without disorder", test_sync_false_positives_without_disorder) ||
        !CU_add_test(s, "uneven free layout flagged in every round", test_single_uneven_always_flagged) ||
        !CU_add_test(s, "skip-free components left out = every GPU played", test_shortcut_equals_full_play) ||
        !CU_add_test(s, "split play = the whole round, round by round", test_split_equals_whole_round) ||
        !CU_add_test(s, "nodrop ablation: hand-worked round", test_nodrop_completes_hand_round) ||
        !CU_add_test(s, "nodrop ablation flags exact deadlocks only", test_nodrop_within_exact) ||
        !CU_add_test(s, "unreachable resource limit = sync rules", test_unreachable_limit_is_sync) ||
        !CU_add_test(s, "config key semantics", test_config_key))
        return -1;
    return 0;
}
