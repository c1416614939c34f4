/* Protocols (lib/proto_ll.h, lib/tune.c): the LL protocol forced on every
 * collective x op x type, in place and out of place, at the sizes the tuner
 * picks it for and past one slot (many loops, many pieces); in chaos mode
 * (preempted at every step, resumed in any order); in random invocation
 * orders; and the tuner's table.  Results are checked against plain
 * arithmetic (check.c), which the Simple protocol's runs match too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* lib/tune.c's tables (core.h declares them; the tests see only pccl.h). */
int pccl_pick_proto(int knob, int type, uint64_t bytes, int nranks);
int pccl_pick_algo(int knob, int type, uint64_t bytes, int nranks, int slots);
uint64_t pccl_pick_min_blocks(uint64_t bytes, uint64_t threads, int nranks, int algo, int proto, int host);

static void test_tuner(void)
{
    /* a forced protocol is kept at any size */
    CU_ASSERT_EQUAL(pccl_pick_proto(PCCL_PROTO_LL, 0, 1ull << 30, 8), PCCL_PROTO_LL);
    CU_ASSERT_EQUAL(pccl_pick_proto(PCCL_PROTO_SIMPLE, 0, 8, 2), PCCL_PROTO_SIMPLE);
    /* auto: LL for small messages, Simple for large ones and for one rank */
    for (int n = 2; n <= 64; n *= 2) {
        CU_ASSERT_EQUAL(pccl_pick_proto(PCCL_PROTO_AUTO, 0, 8, n), PCCL_PROTO_LL);
        CU_ASSERT_EQUAL(pccl_pick_proto(PCCL_PROTO_AUTO, 0, 64u << 20, n), PCCL_PROTO_SIMPLE);
    }
    CU_ASSERT_EQUAL(pccl_pick_proto(PCCL_PROTO_AUTO, 0, 8, 1), PCCL_PROTO_SIMPLE);
    /* the table's rows: LL to 256 KiB on 2-4 ranks, 128 KiB on 5-8, 64 KiB beyond */
    for (int n = 2; n <= 9; n++) {
        uint64_t lim = n <= 4 ? 256u << 10 : n <= 8 ? 128u << 10 : 64u << 10;
        CU_ASSERT_EQUAL(pccl_pick_proto(PCCL_PROTO_AUTO, 0, lim, n), PCCL_PROTO_LL);
        CU_ASSERT_EQUAL(pccl_pick_proto(PCCL_PROTO_AUTO, 0, lim + 1, n), PCCL_PROTO_SIMPLE);
    }
    /* direct: all-reduce only, on 2 ranks up to 2 MiB by default, on 3-8
     * up to 32 KiB, where the ring's slots hold a loop's n - 1; forced at any
     * size where it applies */
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_AUTO, 0, 8, 2, 4), PCCL_ALGO_DIRECT);
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_AUTO, 0, 2u << 20, 2, 4), PCCL_ALGO_DIRECT);
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_AUTO, 0, (2u << 20) + 1, 2, 4), PCCL_ALGO_RING);
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_AUTO, 0, 1u << 30, 2, 4), PCCL_ALGO_RING);
    for (int n = 3; n <= 5; n++) {
        CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_AUTO, 0, 8, n, 4), PCCL_ALGO_DIRECT);
        CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_AUTO, 0, 32u << 10, n, 4), PCCL_ALGO_DIRECT);
        CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_AUTO, 0, (32u << 10) + 1, n, 4), PCCL_ALGO_RING);
        CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_DIRECT, 0, 1u << 30, n, 4), PCCL_ALGO_DIRECT);
    }
    /* n - 1 received slots kept: 6 ranks need 5 slots; never past 8 ranks */
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_DIRECT, 0, 8, 6, 4), PCCL_ALGO_RING);
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_AUTO, 0, 8, 8, 4), PCCL_ALGO_RING);
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_AUTO, 0, 8, 8, 8), PCCL_ALGO_DIRECT);
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_DIRECT, 0, 8, 9, 64), PCCL_ALGO_RING);
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_DIRECT, 0, 8, 3, 2), PCCL_ALGO_DIRECT);
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_DIRECT, 0, 8, 4, 2), PCCL_ALGO_RING);
    for (int t = 1; t < pcclNumColls; t++)
        for (int n = 2; n <= 4; n++) CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_DIRECT, t, 8, n, 4), PCCL_ALGO_RING);
    /* the mesh: all-reduce on 2-8 ranks, forced only, at any size and any
     * count of slots; the ring elsewhere */
    for (int m = PCCL_ALGO_ONESHOT; m <= PCCL_ALGO_TWOSHOT; m++) {
        for (int n = 2; n <= 8; n++) {
            CU_ASSERT_EQUAL(pccl_pick_algo(m, 0, 8, n, 2), m);
            CU_ASSERT_EQUAL(pccl_pick_algo(m, 0, 1ull << 30, n, 4), m);
            for (int t = 1; t < pcclNumColls; t++) CU_ASSERT_EQUAL(pccl_pick_algo(m, t, 8, n, 4), PCCL_ALGO_RING);
        }
        CU_ASSERT_EQUAL(pccl_pick_algo(m, 0, 8, 9, 64), PCCL_ALGO_RING);
        CU_ASSERT_EQUAL(pccl_pick_algo(m, 0, 8, 1, 4), PCCL_ALGO_RING);
    }
    for (int n = 2; n <= 64; n *= 2)
        for (uint64_t b = 8; b <= (1ull << 30); b *= 4) {
            int a = pccl_pick_algo(PCCL_ALGO_AUTO, 0, b, n, 4);
            CU_ASSERT(a != PCCL_ALGO_ONESHOT && a != PCCL_ALGO_TWOSHOT);
        }
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_RING, 0, 8, 2, 4), PCCL_ALGO_RING);
    CU_ASSERT_EQUAL(pccl_pick_algo(PCCL_ALGO_RING, 0, 8, 4, 4), PCCL_ALGO_RING);
    /* blocks: one for small collectives on the GPU (up to 8 KiB, the direct
     * all-reduce on 3 ranks or more up to 2 KiB, 64 KiB on one rank), 4 x
     * 512 threads' worth above (8 for Simple on 3 ranks or more), and never
     * fewer as the size grows; the host backend keeps 4 */
    const int S = PCCL_PROTO_SIMPLE, L = PCCL_PROTO_LL, R = PCCL_ALGO_RING, D = PCCL_ALGO_DIRECT;
    for (int n = 2; n <= 8; n++) {
        CU_ASSERT_EQUAL(pccl_pick_min_blocks(8, 512, n, R, L, 0), 1);
        CU_ASSERT_EQUAL(pccl_pick_min_blocks(8u << 10, 512, n, R, L, 0), 1);
        CU_ASSERT_EQUAL(pccl_pick_min_blocks((8u << 10) + 1, 512, n, R, L, 0), 4);
        CU_ASSERT_EQUAL(pccl_pick_min_blocks(2u << 10, 512, n, D, L, 0), 1);
        CU_ASSERT_EQUAL(pccl_pick_min_blocks((2u << 10) + 1, 512, n, D, L, 0), n == 2 ? 1 : 4);
        CU_ASSERT_EQUAL(pccl_pick_min_blocks(512u << 10, 512, n, R, S, 0), n == 2 ? 4 : 8);
        CU_ASSERT_EQUAL(pccl_pick_min_blocks(512u << 10, 256, n, R, S, 0), n == 2 ? 8 : 16);
        CU_ASSERT_EQUAL(pccl_pick_min_blocks(512u << 10, 512, n, R, S, 1), 4);
    }
    CU_ASSERT_EQUAL(pccl_pick_min_blocks(64u << 10, 512, 1, R, S, 0), 1);
    CU_ASSERT_EQUAL(pccl_pick_min_blocks((64u << 10) + 1, 512, 1, R, S, 0), 4);
    CU_ASSERT_EQUAL(pccl_pick_min_blocks(8, 512, 1, R, S, 1), 4);
    CU_ASSERT_EQUAL(pccl_pick_min_blocks(8, 512, 3, D, L, 1), 4);
    for (int t = 0; t < pcclNumColls; t++)
        for (int n = 1; n <= 8; n++)
            for (uint64_t b = 8, prev = 1; b <= (1ull << 30); b *= 2) {
                int p = pccl_pick_proto(PCCL_PROTO_AUTO, t, b, n), a = pccl_pick_algo(PCCL_ALGO_AUTO, t, b, n, 4);
                uint64_t m = pccl_pick_min_blocks(b, 512, n, a, p, 0);
                CU_ASSERT(m >= prev);
                prev = m;
            }
    /* a threshold that grows with the size: once Simple, Simple above */
    for (int n = 2; n <= 8; n++) {
        int simple = 0;
        for (uint64_t b = 8; b <= (1ull << 30); b *= 2) {
            int p = pccl_pick_proto(PCCL_PROTO_AUTO, 0, b, n);
            CU_ASSERT(!simple || p == PCCL_PROTO_SIMPLE);
            simple |= p == PCCL_PROTO_SIMPLE;
        }
        CU_ASSERT(simple);
    }
}

