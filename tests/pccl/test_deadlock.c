/* Deadlock freedom (paper 001, Sec. 6.1, host edition): G in {2, 3, 4, 8}
 * emulated GPUs invoke 8 collectives of mixed kinds, sizes and types, each in
 * its own random order per iteration, optionally with a device
 * synchronization after each invocation (the daemon must quit voluntarily for
 * it to return).  With NCCL these orders hang; here every iteration must
 * complete with exact results.  A watchdog aborts the run, printing the
 * statistics, if 60 s pass without an iteration completing. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/host/host.h" /* the scheduler's decisions, called directly below */
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

/* Opposite (or random) orders with spin thresholds that no wait runs out of
 * in the test's time (2^40 polls): only a ring neighbour's posted wait makes
 * a rank yield (scheduler.h, pccl_peer_waits).  Without it, the two ranks'
 * heads wait for each other until the watchdog fails the run. */
static void no_threshold_run(int G, int blocks, int opposite, int sync, const char *cross)
{
    pt_rand_opts o;
    pt_rand_stats st;
    char name[128];
    snprintf(name, sizeof name, "%s orders%s, %d gpus, %d block%s, no threshold%s%s", opposite ? "opposite" : "random",
             sync ? " + sync" : "", G, blocks, blocks > 1 ? "s" : "", cross ? ", PCCL_CROSS_POLLS=" : "",
             cross ? cross : "");
    if (cross) setenv("PCCL_CROSS_POLLS", cross, 1); /* read at init */
    pt_rand_defaults(&o, name, G, ck_scaled(30, 5));
    o.opposite = opposite;
    o.sync = sync;
    o.seed = (uint64_t)(100 + G);
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
    if (cross) unsetenv("PCCL_CROSS_POLLS");
    pt_end();
}

static void test_no_threshold_2(void) { no_threshold_run(2, 1, 1, 0, NULL); }
static void test_no_threshold_3(void) { no_threshold_run(3, 1, 1, 0, NULL); }
static void test_no_threshold_2_blocks(void) { no_threshold_run(2, 3, 1, 0, NULL); }
/* The paper's test itself: each rank its own random order per iteration */
static void test_no_threshold_random_4(void) { no_threshold_run(4, 1, 0, 0, NULL); }
static void test_no_threshold_random_3_sync(void) { no_threshold_run(3, 1, 0, 1, NULL); }
/* The GPUs' default: a wait reads its neighbours' posts from 1024 polls on
 * (the host's default is 64: a poll here is a sched_yield) */
static void test_no_threshold_cross_late(void)
{
    no_threshold_run(2, 1, 1, 0, "1024");
    no_threshold_run(4, 1, 0, 0, "1024");
}

/* PCCL_CROSS_POLLS out of range or not a number: refused at init, by name */
static void test_cross_polls_bad(void)
{
    static const char *const bad[] = {"-1", "soon", "2000000000000"};
    pt_begin("PCCL_CROSS_POLLS: bad values refused by name", 10);
    pt_check_env_refused("PCCL_CROSS_POLLS", bad, 3);
    pt_end();
}

/* A rank that issues X only once its Y completed, beside a rank that issued
 * X then Y (a dependency on the host, as a pipeline stage's), with spin
 * thresholds no wait runs out of: rank 0's head X waits for rank 1, which
 * cannot run X before Y completes, and whose Y waits for rank 0.  Rank 1
 * posts that it cannot find X, and rank 0 yields X for Y (scheduler.h,
 * pccl_peer_waits).  Without that, pcclWait on rank 1's Y never returns and
 * the watchdog fails the run. */
