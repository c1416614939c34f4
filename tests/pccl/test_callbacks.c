/* Callbacks: exactly once per invocation, with the right collId, status and
 * userArg; pcclWait/pcclTest/pcclWaitAll report completion only after the
 * callback returned; a callback may invoke its collective again. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NR 3
#define NK 4

typedef struct {
    int rank, k, expect_id;
    int calls;        /* atomic */
    int wrong_id, wrong_status;
    int finished;     /* set at the very end of a slow callback */
} cb_slot;

static void count_cb(int id, pcclResult_t st, void *arg)
{
    cb_slot *s = arg;
    if (id != s->expect_id) __atomic_add_fetch(&s->wrong_id, 1, __ATOMIC_RELAXED);
    if (st != pcclSuccess) __atomic_add_fetch(&s->wrong_status, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->calls, 1, __ATOMIC_RELEASE);
}

static void test_once_each(void)
{
    pt_begin("callbacks once each", 60);
    pcclComm_t c[NR];
    pcclConfig_t cfg = pt_config(2, 256);
    if (pt_init(c, NR, &cfg)) { pt_end(); return; }
    ck_coll cc[NK] = {
        {pcclCollAllReduce, pcclInt32, pcclSum, 0, 1000, NR},
        {pcclCollAllGather, pcclUint8, pcclSum, 0, 77, NR},
        {pcclCollReduce, pcclFloat32, pcclMax, 2, 300, NR},
        {pcclCollBroadcast, pcclInt64, pcclSum, 1, 5, NR},
    };
    int ids[NK];
    cb_slot slot[NR][NK];
    void *bufs[NR][NK][2];
    memset(slot, 0, sizeof slot);
    /* registered after a few others, so that ids are not 0..3 */
    for (int r = 0; r < NR; r++) {
        int dummy;
        PT_OK(pcclRegisterAllReduce(c[r], 8, pcclInt8, pcclSum, 0, &dummy));
        PT_OK(pcclRegisterAllReduce(c[r], 8, pcclInt8, pcclSum, 0, &dummy));
        for (int k = 0; k < NK; k++) {
            PT_OK(pt_register(c[r], &cc[k], 0, &ids[k]));
            bufs[r][k][0] = malloc(ck_send_bytes(&cc[k]));
            bufs[r][k][1] = malloc(ck_recv_bytes(&cc[k]));
            slot[r][k] = (cb_slot){r, k, ids[k], 0, 0, 0, 0};
        }
    }
    int iters = ck_scaled(50, 5);
    char msg[512];
    for (int it = 0; it < iters; it++) {
        for (int r = 0; r < NR; r++)
            for (int k = 0; k < NK; k++) {
                ck_prepare(&cc[k], r, (uint64_t)(it * NK + k), 0, bufs[r][k][0], bufs[r][k][1]);
                /* one in four without a callback */
                int with = (it + k) % 4 != 0;
                PT_OK(pcclRun(c[r], ids[k], bufs[r][k][0], bufs[r][k][1], with ? count_cb : NULL,
                              with ? &slot[r][k] : NULL));
            }
        for (int r = 0; r < NR; r++) PT_OK(pcclWaitAll(c[r]));
        for (int r = 0; r < NR; r++)
            for (int k = 0; k < NK; k++) {
                int expect = 0;
                for (int j = 0; j <= it; j++) expect += (j + k) % 4 != 0;
                int got = __atomic_load_n(&slot[r][k].calls, __ATOMIC_ACQUIRE);
                PT_CHECK(got == expect, "rank %d coll %d: %d callbacks after %d iterations, expected %d", r, k, got,
                         it + 1, expect);
                if (ck_verify(&cc[k], r, (uint64_t)(it * NK + k), 0, bufs[r][k][1], msg, sizeof msg))
                    PT_FAIL("%s", msg);
            }
        ck_watchdog_kick();
    }
    for (int r = 0; r < NR; r++)
        for (int k = 0; k < NK; k++) {
            CU_ASSERT_EQUAL(slot[r][k].wrong_id, 0);
            CU_ASSERT_EQUAL(slot[r][k].wrong_status, 0);
            free(bufs[r][k][0]);
            free(bufs[r][k][1]);
        }
    pt_destroy(c, NR);
    pt_end();
}

