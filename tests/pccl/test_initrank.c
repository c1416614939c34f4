/* pcclCommInitRank from threads of one process sharing a pcclGetUniqueId;
 * bad rank, nranks and ids rejected. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct {
    pcclUniqueId id;
    int nranks, rank, use_config;
    int blocks, odd_knob;       /* with use_config: blocks (0: pt_config's 2); the knob set apart (below) */
    pcclComm_t comm;
    pcclResult_t init, run;
    int bad_count, bad_rank, wrong;
    char msg[512];
} rank_arg;

/* The knob an odd rank sets apart from the others' defaults. */
enum { ODD_NONE, ODD_DYNAMIC_OFF, ODD_PROTO_LL, ODD_ALGO_RING };

/* A rank's whole life: join, register, run a few collectives, check, leave. */
static void *rank_main(void *p)
{
    rank_arg *a = p;
    pcclConfig_t cfg = pt_config(a->blocks ? a->blocks : 2, 512);
    if (a->odd_knob == ODD_DYNAMIC_OFF) cfg.dynamic = 0;
    if (a->odd_knob == ODD_PROTO_LL) cfg.proto = PCCL_PROTO_LL;
    if (a->odd_knob == ODD_ALGO_RING) cfg.algo = PCCL_ALGO_RING;
    a->init = a->use_config ? pcclCommInitRankConfig(&a->comm, a->nranks, a->id, a->rank, &cfg)
                            : pcclCommInitRank(&a->comm, a->nranks, a->id, a->rank);
    if (a->init != pcclSuccess) {
        snprintf(a->msg, sizeof a->msg, "%s", pcclGetLastError(NULL));
        return NULL;
    }
    int n = -1, r = -1;
    pcclCommCount(a->comm, &n);
    pcclCommUserRank(a->comm, &r);
    a->bad_count = n != a->nranks;
    a->bad_rank = r != a->rank;
    ck_coll cc[3] = {
        {pcclCollAllReduce, pcclInt64, pcclSum, 0, 1000, a->nranks},
        {pcclCollAllGather, pcclFloat16, pcclSum, 0, 33, a->nranks},
        {pcclCollReduce, pcclUint32, pcclMin, a->nranks - 1, 257, a->nranks},
    };
    int ids[3];
    void *b[3][2];
    for (int k = 0; k < 3; k++) {
        if ((a->run = pt_register(a->comm, &cc[k], 0, &ids[k]))) return NULL;
        b[k][0] = malloc(ck_send_bytes(&cc[k]));
        b[k][1] = malloc(ck_recv_bytes(&cc[k]));
    }
    for (int it = 0; it < 5 && !a->run; it++) {
        for (int i = 0; i < 3; i++) {
            int k = (a->rank & 1) ? 2 - i : i; /* opposite orders, too */
            ck_prepare(&cc[k], a->rank, (uint64_t)(it * 3 + k), 0, b[k][0], b[k][1]);
            if ((a->run = pcclRun(a->comm, ids[k], b[k][0], b[k][1], NULL, NULL))) break;
        }
        if (!a->run) a->run = pcclWaitAll(a->comm);
        for (int k = 0; k < 3 && !a->run; k++)
            if (ck_verify(&cc[k], a->rank, (uint64_t)(it * 3 + k), 0, b[k][1], a->wrong ? NULL : a->msg,
                          sizeof a->msg))
                a->wrong++;
    }
    for (int k = 0; k < 3; k++) {
        free(b[k][0]);
        free(b[k][1]);
    }
    return NULL;
}

/* n ranks, each a thread, joining one id in reverse order; rank odd_rank (-1:
 * none) with `blocks` daemon blocks or odd_knob set. */
static void run_ranks(rank_arg *a, int n, int use_config, int odd_rank, int blocks, int odd_knob)
{
    pcclUniqueId id;
    PT_OK(pcclGetUniqueId(&id));
    pthread_t t[PT_MAX_RANKS];
    memset(a, 0, sizeof *a * (size_t)n);
    for (int r = 0; r < n; r++) {
        a[r].id = id; /* handed to every rank, as MPI would */
        a[r].nranks = n;
        a[r].rank = n - 1 - r; /* join in any order */
        a[r].use_config = use_config;
        a[r].blocks = a[r].rank == odd_rank ? blocks : 0;
        a[r].odd_knob = a[r].rank == odd_rank ? odd_knob : ODD_NONE;
        pthread_create(&t[r], NULL, rank_main, &a[r]);
    }
    for (int r = 0; r < n; r++) pthread_join(t[r], NULL);
}

