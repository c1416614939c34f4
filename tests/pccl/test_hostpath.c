/* The small-message host path (issue 16): waiters that spin on the CQ and
 * drain it themselves (PCCL_WAIT_SPIN_US), and the latency trace
 * (PCCL_TRACE_LAT).  What must still hold: callbacks run on the poller
 * thread and before pcclWait returns; a spinning waiter sees a completion
 * that another thread drained, and an abort, at once (not at the end of its
 * spin); every completion is taken exactly once, results exact; the trace
 * counts every invocation once, with hops that add up. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define HP_COUNT 100 /* int32 elements */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static pcclConfig_t hp_config(long spin_us, int trace)
{
    pcclConfig_t cfg = pt_config(2, 256);
    cfg.waitSpinUs = spin_us;
    cfg.traceLat = trace;
    return cfg;
}

/* Two ranks, one all-reduce of HP_COUNT int32 each; buffers per rank. */
typedef struct {
    pcclComm_t c[2];
    int id;
    int32_t *in[2], *out[2];
} hp_pair;

static int hp_open(hp_pair *p, const pcclConfig_t *cfg)
{
    memset(p, 0, sizeof *p);
    if (pt_init(p->c, 2, cfg)) return -1;
    for (int r = 0; r < 2; r++) {
        PT_OK(pcclRegisterAllReduce(p->c[r], HP_COUNT, pcclInt32, pcclSum, 0, &p->id));
        p->in[r] = malloc(HP_COUNT * sizeof(int32_t));
        p->out[r] = malloc(HP_COUNT * sizeof(int32_t));
    }
    return 0;
}

/* Inputs of iteration it, outputs poisoned. */
static void hp_fill(hp_pair *p, int it)
{
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < HP_COUNT; i++) {
            p->in[r][i] = it * 1000 + r * 100 + i;
            p->out[r][i] = -1;
        }
}

/* Wrong elements of iteration it on both ranks. */
static int hp_wrong(const hp_pair *p, int it)
{
    int wrong = 0;
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < HP_COUNT; i++) wrong += p->out[r][i] != 2 * (it * 1000 + i) + 100;
    return wrong;
}

static void hp_close(hp_pair *p)
{
    pt_destroy(p->c, 2);
    for (int r = 0; r < 2; r++) { free(p->in[r]); free(p->out[r]); }
}

/* ---- callbacks stay on the poller, and before pcclWait's return ---------- */

typedef struct {
    pthread_t thread;
    int finished; /* atomic: set at the very end of the callback */
} hp_cb;

static void slow_cb(int id, pcclResult_t st, void *arg)
{
    hp_cb *h = arg;
    h->thread = pthread_self();
    usleep(3000); /* a waiter that returned early would see finished == 0 */
    __atomic_store_n(&h->finished, 1, __ATOMIC_RELEASE);
}

static void test_callbacks_on_poller(void)
{
    pt_begin("hostpath callbacks", 60);
    pcclConfig_t cfg = hp_config(200000, 0);
    hp_pair p;
    if (hp_open(&p, &cfg)) { pt_end(); return; }
    int iters = ck_scaled(40, 8), early = 0, on_waiter = 0, wrong = 0;
    for (int it = 0; it < iters; it++) {
        hp_cb cb[2];
        memset(cb, 0, sizeof cb);
        hp_fill(&p, it);
        for (int r = 0; r < 2; r++) PT_OK(pcclRun(p.c[r], p.id, p.in[r], p.out[r], slow_cb, &cb[r]));
        for (int r = 0; r < 2; r++) {
            PT_OK(pcclWait(p.c[r], p.id));
            early += !__atomic_load_n(&cb[r].finished, __ATOMIC_ACQUIRE);
            on_waiter += pthread_equal(cb[r].thread, pthread_self()) != 0;
        }
        wrong += hp_wrong(&p, it);
        ck_watchdog_kick();
    }
    PT_CHECK(early == 0, "pcclWait returned before its callback finished %d times", early);
    PT_CHECK(on_waiter == 0, "%d callbacks ran on the waiting thread, not the poller", on_waiter);
    PT_CHECK(wrong == 0, "%d wrong elements", wrong);
    hp_close(&p);
    pt_end();
}

/* ---- a spinning waiter hears a completion another thread drained --------- */

static void count_cb(int id, pcclResult_t st, void *arg) { __atomic_add_fetch((int *)arg, 1, __ATOMIC_RELEASE); }

typedef struct {
    pcclComm_t comm;
    int id;
    pcclResult_t r;
    double returned_at;
} hp_waiter;

static void *hp_wait_main(void *arg)
{
    hp_waiter *w = arg;
    w->r = pcclWait(w->comm, w->id);
    w->returned_at = now_s();
    return NULL;
}