/* LL forced: counts 1, 7 (units with a partial tail for every type size),
 * 1003; 3 blocks; and 256-byte chunks (many loops, all slots reused). */
static void test_ll_2gpu(void)
{
    static const size_t c[] = {1, 7, 1003};
    pt_correctness(2, 3, -1, PCCL_PROTO_LL, c, 3);
}
static void test_ll_3gpu_many_loops(void)
{
    static const size_t c[] = {7, 1003};
    pt_correctness(3, 2, 256, PCCL_PROTO_LL, c, 2);
}
static void test_ll_4gpu(void)
{
    static const size_t c[] = {1, 1003};
    pt_correctness(4, 1, -1, PCCL_PROTO_LL, c, 2);
}
/* Steps of many pieces (lib/host/proto_ll.c: 64 units, 512 bytes each):
 * 5003 elements in 8 KiB chunks (up to 16 pieces a step, several loops);
 * and an empty collective, whose steps carry only their flags. */
static void test_ll_large_and_empty(void)
{
    static const size_t c[] = {0, 5003};
    pt_correctness(3, 2, 8 << 10, PCCL_PROTO_LL, c, 2);
}
/* The same at the same sizes in Simple, the results of both checked
 * against the same arithmetic. */
static void test_simple_same_sizes(void)
{
    static const size_t c[] = {7, 1003};
    pt_correctness(3, 2, 256, PCCL_PROTO_SIMPLE, c, 2);
}

