/* Chaos mode (config chaos = 1): spin thresholds of a few polls and a random
 * task-queue order, so that collectives are preempted mid-way all the time
 * and their saved contexts resumed in any order.  Every result must still be
 * exact. */
#include <stdlib.h>

#include "harness.h"

/* Every collective x op x type at a few counts, all in flight together. */
/* ilv: loops a block runs step by step together (PCCL_INTERLEAVE; -1: the
 * default); dyn: PCCL_DYNAMIC (groups claimed at run time, or dealt);
 * proto: PCCL_PROTO (these tests: Simple, whose groups are claimed; LL's are
 * dealt: test_proto.c); 1003 elements in 256-byte chunks give every block
 * many loops. */
void pt_chaos_matrix(int n, int blocks, long chunk, int ilv, int dyn, int proto, const size_t *counts, int ncounts,
                     int reverse_odd)
{
    const pcclDataType_t *types;
    int ntypes = pt_types(&types);
    char name[80];
    snprintf(name, sizeof name, "chaos matrix n=%d blocks=%d interleave=%d dynamic=%d proto=%d", n, blocks, ilv, dyn,
             proto);
    pt_begin(name, 120);
    pcclConfig_t cfg = pt_config(blocks, chunk);
    cfg.interleave = ilv;
    cfg.dynamic = dyn;
    cfg.proto = proto;
    cfg.chaos = 1;
    cfg.chaosSeed = 12345;
    cfg.maxColls = 4096;
    pcclComm_t comms[PT_MAX_RANKS];
    if (pt_init(comms, n, &cfg)) { pt_end(); return; }
    pt_case *cases = calloc(pcclNumTypes * 17, sizeof *cases);
    int salt = 0;
    for (int ci = 0; ci < ncounts && comms[0]; ci++) {
        int k = 0;
        for (int t = 0; t < ntypes; t++)
            for (int ct = 0; ct < pcclNumColls; ct++)
                for (int op = 0; op < (ck_has_op((pcclCollType_t)ct) ? pcclNumOps : 1); op++, salt++) {
                    pt_case *p = &cases[k++];
                    p->c = (ck_coll){(pcclCollType_t)ct, types[t], (pcclRedOp_t)op, salt % n, counts[ci], n};
                    p->inplace = salt & 1;
                    p->null_unused = (salt >> 1) & 1;
                }
        pt_run_cases(comms, n, cases, k, (uint64_t)(9000 + ci), 1, reverse_odd);
    }
    if (comms[0]) {
        pcclStats_t s;
        PT_OK(pcclDeviceSynchronize(comms[0]));
        PT_OK(pcclCommGetStats(comms[0], &s));
        PT_CHECK(s.preemptions > 0, "chaos mode never preempted (%llu primitives)",
                 (unsigned long long)s.primitives);
    }
    free(cases);
    pt_destroy(comms, n);
    pt_end();
}

static void test_matrix_3(void)
{
    static const size_t c[] = {7, 1003};
    pt_chaos_matrix(3, 2, 256, -1, 1, PCCL_PROTO_SIMPLE, c, 2, 0);
}

/* Groups dealt round robin instead of claimed (PCCL_DYNAMIC=0). */
static void test_matrix_3_static(void)
{
    static const size_t c[] = {1003};
    pt_chaos_matrix(3, 2, 256, -1, 0, PCCL_PROTO_SIMPLE, c, 1, 0);
}

/* As many loops in flight per block as the ring has slots (4) but one: the
 * most PCCL_INTERLEAVE allows (test_api: 4 is refused; it deadlocks). */
static void test_matrix_3_full_interleave(void)
{
    static const size_t c[] = {1003};
    pt_chaos_matrix(3, 2, 256, 3, 1, PCCL_PROTO_SIMPLE, c, 1, 0);
}

static void test_matrix_4_opposite(void)
{
    static const size_t c[] = {301};
    pt_chaos_matrix(4, 3, 256, 1, 1, PCCL_PROTO_SIMPLE, c, 1, 1); /* and loop by loop, 3 blocks claiming */
}

static void chaos_random(int G, int blocks, int sync, int iters)
{
    pt_rand_opts o;
    char name[64];
    snprintf(name, sizeof name, "chaos, random order, %d gpus, %d blocks%s", G, blocks, sync ? ", sync" : "");
    pt_rand_defaults(&o, name, G, iters);
    o.chaos = 1;
    o.blocks = blocks;
    o.sync = sync;
    o.chunk = 256; /* many loops: many preemption points */
    o.seed = (uint64_t)(100 + G);
    pt_rand_stats st;
    pt_begin(name, 600);
    if (pt_random_order(&o, &st) == 0)
        PT_CHECK(st.preemptions > 0, "%s: chaos mode never preempted", name);
    pt_end();
}

static void test_random_2(void) { chaos_random(2, 2, 0, ck_scaled(100, 10)); }
static void test_random_4(void) { chaos_random(4, 1, 0, ck_scaled(200, 10)); }
static void test_random_3_sync(void) { chaos_random(3, 1, 1, ck_scaled(100, 6)); }

int pt_register_chaos(void)
{
    CU_pSuite s = CU_add_suite("chaos", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "all colls/ops/types, 3 gpus, 2 blocks", test_matrix_3) ||
        !CU_add_test(s, "all colls/ops/types, 3 gpus, 2 blocks, static groups", test_matrix_3_static) ||
        !CU_add_test(s, "all colls/ops/types, 3 gpus, interleave = slots - 1", test_matrix_3_full_interleave) ||
        !CU_add_test(s, "all colls/ops/types, 4 gpus, opposite orders, no interleave", test_matrix_4_opposite) ||
        !CU_add_test(s, "random order, 2 gpus, 2 blocks", test_random_2) ||
        !CU_add_test(s, "random order, 4 gpus", test_random_4) ||
        !CU_add_test(s, "random order + device sync, 3 gpus", test_random_3_sync))
        return -1;
    return 0;
}