#define DEP_COUNT 1000
static void test_issued_later(void)
{
    pt_begin("a rank that issues X after Y completes", 20);
    pcclConfig_t cfg = pt_config(1, 1024);
    cfg.spinHead = cfg.spinBase = cfg.spinMin = 1L << 40;
    cfg.sticky = 1;
    pcclComm_t c[2];
    if (pt_init(c, 2, &cfg)) { pt_end(); return; }
    static int32_t in[2][2][DEP_COUNT], out[2][2][DEP_COUNT];
    int id[2][2];
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++) {
            PT_OK(pcclRegisterAllReduce(c[r], DEP_COUNT, pcclInt32, pcclSum, 0, &id[r][k]));
            for (int i = 0; i < DEP_COUNT; i++) in[r][k][i] = (r + 1) * (k + 1) * 1000 + i;
        }
    enum { X, Y };
    PT_OK(pcclRun(c[0], id[0][X], in[0][X], out[0][X], NULL, NULL));
    PT_OK(pcclRun(c[0], id[0][Y], in[0][Y], out[0][Y], NULL, NULL));
    PT_OK(pcclRun(c[1], id[1][Y], in[1][Y], out[1][Y], NULL, NULL));
    PT_OK(pcclWait(c[1], id[1][Y]));
    PT_OK(pcclRun(c[1], id[1][X], in[1][X], out[1][X], NULL, NULL));
    for (int r = 0; r < 2; r++) PT_OK(pcclWaitAll(c[r]));
    int wrong = 0;
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < DEP_COUNT; i++) wrong += out[r][k][i] != in[0][k][i] + in[1][k][i];
    PT_CHECK(wrong == 0, "%d wrong elements", wrong);
    pcclStats_t s;
    PT_OK(pcclDeviceSynchronize(c[0])); /* the counts are published when a launch ends */
    PT_OK(pcclCommGetStats(c[0], &s));
    PT_CHECK(s.crossed > 0, "rank 0 never yielded for its neighbour's wait");
    pt_destroy(c, 2);
    pt_end();
}

/* The same dependency where the neighbour's wait cannot see it (the stall
 * of results/slice-x2/ call 21): rank 0 issues X (one block: block 0, alone
 * in flight) then Y (two blocks: blocks 2-3 or 4-5 of 6, alike on every
 * rank, run.c place_group); rank 1 issues Y, and X only once Y completed.
 * Rank 0's block 0 waits for X; rank 1's Y waits on other blocks, for rank
 * 0's Y, which only block 0 can fetch from rank 0's SQ.  No waiting block
 * has a neighbour waiting on its own block index, thresholds are 2^40 polls
 * and there is no slice: only block 0 fetching while it waits
 * (scheduler.h, pccl_fetch_waiting) lets Y run.  Without it rank 1's Y never
 * completes (the test gives up after 5 s and aborts). */