/* The direct all-reduce (2 ranks), forced through the environment, in both
 * protocols; and in chaos mode. */
static void test_direct(void)
{
    static const size_t c[] = {1, 7, 1003};
    pt_env k = pt_env_push("PCCL_ALGO", "direct");
    pt_correctness(2, 3, -1, PCCL_PROTO_LL, c, 3);
    pt_correctness(2, 1, 256, PCCL_PROTO_SIMPLE, c, 3);
    pt_chaos_matrix(2, 2, 256, -1, 1, PCCL_PROTO_LL, c + 1, 2, 1);
    pt_chaos_matrix(2, 2, 256, -1, 1, PCCL_PROTO_SIMPLE, c + 1, 2, 0);
    pt_env_pop(k);
}

/* The direct all-reduce on 3-5 ranks (each keeps a loop's n - 1 received
 * slots until it reduces all n in rank order): LL and Simple, one block and
 * several, chunks of 256 bytes (many loops, each slot reused), the fewest
 * slots that hold them (PCCL_SLOTS=2 on 3 ranks, 4 on 5), and chaos mode in
 * opposite orders. */
static void test_direct_n(void)
{
    static const size_t c[] = {1, 7, 1003};
    pt_env k = pt_env_push("PCCL_ALGO", "direct");
    pt_correctness(3, 2, -1, PCCL_PROTO_LL, c, 3);
    pt_correctness(4, 1, 256, PCCL_PROTO_LL, c, 3);
    pt_correctness(5, 3, 256, PCCL_PROTO_SIMPLE, c, 3);
    pt_env k2 = pt_env_push("PCCL_SLOTS", "2");
    pt_env k3 = pt_env_push("PCCL_INTERLEAVE", "1");
    pt_correctness(3, 2, 256, PCCL_PROTO_LL, c + 1, 2);
    pt_env_pop(k3);
    pt_env_pop(k2);
    pt_chaos_matrix(4, 2, 256, -1, 1, PCCL_PROTO_LL, c + 1, 2, 1);
    pt_chaos_matrix(3, 2, 256, -1, 1, PCCL_PROTO_SIMPLE, c + 1, 2, 1);
    pt_env_pop(k);
}

