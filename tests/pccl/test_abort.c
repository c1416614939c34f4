/* pcclCommAbort: an invocation stuck for good (its peers never invoke it)
 * completes with pcclRemoteError: its waiter returns, its callback runs with
 * that status; the other ranks can be aborted or destroyed; nothing hangs. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct {
    int calls, id;
    pcclResult_t status;
} ab_cb;

static void abort_cb(int id, pcclResult_t st, void *arg)
{
    ab_cb *a = arg;
    a->id = id;
    a->status = st;
    __atomic_add_fetch(&a->calls, 1, __ATOMIC_RELEASE);
}

typedef struct {
    pcclComm_t comm;
    int id;
    pcclResult_t r;
    int returned;
} waiter;

static void *wait_main(void *p)
{
    waiter *w = p;
    w->r = pcclWait(w->comm, w->id);
    __atomic_store_n(&w->returned, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void stuck(int nranks, int abort_others)
{
    pt_begin("abort", 60);
    pcclComm_t c[4];
    pcclConfig_t cfg = pt_config(2, 256);
    if (pt_init(c, nranks, &cfg)) { pt_end(); return; }
    int id[2];
    size_t count = 5000;
    int32_t *b[4][2][2];
    for (int r = 0; r < nranks; r++) {
        PT_OK(pcclRegisterAllReduce(c[r], count, pcclInt32, pcclSum, 0, &id[0]));
        PT_OK(pcclRegisterAllGather(c[r], 100, pcclInt32, 0, &id[1]));
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 2; j++) b[r][k][j] = calloc(count * (size_t)nranks, 4);
    }
    ab_cb cb0, cb1;
    memset(&cb0, 0, sizeof cb0);
    memset(&cb1, 0, sizeof cb1);
    /* rank 0 alone invokes collective 0; rank 1 alone invokes collective 1 */
    PT_OK(pcclRun(c[0], id[0], b[0][0][0], b[0][0][1], abort_cb, &cb0));
    PT_OK(pcclRun(c[1], id[1], b[1][1][0], b[1][1][1], abort_cb, &cb1));
    waiter w = {c[0], id[0], pcclSuccess, 0};
    pthread_t t;
    pthread_create(&t, NULL, wait_main, &w);
    ck_sleep_ms(50);
    int done = -1;
    PT_OK(pcclTest(c[1], id[1], &done));
    CU_ASSERT_EQUAL(done, 0);
    CU_ASSERT_EQUAL(__atomic_load_n(&w.returned, __ATOMIC_ACQUIRE), 0); /* stuck indeed */
    CU_ASSERT_EQUAL(__atomic_load_n(&cb0.calls, __ATOMIC_ACQUIRE), 0);

    PT_OK(pcclCommAbort(c[0]));
    pthread_join(t, NULL);
    PT_CHECK(w.r == pcclRemoteError, "pcclWait of an aborted invocation -> %s, expected %s",
             pcclGetErrorString(w.r), pcclGetErrorString(pcclRemoteError));
    CU_ASSERT_EQUAL(__atomic_load_n(&cb0.calls, __ATOMIC_ACQUIRE), 1);
    PT_CHECK(cb0.status == pcclRemoteError, "callback status %s, expected %s", pcclGetErrorString(cb0.status),
             pcclGetErrorString(pcclRemoteError));
    CU_ASSERT_EQUAL(cb0.id, id[0]);
    PT_ERR(pcclInvalidUsage, pcclRun(c[0], id[0], b[0][0][0], b[0][0][1], NULL, NULL));
    c[0] = NULL;

    /* rank 1 still has collective 1 stuck: abort it too (destroy would wait
     * for it forever, as ncclCommDestroy would) */
    PT_OK(pcclCommAbort(c[1]));
    CU_ASSERT_EQUAL(__atomic_load_n(&cb1.calls, __ATOMIC_ACQUIRE), 1);
    PT_CHECK(cb1.status == pcclRemoteError, "rank 1 callback status %s", pcclGetErrorString(cb1.status));
    c[1] = NULL;
    for (int r = 2; r < nranks; r++) {
        if (abort_others) PT_OK(pcclCommAbort(c[r]));
        else PT_OK(pcclCommDestroy(c[r]));
        c[r] = NULL;
    }
    for (int r = 0; r < nranks; r++)
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 2; j++) free(b[r][k][j]);
    pt_end();
}