static void test_fetch_while_waiting(void)
{
    enum { NX = 2, NY = 32 }; /* Y: 32 floats, two loops of 16 (LL lines), two blocks */
    pt_begin("block 0 fetches what its SQ holds while its own collective waits", 30);
    pcclConfig_t cfg = pt_config(6, 256);
    cfg.spinHead = cfg.spinBase = cfg.spinMin = 1L << 40;
    cfg.sticky = 1;
    cfg.sliceUs = 0;
    pcclComm_t c[2];
    if (pt_init(c, 2, &cfg)) { pt_end(); return; }
    static float in[2][2][NY], out[2][2][NY];
    int id[2][2];
    enum { X, Y };
    for (int r = 0; r < 2; r++) {
        PT_OK(pcclRegisterAllReduce(c[r], NX, pcclFloat, pcclSum, 0, &id[r][X]));
        PT_OK(pcclRegisterAllReduce(c[r], NY, pcclFloat, pcclSum, 0, &id[r][Y]));
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < NY; i++) in[r][k][i] = (float)((r + 1) * 100 + k * 10 + i % 7);
    }
    const pccl_coll *dx = &c[0]->colls[id[0][X]].dev, *dy = &c[0]->colls[id[0][Y]].dev;
    int shaped = dx->used == 1 && dx->placed && dy->used == 2 && dy->placed;
    PT_CHECK(shaped, "X on %u block(s) (placed %d), Y on %u (placed %d): the test needs 1 and 2, placed", dx->used,
             dx->placed, dy->used, dy->placed);
    if (!shaped) {
        pt_destroy(c, 2);
        pt_end();
        return;
    }
    PT_OK(pcclRun(c[0], id[0][X], in[0][X], out[0][X], NULL, NULL));
    PT_OK(pcclRun(c[0], id[0][Y], in[0][Y], out[0][Y], NULL, NULL));
    PT_OK(pcclRun(c[1], id[1][Y], in[1][Y], out[1][Y], NULL, NULL));
    int done = 0;
    double t0 = ck_now();
    while (!done && ck_now() - t0 < 5.0) {
        PT_OK(pcclTest(c[1], id[1][Y], &done));
        if (!done) usleep(1000);
    }
    PT_CHECK(done, "rank 1's Y not complete after 5 s: rank 0's Y stayed in its SQ behind X's wait");
    /* either way X now: where Y was stuck, it releases rank 0's block 0, and Y follows */
    PT_OK(pcclRun(c[1], id[1][X], in[1][X], out[1][X], NULL, NULL));
    for (int r = 0; r < 2; r++) PT_OK(pcclWaitAll(c[r]));
    int wrong = 0;
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < (k == X ? NX : NY); i++) wrong += out[r][k][i] != in[0][k][i] + in[1][k][i];
    PT_CHECK(wrong == 0, "%d wrong elements", wrong);
    pcclStats_t s;
    PT_OK(pcclDeviceSynchronize(c[0])); /* the counts are published when a launch ends */
    PT_OK(pcclCommGetStats(c[0], &s));
    PT_CHECK(s.waitFetches >= 1 && s.crossed == 0, "rank 0: %llu fetched while waiting, %llu yields for a neighbour",
             (unsigned long long)s.waitFetches, (unsigned long long)s.crossed);
    pt_destroy(c, 2);
    pt_end();
}

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

/* The order of a neighbour's posted wait (scheduler.h, pccl_peer_waits),
 * decided on a block's state directly: block 0 of one of 2 ranks (one block
 * each) waits in collective 3's invocation `inv`, with collectives 0 and 5
 * queued behind it (the queue full, so nothing more may come from the SQ);
 * its GPU completed collective 7's invocation `had7`; the neighbour posted the
 * wait `v`.  Returns whether the block yields; *posted is what it then
 * posted itself. */
static int yields_to(uint64_t inv, uint64_t had7, uint64_t v, uint64_t *posted)
{
    static char mine[PCCL_ARENA_HDR], peer[PCCL_ARENA_HDR];
    static int32_t tq[3];
    static uint64_t fin[8];
    static pccl_gpu G;
    static pccl_blk S;
    memset(mine, 0, sizeof mine);
    memset(peer, 0, sizeof peer);
    memset(fin, 0, sizeof fin);
    memset(&G, 0, sizeof G);
    memset(&S, 0, sizeof S);
    fin[7] = had7;
    G.nranks = 2;
    G.k.blocks = 1;
    G.k.depth = 3;
    G.fin = fin;
    G.arena = mine;
    G.prev_arena = G.next_arena = peer; /* 2 ranks: one neighbour both ways */
    tq[0] = PCCL_TASK(3, 0), tq[1] = PCCL_TASK(0, 0), tq[2] = PCCL_TASK(5, 0);
    S.tq = tq;
    S.tq_len = 3;
    S.pos = 0;
    S.cur = 3;
    S.act.inv = inv;
    *pccl_waits_word(peer, 0) = v;
    int y = pccl_peer_waits(&S, &G, 0);
    *posted = *pccl_waits_word(mine, 0);
    return y;
}

/* A neighbour's wait for an older invocation, or one as old of a lower id,
 * ends ours at once; for a newer one, of whatever id, it does not: back to
 * back, same-shaped collectives issued in turn (0 1 2 3 0 ...), a neighbour a
 * step ahead waits in the next invocation of collective 0 while we finish 3,
 * and by id alone we yielded 3 (preemption storms on 4 H200s,
 * results/x4-h200 calls 10-12).  Numbers compare modulo 2^16.  An older one
 * we do not have: "cannot run it yet" only where our GPU has not completed it. */