static void test_waiter_hears_poller(void)
{
    pt_begin("hostpath waiter wakes", 60);
    /* A 10 s spin.  The waiter is spinning when the completion comes; the
     * collective has a callback, so the poller drains it, and the waiter
     * must see that in far less than its spin (4 s: a loaded machine). */
    pcclConfig_t cfg = hp_config(10000000, 0);
    hp_pair p;
    if (hp_open(&p, &cfg)) { pt_end(); return; }
    int n = 0, slow = 0;
    double worst = 0;
    for (int it = 0; it < 3; it++) {
        hp_fill(&p, it);
        PT_OK(pcclRun(p.c[0], p.id, p.in[0], p.out[0], count_cb, &n));
        hp_waiter w = {p.c[0], p.id, pcclSuccess, 0};
        pthread_t t;
        pthread_create(&t, NULL, hp_wait_main, &w);
        usleep(20000); /* the waiter spins; rank 1 has not invoked yet */
        double t0 = now_s();
        PT_OK(pcclRun(p.c[1], p.id, p.in[1], p.out[1], count_cb, &n));
        pthread_join(t, NULL);
        PT_OK(w.r);
        PT_OK(pcclWait(p.c[1], p.id));
        double dt = w.returned_at - t0;
        worst = dt > worst ? dt : worst;
        slow += dt > 4.0;
        PT_CHECK(hp_wrong(&p, it) == 0, "iteration %d: wrong result", it);
    }
    PT_CHECK(slow == 0, "a waiter took %.3f s (its spin is 10 s): it missed a completion drained by the poller",
             worst);
    PT_CHECK(__atomic_load_n(&n, __ATOMIC_ACQUIRE) == 6, "%d callbacks, expected 6", n);
    hp_close(&p);
    pt_end();
}

/* ---- the waiter drains its completion while the poller is busy ---------- */

typedef struct {
    int started, finished; /* atomic */
    int *release;          /* atomic: the test lets the callbacks go */
} hp_busy;

/* Holds the poller until the test lets it go (at most 5 s: a waiter that
 * does not drain itself then returns late, and the test says so). */
static void busy_cb(int id, pcclResult_t st, void *arg)
{
    hp_busy *b = arg;
    __atomic_store_n(&b->started, 1, __ATOMIC_RELEASE);
    double t0 = now_s();
    while (!__atomic_load_n(b->release, __ATOMIC_ACQUIRE) && now_s() - t0 < 5) usleep(1000);
    __atomic_store_n(&b->finished, 1, __ATOMIC_RELEASE);
}

static void test_waiter_drains_itself(void)
{
    pt_begin("hostpath own drain", 60);
    pcclConfig_t cfg = hp_config(2000000, 0);
    /* The daemons stay up (no idle quit, no slice): one that quits just as
     * pcclRun looks is relaunched by the poller (run.c), held in the
     * callback here. */
    cfg.quitUs = 2000000;
    cfg.sliceUs = 0;
    hp_pair p;
    if (hp_open(&p, &cfg)) { pt_end(); return; }
    int busy_id = -1;
    int32_t *bin[2], *bout[2];
    for (int r = 0; r < 2; r++) {
        PT_OK(pcclRegisterAllReduce(p.c[r], 8, pcclInt32, pcclSum, 0, &busy_id));
        bin[r] = calloc(8, 4);
        bout[r] = calloc(8, 4);
    }
    hp_busy b[2];
    int release = 0;
    memset(b, 0, sizeof b);
    b[0].release = b[1].release = &release;
    for (int r = 0; r < 2; r++) PT_OK(pcclRun(p.c[r], busy_id, bin[r], bout[r], busy_cb, &b[r]));
    /* both pollers inside the slow callbacks */
    double t0 = now_s();
    while ((!__atomic_load_n(&b[0].started, __ATOMIC_ACQUIRE) || !__atomic_load_n(&b[1].started, __ATOMIC_ACQUIRE)) &&
           now_s() - t0 < 10)
        usleep(100);
    hp_fill(&p, 7);
    t0 = now_s();
    for (int r = 0; r < 2; r++) PT_OK(pcclRun(p.c[r], p.id, p.in[r], p.out[r], NULL, NULL));
    for (int r = 0; r < 2; r++) PT_OK(pcclWait(p.c[r], p.id));
    double t = now_s() - t0;
    int held = !__atomic_load_n(&b[0].finished, __ATOMIC_ACQUIRE) && !__atomic_load_n(&b[1].finished, __ATOMIC_ACQUIRE);
    PT_CHECK(held, "the pollers' callbacks finished before the waits returned (%.3f s): the waiters did not drain "
                   "their completions themselves", t);
    PT_CHECK(hp_wrong(&p, 7) == 0, "wrong result");
    __atomic_store_n(&release, 1, __ATOMIC_RELEASE);
    for (int r = 0; r < 2; r++) PT_OK(pcclWait(p.c[r], busy_id));
    for (int r = 0; r < 2; r++) {
        PT_CHECK(__atomic_load_n(&b[r].finished, __ATOMIC_ACQUIRE), "rank %d: pcclWait before its callback ended", r);
        free(bin[r]);
        free(bout[r]);
    }
    hp_close(&p);
    pt_end();
}