/* A slow callback: pcclWait, pcclTest and pcclWaitAll must not report the
 * collective complete before the callback has returned. */
static void slow_cb(int id, pcclResult_t st, void *arg)
{
    cb_slot *s = arg;
    ck_sleep_ms(30);
    __atomic_store_n(&s->finished, 1, __ATOMIC_RELEASE);
    count_cb(id, st, arg);
}

static void test_wait_after_callback(void)
{
    pt_begin("wait after callback", 60);
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(1, -1);
    if (pt_init(c, 2, &cfg)) { pt_end(); return; }
    int id;
    int32_t b[2][2][64];
    cb_slot s[2];
    memset(b, 0, sizeof b);
    for (int r = 0; r < 2; r++) PT_OK(pcclRegisterAllReduce(c[r], 64, pcclInt32, pcclSum, 0, &id));
    for (int mode = 0; mode < 3; mode++) {
        memset(s, 0, sizeof s);
        for (int r = 0; r < 2; r++) {
            s[r].expect_id = id;
            PT_OK(pcclRun(c[r], id, b[r][0], b[r][1], slow_cb, &s[r]));
        }
        for (int r = 0; r < 2; r++) {
            if (mode == 0) PT_OK(pcclWait(c[r], id));
            if (mode == 1) PT_OK(pcclWaitAll(c[r]));
            if (mode == 2) {
                int done = 0;
                while (!done) {
                    PT_OK(pcclTest(c[r], id, &done));
                    if (!done) ck_sleep_us(100);
                    else break;
                }
            }
            PT_CHECK(__atomic_load_n(&s[r].finished, __ATOMIC_ACQUIRE) == 1,
                     "mode %d rank %d: wait returned before the callback finished", mode, r);
            CU_ASSERT_EQUAL(__atomic_load_n(&s[r].calls, __ATOMIC_ACQUIRE), 1);
        }
    }
    pt_destroy(c, 2);
    pt_end();
}

/* A callback that invokes its collective again, `left` more times, checking
 * each result before it does. */
typedef struct {
    pcclComm_t comm;
    const ck_coll *cc;
    int rank, id, left, runs, bad, run_errors;
    void *send, *recv;
    uint64_t seed;
    char msg[512];
} chain;

static void chain_cb(int id, pcclResult_t st, void *arg)
{
    chain *ch = arg;
    ch->runs++;
    if (st != pcclSuccess || id != ch->id) ch->bad++;
    if (ck_verify(ch->cc, ch->rank, ch->seed, 0, ch->recv, ch->bad ? NULL : ch->msg, sizeof ch->msg)) ch->bad++;
    if (ch->left-- > 0) {
        ch->seed++;
        ck_prepare(ch->cc, ch->rank, ch->seed, 0, ch->send, ch->recv);
        if (pcclRun(ch->comm, ch->id, ch->send, ch->recv, chain_cb, ch) != pcclSuccess) ch->run_errors++;
    }
}

