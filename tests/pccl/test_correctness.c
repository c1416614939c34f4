/* Correctness: every collective x op x data type against the CPU reference,
 * on 1, 2, 3, 4 and 8 emulated GPUs, counts 1, 7, 1003 (and 0, and ones that
 * need many loops), in place and out of place, 1 and 3 blocks, small chunks
 * (many loops per collective) and the default.  Under TSan three types stand
 * for the ten (pt_types), and one for a test's own few (pt_tsan_types). */
#include <stdlib.h>

#include "harness.h"

/* Every (collective, op) of every type in `types` at `count`, both in place
 * and out of place; roots vary.  Returns the number of cases written. */
static int matrix(pt_case *out, int n, const pcclDataType_t *types, int ntypes, size_t count, int *salt)
{
    int k = 0;
    for (int t = 0; t < ntypes; t++)
        for (int ct = 0; ct < pcclNumColls; ct++)
            for (int op = 0; op < (ck_has_op((pcclCollType_t)ct) ? pcclNumOps : 1); op++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    pt_case *p = &out[k++];
                    p->c.type = (pcclCollType_t)ct;
                    p->c.dtype = types[t];
                    p->c.op = (pcclRedOp_t)op;
                    p->c.root = (*salt) % n;
                    p->c.count = count;
                    p->c.nranks = n;
                    p->priority = 0;
                    p->inplace = inplace;
                    p->null_unused = (*salt / 2) & 1;
                    (*salt)++;
                }
    return k;
}

#define MAX_CASES (pcclNumTypes * 17 * 2)

/* Runs the matrix for each count on one communicator of n ranks, in the
 * protocol `proto` (PCCL_CONFIG_UNSET: the environment's, else by size). */
static void run_proto(int n, int blocks, long chunk, const pcclDataType_t *types, int ntypes, const size_t *counts,
                      int ncounts, int proto)
{
    char name[96];
    snprintf(name, sizeof name, "correctness n=%d blocks=%d chunk=%ld proto=%d", n, blocks, chunk, proto);
    pt_begin(name, 120);
    pcclConfig_t cfg = pt_config(blocks, chunk);
    cfg.maxColls = 4096;
    cfg.proto = proto;
    pcclComm_t comms[PT_MAX_RANKS];
    if (pt_init(comms, n, &cfg)) { pt_end(); return; }
    pt_case *cases = calloc(MAX_CASES, sizeof *cases);
    int salt = 0;
    for (int i = 0; i < ncounts; i++) {
        int nc = matrix(cases, n, types, ntypes, counts[i], &salt);
        int bad = pt_run_cases(comms, n, cases, nc, (uint64_t)(n * 100 + blocks * 10 + i), 1, 0);
        if (bad) fprintf(stderr, "  (%s, count %zu: %d wrong)\n", name, counts[i], bad);
        if (!comms[0]) break; /* aborted by the runner */
    }
    pcclStats_t s;
    if (comms[0]) {
        /* (daemon ended first: see regressions, stats race) */
        PT_OK(pcclDeviceSynchronize(comms[0]));
        PT_OK(pcclCommGetStats(comms[0], &s));
        PT_CHECK(s.blocks == blocks, "stats.blocks %d, configured %d", s.blocks, blocks);
    }
    free(cases);
    pt_destroy(comms, n);
    pt_end();
}

static const size_t small_counts[] = {1, 7, 1003};

static void run_config(int n, int blocks, long chunk, const pcclDataType_t *types, int ntypes, const size_t *counts,
                       int ncounts)
{
    run_proto(n, blocks, chunk, types, ntypes, counts, ncounts, PCCL_CONFIG_UNSET);
}

void pt_correctness(int n, int blocks, long chunk, int proto, const size_t *counts, int ncounts)
{
    const pcclDataType_t *t;
    int nt = pt_types(&t);
    run_proto(n, blocks, chunk, t, nt, counts, ncounts, proto);
}