/* The mesh's all-reduce (every rank's input to every peer in one hop, or
 * a reduce-scatter then an all-gather, each in one): both algorithms on 2,
 * 3, 4, 5 and 8 ranks (8: the most, PCCL_MESH_MAX_RANKS), LL and Simple,
 * one block and several, chunks of 256 bytes (many loops, every connector's
 * slots reused; the two-shot's chunks of a short loop uneven), counts 0 to
 * 1003 (the two-shot's empty chunks at 1 and 7); chaos mode in opposite
 * orders; the fewest slots, 2. */
static void test_mesh(void)
{
    static const size_t c[] = {0, 1, 7, 1003};
    static const char *const algo[] = {"oneshot", "twoshot"};
    /* under the sanitizers (37 s of the TSan run in full) the 5- and 8-rank
     * runs and the first chaos matrix only with the optimized build */
    int full = !pt_under_tsan() && !ck_quick();
    for (int a = 0; a < 2; a++) {
        pt_env k = pt_env_push("PCCL_ALGO", algo[a]);
        pt_correctness(2, 2, -1, PCCL_PROTO_LL, c, 4);
        pt_correctness(3, 2, 256, PCCL_PROTO_LL, c, 4);
        pt_correctness(4, 1, 256, PCCL_PROTO_SIMPLE, c, 4);
        if (full) {
            pt_correctness(5, 3, -1, PCCL_PROTO_SIMPLE, c + 2, 2);
            pt_correctness(8, 2, 256, PCCL_PROTO_LL, c + 2, 2);
            pt_chaos_matrix(4, 2, 256, -1, 1, PCCL_PROTO_LL, c + 2, 2, 1);
        }
        pt_chaos_matrix(3, 2, 256, -1, 1, PCCL_PROTO_SIMPLE, c + 2, 2, 1);
        /* the fewest slots (2): the two-shot has two in flight to each peer a loop */
        pt_env k2 = pt_env_push("PCCL_SLOTS", "2");
        pt_env k3 = pt_env_push("PCCL_INTERLEAVE", "1");
        pt_correctness(3, 2, 256, PCCL_PROTO_LL, c + 3, 1);
        pt_env_pop(k3);
        pt_env_pop(k2);
        pt_env_pop(k);
    }
}

/* Each algorithm runs its own program: one invocation of an all-reduce of
 * one loop on 5 ranks takes 2 primitives on the mesh's one-shot, 3 on its
 * two-shot, 5 on the direct one (a send, then n - 1 receives) and 9 on the
 * ring (2 n - 1). */
static void test_mesh_steps(void)
{
    static const struct { int algo, steps; } k[] = {
        {PCCL_ALGO_ONESHOT, 2}, {PCCL_ALGO_TWOSHOT, 3}, {PCCL_ALGO_DIRECT, 5}, {PCCL_ALGO_RING, 9}};
    for (int i = 0; i < 4; i++) {
        pcclComm_t c[5];
        pcclConfig_t cfg = pt_config(1, -1);
        cfg.algo = k[i].algo;
        if (pt_init(c, 5, &cfg)) return;
        pcclStats_t before, after;
        PT_OK(pcclCommGetBlockStats(c[0], 0, &before));
        pt_case kc = {{pcclCollAllReduce, pcclInt32, pcclSum, 0, 16, 5}, 0, 0, 0};
        pt_run_cases(c, 5, &kc, 1, 41, 1, 0);
        PT_OK(pcclDeviceSynchronize(c[0]));
        PT_OK(pcclCommGetBlockStats(c[0], 0, &after));
        PT_CHECK(after.primitives - before.primitives == (uint64_t)k[i].steps, "algo %d: %llu primitives, not %d",
                 k[i].algo, (unsigned long long)(after.primitives - before.primitives), k[i].steps);
        pt_destroy(c, 5);
    }
}