static void test_reinvoke_from_callback(void)
{
    pt_begin("re-invoke from callback", 60);
    enum { N = 3 };
    pcclComm_t c[N];
    pcclConfig_t cfg = pt_config(2, 256);
    if (pt_init(c, N, &cfg)) { pt_end(); return; }
    ck_coll cc = {pcclCollReduceScatter, pcclInt32, pcclSum, 0, 700, N};
    chain ch[N];
    memset(ch, 0, sizeof ch);
    int times = ck_scaled(100, 10);
    for (int r = 0; r < N; r++) {
        int id;
        PT_OK(pcclRegisterReduceScatter(c[r], cc.count, cc.dtype, cc.op, 0, &id));
        ch[r] = (chain){c[r], &cc, r, id, times - 1, 0, 0, 0, malloc(ck_send_bytes(&cc)), malloc(ck_recv_bytes(&cc)),
                        1000, ""};
        ck_prepare(&cc, r, ch[r].seed, 0, ch[r].send, ch[r].recv);
    }
    for (int r = 0; r < N; r++) PT_OK(pcclRun(c[r], ch[r].id, ch[r].send, ch[r].recv, chain_cb, &ch[r]));
    /* pcclWait returns only when the last link's callback did not re-invoke */
    for (int r = 0; r < N; r++) PT_OK(pcclWait(c[r], ch[r].id));
    for (int r = 0; r < N; r++) {
        PT_OK(pcclWaitAll(c[r]));
        pcclStats_t st;
        PT_OK(pcclDeviceSynchronize(c[r])); /* (see regressions, stats race) */
        PT_OK(pcclCommGetStats(c[r], &st));
        PT_CHECK(ch[r].runs == times, "rank %d: %d callbacks, expected %d", r, ch[r].runs, times);
        PT_CHECK(st.completed == (uint64_t)times, "rank %d: %llu completed, expected %d", r,
                 (unsigned long long)st.completed, times);
        PT_CHECK(ch[r].bad == 0, "rank %d: %d bad results; first: %s", r, ch[r].bad, ch[r].msg);
        CU_ASSERT_EQUAL(ch[r].run_errors, 0);
        free(ch[r].send);
        free(ch[r].recv);
    }
    pt_destroy(c, N);
    pt_end();
}

/* A callback that invokes a different collective, which the main thread then
 * waits for: the poller must not be needed by its own caller's wait. */
typedef struct {
    pcclComm_t comm;
    int next_id;
    int32_t *s, *r;
    int err;
} hop;

static void hop_cb(int id, pcclResult_t st, void *arg)
{
    hop *h = arg;
    if (pcclRun(h->comm, h->next_id, h->s, h->r, NULL, NULL) != pcclSuccess) h->err++;
}

static void test_invoke_other_from_callback(void)
{
    pt_begin("invoke another collective from a callback", 60);
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(1, -1);
    if (pt_init(c, 2, &cfg)) { pt_end(); return; }
    ck_coll a = {pcclCollAllReduce, pcclInt32, pcclSum, 0, 64, 2}, bc = {pcclCollBroadcast, pcclInt32, pcclSum, 1, 64, 2};
    int ida, idb;
    int32_t buf[2][4][64];
    hop h[2];
    for (int r = 0; r < 2; r++) {
        PT_OK(pcclRegisterAllReduce(c[r], 64, pcclInt32, pcclSum, 0, &ida));
        PT_OK(pcclRegisterBroadcast(c[r], 64, pcclInt32, 1, 0, &idb));
        ck_prepare(&a, r, 1, 0, buf[r][0], buf[r][1]);
        ck_prepare(&bc, r, 2, 0, buf[r][2], buf[r][3]);
        h[r] = (hop){c[r], idb, buf[r][2], buf[r][3], 0};
    }
    for (int r = 0; r < 2; r++) PT_OK(pcclRun(c[r], ida, buf[r][0], buf[r][1], hop_cb, &h[r]));
    for (int r = 0; r < 2; r++) {
        PT_OK(pcclWait(c[r], ida));
        PT_OK(pcclWait(c[r], idb));
        PT_OK(pcclWaitAll(c[r]));
        CU_ASSERT_EQUAL(h[r].err, 0);
        char msg[512];
        PT_CHECK(ck_verify(&a, r, 1, 0, buf[r][1], msg, sizeof msg) == 0, "%s", msg);
        PT_CHECK(ck_verify(&bc, r, 2, 0, buf[r][3], msg, sizeof msg) == 0, "%s", msg);
    }
    pt_destroy(c, 2);
    pt_end();
}

int pt_register_callbacks(void)
{
    CU_pSuite s = CU_add_suite("callbacks", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "once per invocation, right id/status/arg", test_once_each) ||
        !CU_add_test(s, "wait/test/waitall return after the callback", test_wait_after_callback) ||
        !CU_add_test(s, "callback re-invokes its collective", test_reinvoke_from_callback) ||
        !CU_add_test(s, "callback invokes another collective", test_invoke_other_from_callback))
        return -1;
    return 0;
}