static void group(int n, int use_config)
{
    pt_begin("initrank group", 60);
    rank_arg a[PT_MAX_RANKS];
    run_ranks(a, n, use_config, -1, 0, ODD_NONE);
    for (int r = 0; r < n; r++) {
        PT_CHECK(a[r].init == pcclSuccess, "rank %d: pcclCommInitRank -> %s", a[r].rank,
                 pcclGetErrorString(a[r].init));
        PT_CHECK(a[r].run == pcclSuccess, "rank %d: run -> %s", a[r].rank, pcclGetErrorString(a[r].run));
        CU_ASSERT_EQUAL(a[r].bad_count, 0);
        CU_ASSERT_EQUAL(a[r].bad_rank, 0);
        PT_CHECK(a[r].wrong == 0, "rank %d: %d wrong results; first: %s", a[r].rank, a[r].wrong, a[r].msg);
    }
    for (int r = 0; r < n; r++)
        if (a[r].comm) PT_OK(pcclCommDestroy(a[r].comm));
    pt_end();
}

static void test_group_1(void) { group(1, 0); }
static void test_group_3(void) { group(3, 0); }
static void test_group_4_config(void) { group(4, 1); }

static void test_unique_ids_differ(void)
{
    pcclUniqueId a, b;
    PT_OK(pcclGetUniqueId(&a));
    PT_OK(pcclGetUniqueId(&b));
    CU_ASSERT(memcmp(&a, &b, sizeof a) != 0);
}

static void test_bad_args(void)
{
    pcclUniqueId id;
    pcclComm_t c = NULL;
    PT_OK(pcclGetUniqueId(&id));
    PT_ERR(pcclInvalidArgument, pcclCommInitRank(&c, 2, id, 2));
    PT_CHECK(strstr(pcclGetLastError(NULL), "rank") != NULL, "last error '%s'", pcclGetLastError(NULL));
    PT_ERR(pcclInvalidArgument, pcclCommInitRank(&c, 2, id, -1));
    PT_ERR(pcclInvalidArgument, pcclCommInitRank(&c, 0, id, 0));
    PT_CHECK(strstr(pcclGetLastError(NULL), "nranks") != NULL, "last error '%s'", pcclGetLastError(NULL));
    PT_ERR(pcclInvalidArgument, pcclCommInitRank(&c, -1, id, 0));
    PT_ERR(pcclInvalidArgument, pcclCommInitRank(&c, 65, id, 0));
    pcclUniqueId zero;
    memset(&zero, 0, sizeof zero);
    PT_ERR(pcclInvalidArgument, pcclCommInitRank(&c, 1, zero, 0));
    PT_CHECK(strstr(pcclGetLastError(NULL), "commId") != NULL, "last error '%s'", pcclGetLastError(NULL));
    CU_ASSERT_PTR_NULL(c);
}

/* A rank whose peers never come gets an error after PCCL_BOOT_TIMEOUT
 * seconds instead of hanging. */
static void test_peer_never_comes(void)
{
    pt_begin("initrank peer never comes", 60);
    pt_env old = pt_env_push("PCCL_BOOT_TIMEOUT", "1");
    pcclUniqueId id;
    PT_OK(pcclGetUniqueId(&id));
    pcclComm_t c = NULL;
    double t0 = ck_now();
    pcclResult_t r = pcclCommInitRank(&c, 2, id, 0);
    double dt = ck_now() - t0;
    PT_CHECK(r != pcclSuccess, "pcclCommInitRank with a missing peer -> success");
    PT_CHECK(dt >= 0.5 && dt < 30, "pcclCommInitRank with a missing peer returned after %.1f s (timeout 1 s)", dt);
    CU_ASSERT_PTR_NULL(c);
    pt_env_pop(old);
    pt_boot_unlink(&id); /* left behind: see regressions */
    pt_end();
}

/* While rank 0 of a 2-rank group waits for its peer, a join claiming another
 * nranks: both fail (no hang, no crash); a fresh id then works. */
static void test_mismatched_join(void)
{
    pt_begin("initrank mismatched join", 60);
    pt_env old = pt_env_push("PCCL_BOOT_TIMEOUT", "1");
    rank_arg a;
    memset(&a, 0, sizeof a);
    PT_OK(pcclGetUniqueId(&a.id));
    a.nranks = 2;
    a.rank = 0;
    a.use_config = 1;
    pthread_t t;
    pthread_create(&t, NULL, rank_main, &a);
    ck_sleep_ms(20);
    pcclComm_t c = NULL;
    pcclResult_t r = pcclCommInitRank(&c, 3, a.id, 1);
    pthread_join(t, NULL);
    PT_CHECK(r != pcclSuccess, "a rank claiming nranks 3 joined a group of 2");
    PT_CHECK(a.init != pcclSuccess, "rank 0 of 2 joined a group whose rank 1 claims nranks 3");
    CU_ASSERT_PTR_NULL(c);
    if (c) pcclCommAbort(c);
    if (a.comm) pcclCommAbort(a.comm);
    pt_env_pop(old);
    pt_boot_unlink(&a.id); /* left behind: see regressions */
    group(2, 1);
    pt_end();
}