static void test_wait_order(void)
{
    pt_begin("the order of a neighbour's wait", 10);
    uint64_t p;
    PT_CHECK(!yields_to(5, 0, PCCL_WAIT_WORD(1, 0, 6), &p) && p == 0,
             "yielded to collective 0's next invocation (6), ours is 5 (posted %llx)", (unsigned long long)p);
    PT_CHECK(yields_to(5, 0, PCCL_WAIT_WORD(1, 0, 5), &p), "did not yield to invocation 5 of collective 0 (ours: 3)");
    PT_CHECK(yields_to(5, 0, PCCL_WAIT_WORD(6, 0, 4), &p), "did not yield to collective 5's older invocation 4");
    PT_CHECK(!yields_to(5, 0, PCCL_WAIT_WORD(6, 0, 5), &p), "yielded to invocation 5 of collective 5 (ours: 3)");
    PT_CHECK(yields_to(0x10001, 0, PCCL_WAIT_WORD(6, 0, 0xffff), &p),
             "did not yield to invocation 0xffff, older than our 0x10001 modulo 2^16");
    PT_CHECK(!yields_to(0xffff, 0, PCCL_WAIT_WORD(1, 0, 0x10000), &p),
             "yielded to invocation 0x10000, newer than 0xffff");
    /* older, and not here (collective 7), not had yet: we cannot run it yet, and say so */
    PT_CHECK(!yields_to(5, 3, PCCL_WAIT_WORD(8, 0, 4), &p), "yielded to collective 7, which it does not have");
    PT_CHECK(PCCL_WAIT_ID1(p) == 4 && PCCL_WAIT_LACKS1(p) == 8 && PCCL_WAIT_INV(p) == 5,
             "posted %llx, not: waits for 3 (invocation 5), cannot run 7 yet", (unsigned long long)p);
    /* completed here already: the neighbour is behind us, nothing to say */
    PT_CHECK(!yields_to(5, 4, PCCL_WAIT_WORD(8, 0, 4), &p) && p == 0,
             "said it cannot run invocation 4 of collective 7, which it had (posted %llx)", (unsigned long long)p);
    PT_CHECK(!yields_to(5, 0x10004, PCCL_WAIT_WORD(8, 0, 4), &p) && p == 0,
             "said it cannot run invocation 4 of collective 7, having had 0x10004 (posted %llx)", (unsigned long long)p);
    /* a neighbour that cannot run ours waits for one we have: yield, its number aside */
    PT_CHECK(yields_to(5, 0, PCCL_WAIT_WORD(6, 4, 9), &p), "did not yield to a neighbour that cannot run ours yet");
    pt_end();
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
        !CU_add_test(s, "X issued after Y completes, no threshold: a neighbour's wait", test_issued_later) ||
        !CU_add_test(s, "Y in rank 0's SQ behind X's wait, on other blocks: block 0 fetches while waiting",
                     test_fetch_while_waiting) ||
        !CU_add_test(s, "random orders, no threshold, 4 gpus: a neighbour's wait", test_no_threshold_random_4) ||
        !CU_add_test(s, "random orders + sync, no threshold, 3 gpus: a neighbour's wait",
                     test_no_threshold_random_3_sync) ||
        !CU_add_test(s, "opposite and random orders, no threshold, a neighbour's wait read from 1024 polls on",
                     test_no_threshold_cross_late) ||
        !CU_add_test(s, "random order, 3 gpus, 3 blocks", test_random_3_blocks3) ||
        !CU_add_test(s, "opposite orders, library default knobs", test_defaults) ||
        !CU_add_test(s, "random order + sync, library default knobs", test_defaults_sync) ||
        !CU_add_test(s, "a neighbour's wait: the older invocation first, then the lower id", test_wait_order) ||
        !CU_add_test(s, "PCCL_CROSS_POLLS: bad values refused by name", test_cross_polls_bad))
        return -1;
    return 0;
}