/* ---- abort releases a spinning waiter ----------------------------------- */

static void test_abort_spinning_waiter(void)
{
    pt_begin("hostpath abort", 60);
    pcclConfig_t cfg = hp_config(10000000, 0); /* 10 s of spin */
    hp_pair p;
    if (hp_open(&p, &cfg)) { pt_end(); return; }
    hp_fill(&p, 0);
    /* rank 0 alone: its invocation never completes */
    PT_OK(pcclRun(p.c[0], p.id, p.in[0], p.out[0], NULL, NULL));
    hp_waiter w = {p.c[0], p.id, pcclSuccess, 0};
    pthread_t t;
    pthread_create(&t, NULL, hp_wait_main, &w);
    usleep(50000);
    double t0 = now_s();
    PT_OK(pcclCommAbort(p.c[0]));
    p.c[0] = NULL;
    pthread_join(t, NULL);
    PT_CHECK(w.r == pcclRemoteError, "the waiter got %s, expected pcclRemoteError", pcclGetErrorString(w.r));
    PT_CHECK(w.returned_at - t0 < 4.0, "the spinning waiter (10 s of spin) returned %.3f s after the abort",
             w.returned_at - t0);
    hp_close(&p);
    pt_end();
}

/* ---- pcclWaitRun spins too ---------------------------------------------- */

static void test_waitrun_spin(void)
{
    pt_begin("hostpath waitrun", 60);
    pcclConfig_t cfg = hp_config(100000, 0);
    hp_pair p;
    if (hp_open(&p, &cfg)) { pt_end(); return; }
    pcclStream_t s[2];
    for (int r = 0; r < 2; r++) PT_OK(pcclHostStreamCreate(p.c[r], &s[r]));
    int iters = ck_scaled(30, 6), wrong = 0;
    for (int it = 0; it < iters; it++) {
        hp_fill(&p, it);
        uint64_t tk[2];
        for (int r = 0; r < 2; r++) PT_OK(pcclRunAfter(p.c[r], p.id, p.in[r], p.out[r], s[r], &tk[r]));
        for (int r = 0; r < 2; r++) PT_OK(pcclWaitRun(p.c[r], p.id, tk[r]));
        wrong += hp_wrong(&p, it);
    }
    PT_CHECK(wrong == 0, "%d wrong elements", wrong);
    for (int r = 0; r < 2; r++) PT_OK(pcclHostStreamDestroy(s[r]));
    hp_close(&p);
    pt_end();
}

/* ---- one rank in place: completed on the host (run.c) ------------------- */

#define NOOP_CHAIN 2000

typedef struct {
    pcclComm_t c;
    int id, left, ran, on_caller;
    pthread_t caller;
    int32_t *buf;
} noop_chain;

/* Re-invokes itself from the poller, as pccl-perf's back-to-back chains do:
 * run there, not nested in pcclRun, so the chain does not grow the stack. */
static void noop_cb(int id, pcclResult_t st, void *arg)
{
    noop_chain *k = arg;
    k->ran++;
    k->on_caller += pthread_equal(pthread_self(), k->caller) != 0;
    /* left: read by the test's thread while the chain runs */
    if (st == pcclSuccess && __atomic_sub_fetch(&k->left, 1, __ATOMIC_RELEASE) > 0 &&
        pcclRun(k->c, k->id, k->buf, k->buf, noop_cb, k) != pcclSuccess)
        __atomic_store_n(&k->left, -1000000, __ATOMIC_RELEASE);
}