/* Ranks that differ in a knob that shapes the rings are all refused, with
 * an error naming the knob; a group whose knobs agree then forms. */
static void mismatch(int n, int odd_rank, int blocks, int odd_knob, const char *knob)
{
    rank_arg a[PT_MAX_RANKS];
    run_ranks(a, n, 1, odd_rank, blocks, odd_knob);
    for (int r = 0; r < n; r++) {
        PT_CHECK(a[r].init == pcclInvalidArgument, "rank %d of %d (rank %d differs in %s): init -> %s", a[r].rank,
                 n, odd_rank, knob, pcclGetErrorString(a[r].init));
        PT_CHECK(strstr(a[r].msg, knob) && strstr(a[r].msg, "same on every rank"), "rank %d: error '%s'",
                 a[r].rank, a[r].msg);
        CU_ASSERT_PTR_NULL(a[r].comm);
        if (a[r].comm) pcclCommAbort(a[r].comm);
    }
}

static void test_knobs_differ(void)
{
    pt_begin("initrank knobs differ", 60);
    mismatch(2, 1, 3, ODD_NONE, "PCCL_BLOCKS");
    mismatch(3, 0, 0, ODD_DYNAMIC_OFF, "PCCL_DYNAMIC");
    mismatch(2, 0, 0, ODD_PROTO_LL, "PCCL_PROTO"); /* auto on rank 1 */
    mismatch(2, 1, 0, ODD_ALGO_RING, "PCCL_ALGO");
    mismatch(4, 2, 1, ODD_NONE, "PCCL_BLOCKS");
    group(3, 1);
    pt_end();
}

/* Threads of one process on one device (PCCL_DEVICE_OF_RANK=1,1,0, as
 * pccl-perf --share-gpu puts every rank on GPU 0): the group forms, runs
 * exact, and each rank reports the device it was given; pcclCommInitAll
 * still refuses a devlist naming a device twice. */
static void test_device_twice(void)
{
    pt_begin("initrank device twice", 60);
    pt_env old = pt_env_push("PCCL_DEVICE_OF_RANK", "1,1,0");
    rank_arg a[3];
    run_ranks(a, 3, 1, -1, 0, ODD_NONE);
    static const int want[3] = {1, 1, 0};
    for (int r = 0; r < 3; r++) {
        int dev = -1;
        PT_CHECK(a[r].init == pcclSuccess && a[r].run == pcclSuccess && a[r].wrong == 0,
                 "rank %d on device %d: init %s (%s), run %s, %d wrong", a[r].rank, want[a[r].rank],
                 pcclGetErrorString(a[r].init), a[r].msg, pcclGetErrorString(a[r].run), a[r].wrong);
        if (!a[r].comm) continue;
        PT_OK(pcclCommCuDevice(a[r].comm, &dev));
        PT_CHECK(dev == want[a[r].rank], "rank %d: device %d, PCCL_DEVICE_OF_RANK says %d", a[r].rank, dev,
                 want[a[r].rank]);
        PT_OK(pcclCommDestroy(a[r].comm));
    }
    pt_env_pop(old);
    pcclComm_t c[2] = {NULL, NULL};
    pcclConfig_t cfg = pt_config(1, 512);
    int twice[2] = {0, 0};
    PT_ERR(pcclInvalidArgument, pcclCommInitAllConfig(c, 2, twice, &cfg));
    PT_CHECK(strstr(pcclGetLastError(NULL), "device 0 listed twice") != NULL, "last error '%s'",
             pcclGetLastError(NULL));
    CU_ASSERT_PTR_NULL(c[0]);
    pt_end();
}

int pt_register_initrank(void)
{
    CU_pSuite s = CU_add_suite("initrank", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "1 rank", test_group_1) || !CU_add_test(s, "3 ranks, threads", test_group_3) ||
        !CU_add_test(s, "4 ranks, threads, with config", test_group_4_config) ||
        !CU_add_test(s, "unique ids differ", test_unique_ids_differ) ||
        !CU_add_test(s, "bad rank / nranks / id", test_bad_args) ||
        !CU_add_test(s, "a peer that never comes: error after PCCL_BOOT_TIMEOUT", test_peer_never_comes) ||
        !CU_add_test(s, "mismatched nranks while a group forms", test_mismatched_join) ||
        !CU_add_test(s, "ring-shaping knobs differ between ranks: all refused", test_knobs_differ) ||
        !CU_add_test(s, "threads of one process on one device: supported; pcclCommInitAll refuses", test_device_twice))
        return -1;
    return 0;
}
