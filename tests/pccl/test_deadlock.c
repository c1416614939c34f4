/* Deadlock freedom (paper 001, Sec. 6.1, host edition): G in {2, 3, 4, 8}
 * emulated GPUs invoke 8 collectives of mixed kinds, sizes and types, each in
 * its own random order per iteration, optionally with a device
 * synchronization after each invocation (the daemon must quit voluntarily for
 * it to return).  With NCCL these orders hang; here every iteration must
 * complete with exact results.  A watchdog aborts the run, printing the
 * statistics, if 60 s pass without an iteration completing. */
#include <stdlib.h>

#include "harness.h"

static void run(pt_rand_opts *o, int want_preempt, int want_quits)
{
    pt_rand_stats st;
    pt_begin(o->name, 600); /* the random-order run arms its own 60 s watchdog */
    if (pt_random_order(o, &st) == 0) {
        if (want_preempt)
            PT_CHECK(st.preemptions > 0, "%s: no preemption in %d iterations of opposite orders", o->name,
                     o->iters);
        if (want_quits)
            PT_CHECK(st.quits_min > 0, "%s: a rank's daemon never quit although it synchronized after every "
                                       "invocation", o->name);
    }
    pt_end();
}

static void random_g(int G, int iters, int sync)
{
    pt_rand_opts o;
    char name[64];
    snprintf(name, sizeof name, "random order, %d gpus%s", G, sync ? ", sync" : "");
    pt_rand_defaults(&o, name, G, iters);
    o.sync = sync;
    o.seed = (uint64_t)(G * 10 + sync);
    run(&o, 0, sync);
}

static void test_random_2(void) { random_g(2, ck_scaled(300, 20), 0); }
static void test_random_3(void) { random_g(3, ck_scaled(200, 20), 0); }
static void test_random_4(void) { random_g(4, ck_scaled(150, 15), 0); }
static void test_random_8(void) { random_g(8, ck_scaled(60, 6), 0); }
static void test_random_2_sync(void) { random_g(2, ck_scaled(200, 20), 1); }
static void test_random_3_sync(void) { random_g(3, ck_scaled(100, 10), 1); }
static void test_random_4_sync(void) { random_g(4, ck_scaled(100, 10), 1); }
static void test_random_8_sync(void) { random_g(8, ck_scaled(20, 3), 1); }

static void opposite(int G, int sync)
{
    pt_rand_opts o;
    char name[64];
    snprintf(name, sizeof name, "opposite orders, %d gpus%s", G, sync ? ", sync" : "");
    pt_rand_defaults(&o, name, G, ck_scaled(50, 5));
    o.opposite = 1;
    o.sync = sync;
    run(&o, 1, sync);
}

/* Opposite orders with spin thresholds that no wait runs out of in the
 * test's time (2^40 polls): only a ring neighbour's posted wait makes a rank
 * yield (scheduler.h, pccl_peer_waits).  Without it, the two ranks' heads
 * wait for each other until the watchdog fails the run. */
static void no_threshold(int G, int blocks)
{
    pt_rand_opts o;
    pt_rand_stats st;
    char name[80];
    snprintf(name, sizeof name, "opposite orders, %d gpus, %d block%s, no threshold", G, blocks,
             blocks > 1 ? "s" : "");
    pt_rand_defaults(&o, name, G, ck_scaled(30, 5));
    o.opposite = 1;
    o.blocks = blocks;
    o.spin_head = o.spin_base = o.spin_min = 1L << 40;
    o.sticky = 1;
    o.watchdog_s = 20;
    pt_begin(o.name, 600);
    if (pt_random_order(&o, &st) == 0) {
        PT_CHECK(st.crossed > 0, "%s: no yield for a neighbour's wait", o.name);
        PT_CHECK(st.crossed == st.preemptions, "%s: %llu preemptions, %llu of them for a neighbour's wait: "
                 "the others ran out a threshold of 2^40 polls", o.name, (unsigned long long)st.preemptions,
                 (unsigned long long)st.crossed);
    }
    pt_end();
}

static void test_no_threshold_2(void) { no_threshold(2, 1); }
static void test_no_threshold_3(void) { no_threshold(3, 1); }
static void test_no_threshold_2_blocks(void) { no_threshold(2, 3); }

static void test_opposite_2(void) { opposite(2, 0); }
static void test_opposite_4(void) { opposite(4, 0); }
static void test_opposite_3_sync(void) { opposite(3, 1); }

/* Several blocks per GPU: each block preempts on its own. */
static void test_random_3_blocks3(void)
{
    pt_rand_opts o;
    pt_rand_defaults(&o, "random order, 3 gpus, 3 blocks", 3, ck_scaled(100, 10));
    o.blocks = 3;
    o.seed = 77;
    run(&o, 0, 0);
}

/* The library's own default knobs (spin thresholds, stickiness, quit and
 * relaunch delays): slow on 2 host cores, so few iterations. */
static void library_defaults(pt_rand_opts *o)
{
    o->chunk = -1;
    o->spin_head = o->spin_base = o->spin_min = -1;
    o->sticky = -1;
    o->quit_us = o->relaunch_us = -1;
}

static void test_defaults(void)
{
    pt_rand_opts o;
    pt_rand_defaults(&o, "opposite orders, 2 gpus, library defaults", 2, ck_scaled(20, 3));
    o.opposite = 1;
    library_defaults(&o);
    run(&o, 1, 0);
}

static void test_defaults_sync(void)
{
    pt_rand_opts o;
    pt_rand_defaults(&o, "random order, 3 gpus, sync, library defaults", 3, ck_scaled(10, 2));
    o.sync = 1;
    library_defaults(&o);
    run(&o, 0, 1);
}

int pt_register_deadlock(void)
{
    CU_pSuite s = CU_add_suite("deadlock", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "random order, 2 gpus", test_random_2) ||
        !CU_add_test(s, "random order, 3 gpus", test_random_3) ||
        !CU_add_test(s, "random order, 4 gpus", test_random_4) ||
        !CU_add_test(s, "random order, 8 gpus", test_random_8) ||
        !CU_add_test(s, "random order + device sync, 2 gpus", test_random_2_sync) ||
        !CU_add_test(s, "random order + device sync, 3 gpus", test_random_3_sync) ||
        !CU_add_test(s, "random order + device sync, 4 gpus", test_random_4_sync) ||
        !CU_add_test(s, "random order + device sync, 8 gpus", test_random_8_sync) ||
        !CU_add_test(s, "opposite orders, 2 gpus: preempts", test_opposite_2) ||
        !CU_add_test(s, "opposite orders, 4 gpus: preempts", test_opposite_4) ||
        !CU_add_test(s, "opposite orders + device sync, 3 gpus: preempts, quits", test_opposite_3_sync) ||
        !CU_add_test(s, "opposite orders, no threshold, 2 gpus: a neighbour's wait", test_no_threshold_2) ||
        !CU_add_test(s, "opposite orders, no threshold, 3 gpus: a neighbour's wait", test_no_threshold_3) ||
        !CU_add_test(s, "opposite orders, no threshold, 3 blocks: a neighbour's wait", test_no_threshold_2_blocks) ||
        !CU_add_test(s, "random order, 3 gpus, 3 blocks", test_random_3_blocks3) ||
        !CU_add_test(s, "opposite orders, library default knobs", test_defaults) ||
        !CU_add_test(s, "random order + sync, library default knobs", test_defaults_sync))
        return -1;
    return 0;
}