static void test_stuck_2(void) { stuck(2, 0); }
static void test_stuck_3_destroy(void) { stuck(3, 0); }
static void test_stuck_4_abort(void) { stuck(4, 1); }

/* Abort in the middle of healthy traffic: in-flight invocations either
 * complete or fail with pcclRemoteError; no hang, no crash. */
typedef struct {
    pcclComm_t comm;
    int rank, id, stop, completed;
    int32_t *s, *r;
    int errors;
} pumper;

static void *pump_main(void *p)
{
    pumper *u = p;
    while (!__atomic_load_n(&u->stop, __ATOMIC_ACQUIRE)) {
        pcclResult_t e = pcclRun(u->comm, u->id, u->s, u->r, NULL, NULL);
        if (e != pcclSuccess) break; /* the peer side may hang now: the test aborts everyone */
        int done = 0;
        while (!done && !__atomic_load_n(&u->stop, __ATOMIC_ACQUIRE)) {
            if (pcclTest(u->comm, u->id, &done) != pcclSuccess) break;
            if (!done) ck_sleep_us(50);
        }
        if (done) __atomic_add_fetch(&u->completed, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void test_abort_busy(void)
{
    pt_begin("abort busy", 60);
    enum { N = 3 };
    pcclComm_t c[N];
    pcclConfig_t cfg = pt_config(1, 256);
    if (pt_init(c, N, &cfg)) { pt_end(); return; }
    pumper u[N];
    pthread_t t[N];
    int id;
    for (int r = 0; r < N; r++) {
        PT_OK(pcclRegisterAllReduce(c[r], 4096, pcclInt32, pcclSum, 0, &id));
        u[r] = (pumper){c[r], r, id, 0, 0, calloc(4096, 4), calloc(4096, 4), 0};
    }
    for (int r = 0; r < N; r++) pthread_create(&t[r], NULL, pump_main, &u[r]);
    /* let traffic flow (a few completions on every rank), then: */
    double t0 = ck_now();
    for (;;) {
        int least = 1 << 30;
        for (int r = 0; r < N; r++) {
            int k = __atomic_load_n(&u[r].completed, __ATOMIC_ACQUIRE);
            least = k < least ? k : least;
        }
        if (least >= 3 || ck_now() - t0 > 20) break;
        ck_sleep_ms(5);
    }
    /* stop the pumps, then abort every rank (in-flight work fails or ends) */
    for (int r = 0; r < N; r++) __atomic_store_n(&u[r].stop, 1, __ATOMIC_RELEASE);
    for (int r = 0; r < N; r++) pthread_join(t[r], NULL);
    PT_CHECK(__atomic_load_n(&u[0].completed, __ATOMIC_ACQUIRE) >= 3, "fewer than 3 all-reduces completed in 20 s");
    for (int r = 0; r < N; r++) PT_OK(pcclCommAbort(c[r]));
    for (int r = 0; r < N; r++) {
        free(u[r].s);
        free(u[r].r);
    }
    pt_end();
}

int pt_register_abort(void)
{
    CU_pSuite s = CU_add_suite("abort", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "stuck invocation, 2 gpus", test_stuck_2) ||
        !CU_add_test(s, "stuck invocations, 3 gpus, others destroyed", test_stuck_3_destroy) ||
        !CU_add_test(s, "stuck invocations, 4 gpus, others aborted", test_stuck_4_abort) ||
        !CU_add_test(s, "abort during traffic", test_abort_busy))
        return -1;
    return 0;
}