/* Every rank of an all-reduce gets the same bits, where the reduction of
 * the same operands in another order would not: max and min of NaN and a
 * number, and of -0 and +0 (x > y ? x : y keeps the second of equals and
 * of unordered operands), and float sums whose rounding depends on the
 * order.  The direct algorithm reduces on every rank, in rank order (on 2
 * ranks PCCL_SWAP, on more PCCL_GATHER); the ring reduces each element on
 * one rank. */
static void same_bits(int n, int algo, pcclRedOp_t op)
{
    pcclComm_t c[4];
    pcclConfig_t cfg = pt_config(1, -1);
    cfg.algo = algo;
    if (pt_init(c, n, &cfg)) return;
    /* NaN, signed zeros, and sums whose rounding depends on the order */
    float in[4][6] = {{NAN, -0.0f, 0.0f, 1.0f, 1e8f, 0.1f},
                      {1.0f, 0.0f, -0.0f, NAN, 1.0f, 0.2f},
                      {-0.0f, NAN, 1.0f, 0.0f, -1e8f, 0.3f},
                      {0.0f, 1.0f, NAN, -0.0f, 1.0f, 0.7f}},
          out[4][6];
    int id[4];
    for (int r = 0; r < n; r++) PT_OK(pcclRegisterAllReduce(c[r], 6, pcclFloat32, op, 0, &id[r]));
    for (int r = 0; r < n; r++) PT_OK(pcclRun(c[r], id[r], in[r], out[r], NULL, NULL));
    for (int r = 0; r < n; r++) PT_OK(pcclWaitAll(c[r]));
    for (int r = 1; r < n; r++)
        for (int i = 0; i < 6; i++) {
            uint32_t b0, b1;
            memcpy(&b0, &out[0][i], 4);
            memcpy(&b1, &out[r][i], 4);
            PT_CHECK(b0 == b1, "%d ranks, algo %d op %d element %d: rank 0 got 0x%08x, rank %d 0x%08x", n, algo,
                     (int)op, i, b0, r, b1);
        }
    pt_destroy(c, n);
}
static void test_same_bits(void)
{
    for (int op = pcclSum; op <= pcclMin; op++)
        for (int n = 2; n <= 4; n++) {
            same_bits(n, PCCL_ALGO_DIRECT, (pcclRedOp_t)op);
            same_bits(n, PCCL_ALGO_RING, (pcclRedOp_t)op);
            same_bits(n, PCCL_ALGO_ONESHOT, (pcclRedOp_t)op);
            same_bits(n, PCCL_ALGO_TWOSHOT, (pcclRedOp_t)op);
        }
}

/* Chaos mode in LL: thresholds of 1-4 polls preempt a collective at nearly
 * every step, its context resumed in any order; groups dealt (LL). */
static void test_ll_chaos_3(void)
{
    static const size_t c[] = {7, 1003};
    pt_chaos_matrix(3, 2, 256, -1, 1, PCCL_PROTO_LL, c, 2, 0);
}
static void test_ll_chaos_4_opposite(void)
{
    static const size_t c[] = {301};
    pt_chaos_matrix(4, 3, 256, 1, 1, PCCL_PROTO_LL, c, 1, 1);
}

/* Random invocation orders (randorder.c) in LL, chosen through the
 * environment as a user would (PCCL_PROTO=ll). */