static void test_noop_one_rank(void)
{
    enum { N = HP_COUNT, NC = 6 };
    pt_begin("hostpath one rank in place", 60);
    pcclConfig_t cfg = hp_config(100000, 0);
    pcclComm_t c;
    if (pt_init(&c, 1, &cfg)) { pt_end(); return; }
    int id[NC];
    PT_OK(pcclRegisterAllReduce(c, N, pcclInt32, pcclSum, 0, &id[0]));
    PT_OK(pcclRegisterAllGather(c, N, pcclInt32, 0, &id[1]));
    PT_OK(pcclRegisterReduceScatter(c, N, pcclInt32, pcclMax, 0, &id[2]));
    PT_OK(pcclRegisterReduce(c, N, pcclInt32, pcclProd, 0, 0, &id[3]));
    PT_OK(pcclRegisterBroadcast(c, N, pcclInt32, 0, 0, &id[4]));
    PT_OK(pcclRegisterAllReduce(c, N, pcclInt32, pcclAvg, 0, &id[5])); /* avg: through the daemon */
    int32_t *buf = malloc(N * sizeof *buf), *out = malloc(N * sizeof *out);
    for (int i = 0; i < N; i++) buf[i] = 7 * i - 300;
    pcclStats_t st0, st1;
    PT_OK(pcclCommGetStats(c, &st0));
    /* in place, no callback: done when pcclRun returns, the daemon never asked */
    for (int k = 0; k < NC - 1; k++) {
        int done = 0;
        PT_OK(pcclRun(c, id[k], buf, buf, NULL, NULL));
        PT_OK(pcclTest(c, id[k], &done));
        PT_CHECK(done == 1, "collective %d in place on one rank not done when pcclRun returned", k);
        PT_OK(pcclWait(c, id[k]));
    }
    PT_OK(pcclCommGetStats(c, &st1));
    PT_CHECK(st1.launches == st0.launches && st1.blockCompletions == st0.blockCompletions,
             "in-place invocations on one rank reached the daemon: %llu launches, %llu block completions",
             (unsigned long long)(st1.launches - st0.launches),
             (unsigned long long)(st1.blockCompletions - st0.blockCompletions));
    PT_CHECK(st1.completed == st0.completed + NC - 1, "completed %llu, expected %d",
             (unsigned long long)(st1.completed - st0.completed), NC - 1);
    /* avg divides (x / 1 may change a NaN's bits): the daemon runs it */
    PT_OK(pcclRun(c, id[5], buf, buf, NULL, NULL));
    PT_OK(pcclWait(c, id[5]));
    PT_OK(pcclCommGetStats(c, &st1));
    PT_CHECK(st1.launches > st0.launches, "avg in place on one rank did not launch the daemon");
    int wrong = 0;
    for (int i = 0; i < N; i++) wrong += buf[i] != 7 * i - 300;
    PT_CHECK(wrong == 0, "%d elements changed by in-place collectives on one rank", wrong);
    /* with a callback: on the poller, before pcclWait returns; a chain of them */
    noop_chain k = {c, id[0], NOOP_CHAIN, 0, 0, pthread_self(), buf};
    PT_OK(pcclRun(c, id[0], buf, buf, noop_cb, &k));
    double t0 = now_s();
    while (__atomic_load_n(&k.left, __ATOMIC_ACQUIRE) > 0 && now_s() - t0 < 20) usleep(1000);
    PT_OK(pcclWaitAll(c));
    PT_CHECK(__atomic_load_n(&k.left, __ATOMIC_ACQUIRE) == 0 && k.ran == NOOP_CHAIN && k.on_caller == 0,
             "chain of %d: %d callbacks ran, %d on the calling thread (left %d)", NOOP_CHAIN, k.ran, k.on_caller,
             __atomic_load_n(&k.left, __ATOMIC_ACQUIRE));
    /* The daemon's counts (stream tickets, gates) skip them: stream and
     * out-of-place invocations between noops of the same collective. */
    pcclStream_t s;
    PT_OK(pcclHostStreamCreate(c, &s));
    uint64_t last = 0;
    int bad_ticket = 0;
    wrong = 0;
    for (int it = 0; it < ck_scaled(20, 6); it++) {
        uint64_t t;
        for (int i = 0; i < N; i++) buf[i] = it * 1000 + i, out[i] = -1;
        PT_OK(pcclRun(c, id[0], buf, buf, NULL, NULL));
        PT_OK(pcclRunAfter(c, id[0], buf, out, s, &t));
        PT_OK(pcclWaitRun(c, id[0], t));
        bad_ticket += t != last + 1 + (it > 0);
        for (int i = 0; i < N; i++) wrong += out[i] != it * 1000 + i;
        hp_cb cb = {0};
        PT_OK(pcclRun(c, id[0], buf, buf, slow_cb, &cb)); /* a noop whose callback is pending */
        PT_OK(pcclWait(c, id[0]));
        PT_CHECK(__atomic_load_n(&cb.finished, __ATOMIC_ACQUIRE), "pcclWait returned before the callback finished");
        for (int i = 0; i < N; i++) out[i] = -1;
        PT_OK(pcclRun(c, id[0], buf, out, NULL, NULL)); /* out of place: the daemon's, ticket t + 1 */
        PT_OK(pcclWait(c, id[0]));
        for (int i = 0; i < N; i++) wrong += out[i] != it * 1000 + i;
        last = t;
        ck_watchdog_kick();
    }
    PT_CHECK(bad_ticket == 0, "%d stream tickets counted an in-place invocation", bad_ticket);
    PT_CHECK(wrong == 0, "%d wrong elements", wrong);
    PT_OK(pcclHostStreamDestroy(s));
    /* destroy with a noop's callback pending runs it, once */
    hp_cb cb = {0};
    PT_OK(pcclRun(c, id[1], buf, buf, slow_cb, &cb));
    pt_destroy(&c, 1);
    PT_CHECK(__atomic_load_n(&cb.finished, __ATOMIC_ACQUIRE), "destroy returned before a pending callback ran");
    free(buf);
    free(out);
    pt_end();
}

/* ---- one rank out of place from PCCL_ONE_RANK_COPY_BYTES: a copy (direct.c) ---- */

#define COPY_CHAIN 500

typedef struct {
    int order[8], n; /* ids in the order their callbacks ran (atomic n) */
    int on_caller;
    pthread_t caller;
} copy_rec;