/* Every type (pt_types) at the small counts, the library's choice of protocol. */
static void run_all_types(int n, int blocks, long chunk)
{
    const pcclDataType_t *t;
    int nt = pt_types(&t);
    run_config(n, blocks, chunk, t, nt, small_counts, 3);
}

static void test_1gpu(void) { run_all_types(1, 1, -1); }
static void test_2gpu_many_loops(void) { run_all_types(2, 1, 256); }
static void test_2gpu_3blocks(void) { run_all_types(2, 3, -1); }
static void test_3gpu_3blocks_many_loops(void) { run_all_types(3, 3, 256); }
static void test_4gpu(void) { run_all_types(4, 1, -1); }
static void test_4gpu_3blocks_many_loops(void) { run_all_types(4, 3, 256); }

static void test_8gpu(void)
{
    static const pcclDataType_t t[] = {pcclUint8, pcclInt32, pcclFloat16, pcclFloat32};
    static const size_t c[] = {1, 1003};
    run_config(8, 1, 256, t, pt_tsan_types(4), c, 2);
}

/* Several loops with the default (4 KiB) chunk. */
static void test_large_counts(void)
{
    static const pcclDataType_t t[] = {pcclInt32, pcclFloat64, pcclBfloat16};
    static const size_t c[] = {30011};
    run_config(3, 2, -1, t, pt_tsan_types(3), c, 1);
}

/* count 0 is legal in NCCL: every collective completes and touches nothing. */
static void test_count_zero(void)
{
    static const pcclDataType_t t[] = {pcclInt32};
    static const size_t c[] = {0};
    run_config(3, 2, -1, t, 1, c, 1);
}

/* The same collective, invoked again and again (its connector step counters
 * carry over between invocations), with fresh inputs each time. */
static void test_repeated(void)
{
    pt_begin("correctness repeated", 120);
    pcclConfig_t cfg = pt_config(2, 256);
    pcclComm_t comms[3];
    if (pt_init(comms, 3, &cfg)) { pt_end(); return; }
    pt_case cases[] = {
        {{pcclCollAllReduce, pcclInt64, pcclSum, 0, 517, 3}, 0, 0, 0},
        {{pcclCollAllGather, pcclUint8, pcclSum, 0, 333, 3}, 0, 1, 0},
        {{pcclCollReduceScatter, pcclFloat32, pcclMax, 0, 129, 3}, 0, 0, 0},
        {{pcclCollReduce, pcclInt8, pcclProd, 2, 1001, 3}, 0, 0, 1},
        {{pcclCollBroadcast, pcclFloat16, pcclSum, 1, 77, 3}, 0, 1, 0},
    };
    pt_run_cases(comms, 3, cases, 5, 42, ck_scaled(40, 4), 0);
    pt_destroy(comms, 3);
    pt_end();
}

int pt_register_correctness(void)
{
    CU_pSuite s = CU_add_suite("correctness", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "1 gpu, all types/colls/ops, counts 1 7 1003", test_1gpu) ||
        !CU_add_test(s, "2 gpus, 1 block, chunk 256 (many loops)", test_2gpu_many_loops) ||
        !CU_add_test(s, "2 gpus, 3 blocks", test_2gpu_3blocks) ||
        !CU_add_test(s, "3 gpus, 3 blocks, chunk 256", test_3gpu_3blocks_many_loops) ||
        !CU_add_test(s, "4 gpus, 1 block", test_4gpu) ||
        !CU_add_test(s, "4 gpus, 3 blocks, chunk 256", test_4gpu_3blocks_many_loops) ||
        !CU_add_test(s, "8 gpus, 4 types (TSan: 1), chunk 256", test_8gpu) ||
        !CU_add_test(s, "3 gpus, count 30011, default chunk (many loops)", test_large_counts) ||
        !CU_add_test(s, "count 0", test_count_zero) ||
        !CU_add_test(s, "repeated invocations", test_repeated))
        return -1;
    return 0;
}