static void ll_random(int G, int chaos, int iters)
{
    char name[64];
    snprintf(name, sizeof name, "LL, random order, %d gpus%s", G, chaos ? ", chaos" : "");
    pt_env keep = pt_env_push("PCCL_PROTO", "ll");
    pt_rand_opts o;
    pt_rand_defaults(&o, name, G, iters);
    o.chaos = chaos;
    o.chunk = 256;
    o.seed = (uint64_t)(700 + G);
    pt_rand_stats st;
    pt_begin(name, 300);
    if (pt_random_order(&o, &st) == 0 && chaos) PT_CHECK(st.preemptions > 0, "%s: never preempted", name);
    pt_end();
    pt_env_pop(keep);
}
static void test_ll_random_3(void) { ll_random(3, -1, ck_scaled(60, 8)); }
/* The mesh's all-reduces in random orders with syncs, chaos on: two-shot
 * on 4 ranks, one-shot on 3 (PCCL_PROTO auto: LL at these sizes). */
static void mesh_random(const char *algo, int G, uint64_t seed)
{
    char name[64];
    snprintf(name, sizeof name, "%s, random order, chaos, %d gpus", algo, G);
    pt_env keep = pt_env_push("PCCL_ALGO", algo);
    pt_rand_opts o;
    pt_rand_defaults(&o, name, G, ck_scaled(40, 6));
    o.chaos = 1;
    o.chunk = 256;
    o.seed = seed;
    pt_rand_stats st;
    pt_begin(name, 300);
    if (pt_random_order(&o, &st) == 0) PT_CHECK(st.preemptions > 0, "%s: never preempted", name);
    pt_end();
    pt_env_pop(keep);
}
static void test_mesh_random(void)
{
    mesh_random("twoshot", 4, 811);
    mesh_random("oneshot", 3, 812);
}
static void test_ll_random_2_chaos(void) { ll_random(2, 1, ck_scaled(60, 8)); }

int pt_register_proto(void)
{
    CU_pSuite s = CU_add_suite("proto", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "tuner: LL small, Simple large, knob forces", test_tuner) ||
        !CU_add_test(s, "LL, 2 gpus, 3 blocks, all colls/ops/types, counts 1 7 1003", test_ll_2gpu) ||
        !CU_add_test(s, "LL, 3 gpus, chunk 256 (many loops)", test_ll_3gpu_many_loops) ||
        !CU_add_test(s, "LL, 4 gpus, 1 block", test_ll_4gpu) ||
        !CU_add_test(s, "LL, 3 gpus, count 0 and 5003 (many pieces)", test_ll_large_and_empty) ||
        !CU_add_test(s, "Simple, 3 gpus, chunk 256, the same counts", test_simple_same_sizes) ||
        !CU_add_test(s, "direct all-reduce, 2 gpus, LL and Simple, chaos", test_direct) ||
        !CU_add_test(s, "direct all-reduce, 3-5 gpus, LL and Simple, fewest slots, chaos", test_direct_n) ||
        !CU_add_test(s, "mesh all-reduce (oneshot, twoshot), 2-8 gpus, LL and Simple, chaos", test_mesh) ||
        !CU_add_test(s, "all-reduce on 5 gpus: 2, 3, 5, 9 primitives (oneshot, twoshot, direct, ring)", test_mesh_steps) ||
        !CU_add_test(s, "all-reduce, 2-4 gpus: every rank the same bits (NaN, signed zeros, rounding)", test_same_bits) ||
        !CU_add_test(s, "LL, chaos, 3 gpus, 2 blocks", test_ll_chaos_3) ||
        !CU_add_test(s, "LL, chaos, 4 gpus, opposite orders", test_ll_chaos_4_opposite) ||
        !CU_add_test(s, "LL, random order, 3 gpus", test_ll_random_3) ||
        !CU_add_test(s, "LL, random order, chaos, 2 gpus", test_ll_random_2_chaos) ||
        !CU_add_test(s, "mesh all-reduce, random order, chaos, 3-4 gpus", test_mesh_random))
        return -1;
    return 0;
}