static void record_cb(int id, pcclResult_t st, void *arg)
{
    copy_rec *r = arg;
    r->on_caller += pthread_equal(pthread_self(), r->caller) != 0;
    int i = __atomic_fetch_add(&r->n, 1, __ATOMIC_ACQ_REL);
    if (i < 8) r->order[i] = st == pcclSuccess ? id : -100 - id;
}

typedef struct {
    pcclComm_t c;
    int id, left, ran, wrong;
    int32_t *in, *out;
} copy_chain;

/* Re-invokes itself from the poller, each copy's output checked first. */
static void copy_cb(int id, pcclResult_t st, void *arg)
{
    copy_chain *k = arg;
    k->ran++;
    for (int i = 0; i < HP_COUNT; i++) k->wrong += k->out[i] != k->in[i];
    for (int i = 0; i < HP_COUNT; i++) k->in[i]++, k->out[i] = -1;
    if (st == pcclSuccess && __atomic_sub_fetch(&k->left, 1, __ATOMIC_RELEASE) > 0 &&
        pcclRun(k->c, k->id, k->in, k->out, copy_cb, k) != pcclSuccess)
        __atomic_store_n(&k->left, -1000000, __ATOMIC_RELEASE);
}

static int same(const int32_t *a, const int32_t *b, int n)
{
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += a[i] != b[i];
    return wrong;
}

static void fill(int32_t *in, int32_t *out, int n, int seed)
{
    for (int i = 0; i < n; i++) in[i] = seed * 1000 + 3 * i - 50, out[i] = -1;
}

static void test_copy_one_rank(void)
{
    enum { N = HP_COUNT, NC = 5 };
    pt_begin("hostpath one rank out of place: a copy", 60);
    /* N int32 are 400 bytes: copies from there; read at init */
    pt_env e = pt_env_push("PCCL_ONE_RANK_COPY_BYTES", "400");
    pcclConfig_t cfg = hp_config(100000, 0);
    pcclComm_t c;
    int bad = pt_init(&c, 1, &cfg);
    pt_env_pop(e);
    if (bad) { pt_end(); return; }
    int id[NC], avg, small;
    PT_OK(pcclRegisterAllReduce(c, N, pcclInt32, pcclSum, 0, &id[0]));
    PT_OK(pcclRegisterAllGather(c, N, pcclInt32, 0, &id[1]));
    PT_OK(pcclRegisterReduceScatter(c, N, pcclInt32, pcclMax, 0, &id[2]));
    PT_OK(pcclRegisterReduce(c, N, pcclInt32, pcclProd, 0, 0, &id[3]));
    PT_OK(pcclRegisterBroadcast(c, N, pcclInt32, 0, 0, &id[4]));
    PT_OK(pcclRegisterAllReduce(c, N, pcclInt32, pcclAvg, 0, &avg));       /* avg: the daemon's */
    PT_OK(pcclRegisterAllReduce(c, N / 2, pcclInt32, pcclSum, 0, &small)); /* 200 bytes: the daemon's */
    int32_t *in = malloc(N * sizeof *in), *out[NC];
    for (int k = 0; k < NC; k++) out[k] = malloc(N * sizeof *out[k]);
    pcclStats_t st0, st1;
    PT_OK(pcclCommGetStats(c, &st0));
    /* no callback: pcclWait returns once the copy stream copied it */
    int wrong = 0;
    for (int k = 0; k < NC; k++) {
        fill(in, out[k], N, k);
        PT_OK(pcclRun(c, id[k], in, out[k], NULL, NULL));
        PT_OK(pcclWait(c, id[k]));
        wrong += same(in, out[k], N);
    }
    PT_CHECK(wrong == 0, "%d wrong elements after one rank's copies", wrong);
    PT_OK(pcclCommGetStats(c, &st1));
    PT_CHECK(st1.launches == st0.launches && st1.blockCompletions == st0.blockCompletions,
             "one rank's copies reached the daemon: %llu launches, %llu block completions",
             (unsigned long long)(st1.launches - st0.launches),
             (unsigned long long)(st1.blockCompletions - st0.blockCompletions));
    PT_CHECK(st1.completed == st0.completed + NC, "completed %llu, expected %d",
             (unsigned long long)(st1.completed - st0.completed), NC);
    /* avg, and sizes below the threshold: the daemon */
    int32_t *o2 = malloc(N * sizeof *o2);
    fill(in, o2, N, 9);
    PT_OK(pcclRun(c, avg, in, o2, NULL, NULL));
    PT_OK(pcclWait(c, avg));
    wrong = same(in, o2, N);
    PT_OK(pcclCommGetStats(c, &st1));
    PT_CHECK(st1.launches > st0.launches, "avg out of place on one rank did not launch the daemon");
    /* the daemon's, so counted: the stream invocation after it takes the
     * ticket after next */
    pcclStream_t s;
    PT_OK(pcclHostStreamCreate(c, &s));
    uint64_t t1, t2;
    PT_OK(pcclRunAfter(c, small, in, o2, s, &t1));
    PT_OK(pcclWaitRun(c, small, t1));
    fill(in, o2, N, 10);
    PT_OK(pcclRun(c, small, in, o2, NULL, NULL));
    PT_OK(pcclWait(c, small));
    wrong += same(in, o2, N / 2) + (o2[N / 2] != -1);
    PT_OK(pcclRunAfter(c, small, in, o2, s, &t2));
    PT_OK(pcclWaitRun(c, small, t2));
    PT_CHECK(t2 == t1 + 2, "200 bytes out of place (below 400) not counted by the daemon: tickets %llu, %llu",
             (unsigned long long)t1, (unsigned long long)t2);
    PT_CHECK(wrong == 0, "%d wrong elements through the daemon", wrong);
    /* callbacks on the poller, in pcclRun's order: copies and in-place
     * invocations (complete at once, but queued behind the copies) */
    copy_rec rec = {.caller = pthread_self()};
    fill(in, out[0], N, 11);
    for (int k = 0; k < NC; k++) {
        if (k % 2 == 0) PT_OK(pcclRun(c, id[k], in, out[k], record_cb, &rec));
        else PT_OK(pcclRun(c, id[k], out[k], out[k], record_cb, &rec));
    }
    PT_OK(pcclWaitAll(c));
    int n = __atomic_load_n(&rec.n, __ATOMIC_ACQUIRE), misordered = 0;
    for (int k = 0; k < NC && k < n; k++) misordered += rec.order[k] != id[k];
    PT_CHECK(n == NC && misordered == 0 && rec.on_caller == 0,
             "%d callbacks (expected %d), %d out of pcclRun's order, %d on the calling thread", n, NC, misordered,
             rec.on_caller);
    PT_CHECK(same(in, out[0], N) == 0 && same(in, out[2], N) == 0 && same(in, out[4], N) == 0,
             "a copy with a callback wrote wrong data");
    /* a chain of copies, each issued by the callback of the one before */
    fill(in, out[0], N, 12);
    copy_chain k = {c, id[0], COPY_CHAIN, 0, 0, in, out[0]};
    PT_OK(pcclRun(c, id[0], in, out[0], copy_cb, &k));
    double t0 = now_s();
    while (__atomic_load_n(&k.left, __ATOMIC_ACQUIRE) > 0 && now_s() - t0 < 20) usleep(1000);
    PT_OK(pcclWaitAll(c));
    PT_CHECK(__atomic_load_n(&k.left, __ATOMIC_ACQUIRE) == 0 && k.ran == COPY_CHAIN && k.wrong == 0,
             "chain of %d copies: %d callbacks ran, %d wrong elements (left %d)", COPY_CHAIN, k.ran, k.wrong,
             __atomic_load_n(&k.left, __ATOMIC_ACQUIRE));
    /* the daemon's counts skip copies: a stream invocation between them
     * takes the next ticket, and still runs on the daemon */
    uint64_t last = 0;
    int bad_ticket = 0;
    wrong = 0;
    for (int it = 0; it < ck_scaled(20, 6); it++) {
        uint64_t t;
        fill(in, out[1], N, 20 + it);
        PT_OK(pcclRun(c, id[1], in, out[1], NULL, NULL));
        PT_OK(pcclWait(c, id[1]));
        wrong += same(in, out[1], N);
        fill(in, out[1], N, 40 + it);
        PT_OK(pcclRunAfter(c, id[1], in, out[1], s, &t));
        PT_OK(pcclWaitRun(c, id[1], t));
        wrong += same(in, out[1], N);
        bad_ticket += t != last + 1;
        last = t;
        ck_watchdog_kick();
    }
    PT_CHECK(bad_ticket == 0, "%d stream tickets counted a copy", bad_ticket);
    PT_CHECK(wrong == 0, "%d wrong elements between copies and stream invocations", wrong);
    PT_OK(pcclHostStreamDestroy(s));
    /* pcclDeviceSynchronize waits for the copy stream, and completes the copy */
    fill(in, out[3], N, 60);
    PT_OK(pcclRun(c, id[3], in, out[3], NULL, NULL));
    PT_OK(pcclDeviceSynchronize(c));
    int done = 0;
    PT_OK(pcclTest(c, id[3], &done));
    PT_CHECK(done == 1 && same(in, out[3], N) == 0, "after pcclDeviceSynchronize: done %d, %d wrong elements", done,
             same(in, out[3], N));
    /* destroy with a copy's callback pending runs it, once, after the copy */
    hp_cb cb = {0};
    fill(in, out[2], N, 61);
    PT_OK(pcclRun(c, id[2], in, out[2], slow_cb, &cb));
    pt_destroy(&c, 1);
    PT_CHECK(__atomic_load_n(&cb.finished, __ATOMIC_ACQUIRE) && same(in, out[2], N) == 0,
             "destroy returned before a pending copy's callback ran, or the copy was wrong");
    free(in);
    free(o2);
    for (int i = 0; i < NC; i++) free(out[i]);
    pt_end();
}

/* A copy that fails on the GPU (its event reports an error, and CUDA's
 * errors stick): the host backend's PCCL_TEST_COPY_FAIL=3 fails copy 3 and
 * every later one.  The copies before it complete exact; copy 3's
 * invocation completes with pcclUnhandledCudaError, named in
 * pcclGetLastError, and so does every later one, a callback's too, and an
 * in-place invocation queued behind a failed copy (the queue keeps
 * pcclRun's order); each within the test's bound, none hangs. */
static void test_copy_fail(void)
{
    enum { N = HP_COUNT };
    pt_begin("hostpath one rank: a failed copy", 30);
    pt_env e1 = pt_env_push("PCCL_ONE_RANK_COPY_BYTES", "400"), e2 = pt_env_push("PCCL_TEST_COPY_FAIL", "3");
    pcclConfig_t cfg = hp_config(100000, 0);
    pcclComm_t c;
    int bad = pt_init(&c, 1, &cfg); /* the knobs are read at init */
    pt_env_pop(e2);
    pt_env_pop(e1);
    if (bad) { pt_end(); return; }
    int id, id2;
    PT_OK(pcclRegisterAllReduce(c, N, pcclInt32, pcclSum, 0, &id));
    PT_OK(pcclRegisterAllGather(c, N, pcclInt32, 0, &id2));
    int32_t *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    int wrong = 0;
    for (int k = 1; k <= 2; k++) { /* copies 1 and 2 */
        fill(in, out, N, k);
        PT_OK(pcclRun(c, id, in, out, NULL, NULL));
        PT_OK(pcclWait(c, id));
        wrong += same(in, out, N);
    }
    PT_CHECK(wrong == 0, "%d wrong elements in the copies before the failed one", wrong);
    fill(in, out, N, 3); /* copy 3: fails */
    PT_OK(pcclRun(c, id, in, out, NULL, NULL));
    pcclResult_t r = pcclWait(c, id);
    const char *msg = pcclGetLastError(c);
    PT_CHECK(r == pcclUnhandledCudaError, "the failed copy's invocation: %s, expected pcclUnhandledCudaError",
             pcclGetErrorString(r));
    PT_CHECK(msg && strstr(msg, "the copy of collective") && strstr(msg, "failed on the GPU"),
             "pcclGetLastError after the failed copy: '%s'", msg ? msg : "(null)");
    /* copy 4 with a callback, then an in-place invocation behind it */
    copy_rec rec = {.caller = pthread_self()};
    PT_OK(pcclRun(c, id, in, out, record_cb, &rec));
    PT_OK(pcclRun(c, id2, out, out, record_cb, &rec));
    pcclWaitAll(c);
    int n = __atomic_load_n(&rec.n, __ATOMIC_ACQUIRE);
    PT_CHECK(n == 2 && rec.order[0] == -100 - id && rec.order[1] == -100 - id2,
             "after the failed copy: %d callbacks (expected 2), statuses %s, %s (expected both failed)", n,
             n > 0 && rec.order[0] >= 0 ? "success" : "failed", n > 1 && rec.order[1] >= 0 ? "success" : "failed");
    free(in);
    free(out);
    pt_destroy(&c, 1);
    pt_end();
}

/* ---- PCCL_TRACE_LAT ----------------------------------------------------- */

/* Destroys p with stderr in a file; returns what was printed (malloc'd). */
static char *close_capturing_stderr(hp_pair *p)
{
    pt_stderr cap;
    int ok = pt_stderr_begin(&cap) == 0;
    hp_close(p);
    return ok ? pt_stderr_end(&cap) : NULL;
}

/* The median of hop `name` on line `l`, or -1e9 if absent. */
static double hop(const char *l, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, " %s ", name);
    const char *p = strstr(l, key);
    return p ? strtod(p + strlen(key), NULL) : -1e9;
}

static void test_trace(void)
{
    pt_begin("hostpath trace", 60);
    pcclConfig_t cfg = hp_config(1000000, 1);
    hp_pair p;
    if (hp_open(&p, &cfg)) { pt_end(); return; }
    const int iters = 40;
    int wrong = 0, cbs = 0;
    for (int it = 0; it < iters; it++) {
        hp_fill(&p, it);
        /* every 4th with a callback: the poller's path, seen->cb */
        for (int r = 0; r < 2; r++)
            PT_OK(pcclRun(p.c[r], p.id, p.in[r], p.out[r], it % 4 ? NULL : count_cb, it % 4 ? NULL : &cbs));
        for (int r = 0; r < 2; r++) PT_OK(pcclWait(p.c[r], p.id));
        wrong += hp_wrong(&p, it);
    }
    PT_CHECK(wrong == 0, "%d wrong elements", wrong);
    char *out = close_capturing_stderr(&p);
    PT_CHECK(out != NULL, "capturing stderr failed");
    for (int r = 0; out && r < 2; r++) {
        /* pcclWait's 30 and the callbacks' 10: a line each */
        char head[160];
        snprintf(head, sizeof head, "pccl-trace rank %d: all_reduce %d B via pcclWait: %d invocations;", r,
                 HP_COUNT * 4, iters - iters / 4);
        const char *l = strstr(out, head);
        PT_CHECK(l != NULL, "no line \"%s\" in:\n%s", head, out);
        snprintf(head, sizeof head, "pccl-trace rank %d: all_reduce %d B via callback: %d invocations;", r,
                 HP_COUNT * 4, iters / 4);
        const char *lc = strstr(out, head);
        PT_CHECK(lc != NULL, "no line \"%s\" in:\n%s", head, out);
        if (!l || !lc) continue;
        double run = hop(l, "run"), dev = hop(l, "daemon"), xfer = hop(l, "crossings"), f = hop(l, "sq->fetch"),
               cq = hop(l, "cq->seen"), wake = hop(l, "seen->wake"), tot = hop(l, "total"),
               own = hop(l, "waiter-drained"), cb = hop(lc, "seen->cb"), owncb = hop(lc, "waiter-drained");
        PT_CHECK(run >= 0 && dev >= 0 && xfer >= 0 && f >= 0 && cq >= 0 && wake >= 0 && cb >= 0,
                 "rank %d: a hop missing or negative: %.200s", r, l);
        /* one clock on the host backend: the medians each lie within the total */
        PT_CHECK(tot >= dev && tot >= run && tot >= f && tot >= cq, "rank %d: total below a hop: %.200s", r, l);
        const char *e = strchr(l, '\n');
        PT_CHECK(!strstr(l, " seen->cb ") || (e && strstr(l, " seen->cb ") > e),
                 "rank %d: pcclWait's line has callbacks: %.200s", r, l);
        /* a waiter never drains a callback's entry; pcclWait's are the
         * waiter's or the poller's (they race) */
        PT_CHECK(owncb == 0, "rank %d: waiters drained %.2f of the callbacks' completions", r, owncb);
        PT_CHECK(own >= 0 && own <= 1, "rank %d: waiters drained a fraction %.2f", r, own);
    }
    free(out);
    pt_end();
}

/* ---- the knobs' ranges -------------------------------------------------- */

static void test_knob_ranges(void)
{
    pcclComm_t c[2];
    pcclConfig_t cfg = hp_config(-1, 2);
    PT_ERR(pcclInvalidArgument, pcclCommInitAllConfig(c, 2, NULL, &cfg));
    PT_CHECK(strstr(pcclGetLastError(NULL), "PCCL_TRACE_LAT") != NULL, "message: %s", pcclGetLastError(NULL));
    cfg = hp_config(60000001, -1);
    PT_ERR(pcclInvalidArgument, pcclCommInitAllConfig(c, 2, NULL, &cfg));
    PT_CHECK(strstr(pcclGetLastError(NULL), "PCCL_WAIT_SPIN_US") != NULL, "message: %s", pcclGetLastError(NULL));
    setenv("PCCL_WAIT_SPIN_US", "soon", 1);
    cfg = hp_config(-1, -1);
    PT_ERR(pcclInvalidArgument, pcclCommInitAllConfig(c, 2, NULL, &cfg));
    PT_CHECK(strstr(pcclGetLastError(NULL), "PCCL_WAIT_SPIN_US") != NULL, "message: %s", pcclGetLastError(NULL));
    unsetenv("PCCL_WAIT_SPIN_US");
}

int pt_register_hostpath(void)
{
    CU_pSuite s = CU_add_suite("hostpath", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "spinning waiters leave callbacks to the poller, before pcclWait returns",
                     test_callbacks_on_poller) ||
        !CU_add_test(s, "a spinning waiter sees a completion the poller drained", test_waiter_hears_poller) ||
        !CU_add_test(s, "a waiter drains its completion itself while the poller runs a callback",
                     test_waiter_drains_itself) ||
        !CU_add_test(s, "abort releases a spinning waiter at once", test_abort_spinning_waiter) ||
        !CU_add_test(s, "pcclWaitRun spins and drains, exact", test_waitrun_spin) ||
        !CU_add_test(s, "one rank in place completes on the host; the daemon's counts skip it", test_noop_one_rank) ||
        !CU_add_test(s, "one rank out of place from PCCL_ONE_RANK_COPY_BYTES: a copy, in order, exact",
                     test_copy_one_rank) ||
        !CU_add_test(s, "one rank: a failed copy fails its invocation and every later one, none hangs",
                     test_copy_fail) ||
        !CU_add_test(s, "PCCL_TRACE_LAT: every invocation once, hops that add up", test_trace) ||
        !CU_add_test(s, "PCCL_TRACE_LAT and PCCL_WAIT_SPIN_US: bad values refused by name", test_knob_ranges))
        return -1;
    return 0;
}
