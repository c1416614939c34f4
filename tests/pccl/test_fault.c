/* Ranks as separate processes (mproc.h): the host backend's shared-memory
 * arenas, exact results, the random-order test with syncs and chaos with
 * failure detection on (no false alarm); then faults: a rank killed (-9) or
 * stopped (SIGSTOP) at a random point of init, registration, a collective, a
 * synchronization or destroy, over many seeds.  Every survivor must get
 * pcclRemoteError within its deadline (destroy: or finish), shrink (or
 * re-init, where the init itself failed), complete the next collectives
 * exactly, and leave no thread, mapping, /dev/shm entry or process behind. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/internal.h"
#include "harness.h"
#include "mproc.h"

static pt_env old_boot;
static void env_set(void)
{
    char b[16];
    snprintf(b, sizeof b, "%d", MP_BOOT_S);
    old_boot = pt_env_push("PCCL_BOOT_TIMEOUT", b);
}
static void env_restore(void) { pt_env_pop(old_boot); }

static void run_clean(const char *what, int n, int iters, int sync, int chaos, uint64_t seed)
{
    char why[1024];
    double t0 = ck_now();
    int ok = mp_clean_case(PCCL_BACKEND_HOST, n, iters, sync, chaos, seed, why, sizeof why);
    PT_CHECK(ok, "%s: %s", what, why);
    fprintf(stderr, "\n  %s: %d ranks, %d iterations x 5 collectives, %.2f s", what, n, iters, ck_now() - t0);
}

static void test_exact(void)
{
    pt_begin("multiproc exact", 300);
    env_set();
    for (int n = 2; n <= 4; n++) run_clean("processes", n, ck_scaled(40, 6), 0, 0, (uint64_t)n);
    env_restore();
    pt_end();
}

static void test_randorder(void)
{
    pt_begin("multiproc random order", 300);
    env_set();
    run_clean("random order + chaos, detection 500 ms", 3, ck_scaled(40, 6), 0, 1, 11);
    run_clean("random order + syncs + chaos, detection 500 ms", 3, ck_scaled(20, 4), 1, 1, 12);
    run_clean("random order + syncs, detection 500 ms", 4, ck_scaled(20, 4), 1, 0, 13);
    env_restore();
    pt_end();
}

/* A peer that computes for 800 ms before each iteration, longer than the
 * 500 ms timeout, while the others wait on it: alive (its poller beats), so
 * never failed. */
static void test_slow_peer(void)
{
    pt_begin("multiproc slow peer", 120);
    env_set();
    char why[1024];
    double t0 = ck_now();
    int ok = mp_slow_case(PCCL_BACKEND_HOST, 3, 2, 800, why, sizeof why);
    PT_CHECK(ok, "a slow peer: %s", why);
    fprintf(stderr, "\n  a rank computing 800 ms before each of 2 iterations, timeout 500 ms: %s, %.2f s",
            ok ? "no false alarm" : "FAILED", ck_now() - t0);
    env_restore();
    pt_end();
}

/* mp_leave_case (mproc.c).  Before the clean leave's count (health.c), rank
 * 0's broadcast failed with pcclRemoteError, "rank 1 left the communicator",
 * though it needed rank 1 no more. */
static void test_early_leaver(void)
{
    pt_begin("multiproc early leaver", 90);
    env_set();
    char why[1024];
    double t0 = ck_now();
    int ok = mp_leave_case(PCCL_BACKEND_HOST, why, sizeof why);
    PT_CHECK(ok, "an early leaver: %s", why);
    fprintf(stderr, "\n  rank 1 done and gone while rank 0 waits for rank 2: %s, %.2f s", ok ? "no false alarm" : "FAILED",
            ck_now() - t0);
    env_restore();
    pt_end();
}

/* A peer whose process waits for a CPU for 1.5 s (pinned to CPU 0, taken
 * by a SCHED_FIFO spin) while the others wait on it, timeout 500 ms: alive
 * (on a run queue), so never failed.  Under load, pollers waited that long
 * for a CPU, and the random-order cases above failed them. */
static void test_starved_peer(void)
{
    pt_begin("multiproc starved peer", 120);
    env_set();
    char why[1024];
    double t0 = ck_now();
    int ok = mp_starved_case(PCCL_BACKEND_HOST, 3, 1500, why, sizeof why);
    if (ok < 0) fprintf(stderr, "\n  skipped: %s", why);
    else {
        PT_CHECK(ok, "a starved peer: %s", why);
        fprintf(stderr, "\n  a rank without a CPU for 1.5 s, timeout 500 ms: %s, %.2f s", ok ? "no false alarm" : "FAILED",
                ck_now() - t0);
    }
    env_restore();
    pt_end();
}

/* ---- the starvation rule's two looks at a process (health.c) -------------- */

typedef struct {
    int stop, tid;
} victim_arg;

static void *victim_main(void *p)
{
    victim_arg *a = p;
    __atomic_store_n(&a->tid, (int)gettid(), __ATOMIC_RELEASE);
    while (!__atomic_load_n(&a->stop, __ATOMIC_RELAXED)) {
    }
    return NULL;
}

static const pccl_tlook *find_tid(const pccl_tlook *l, int n, int tid)
{
    for (int i = 0; i < n; i++)
        if (l[i].tid == tid) return &l[i];
    return NULL;
}

/* The rule's comparison on made-up looks, then on this process: a thread
 * pinned to CPU 0 while a SCHED_FIFO spin holds CPU 0 is runnable at both
 * looks, 200 ms apart, with less than half of that in CPU time (none, or
 * the 50 ms a second the kernel's real-time throttle leaves others).  Without it,
 * a live rank's poller blocked behind such a thread was failed as stalled
 * (CI's TSan run of the starved-peer test above, under load). */
static void test_starvation_rule(void)
{
    pt_begin("starvation rule", 30);
    const uint64_t ms = 1000000;
    pccl_tlook then[3] = {{11, 5 * ms}, {12, 0}, {13, 7 * ms}};
    pccl_tlook now1[2] = {{12, 40 * ms}, {13, 9 * ms}}; /* 13: 2 ms of 100 */
    pccl_tlook now2[2] = {{12, 60 * ms}, {14, 0}};      /* 12 had 60 of 100; 14 is new */
    pccl_tlook now3[1] = {{11, 4 * ms}};                /* a CPU time that went back: another thread */
    PT_CHECK(pccl_waited_for_cpu(then, 3, now1, 2, 100 * ms) == 1, "thread 13 had 2 ms of 100: it waited for a CPU");
    PT_CHECK(pccl_waited_for_cpu(then, 3, now2, 2, 100 * ms) == 0, "12 had the CPU, 14 was not runnable before");
    PT_CHECK(pccl_waited_for_cpu(then, 3, now3, 1, 100 * ms) == 0, "a CPU time that went back is no wait");
    PT_CHECK(pccl_waited_for_cpu(then, 0, now1, 2, 100 * ms) == 0, "nothing runnable at the first look");

    victim_arg v = {0};
    pthread_t vt, ft;
    PT_CHECK(pccl_proc_runnable(getpid(), then, 3) >= 1, "this thread runs: it is runnable");
    if (mp_thread_cpu0(&vt, 0, victim_main, &v)) {
        PT_CHECK(0, "no thread on CPU 0");
        pt_end();
        return;
    }
    while (!__atomic_load_n(&v.tid, __ATOMIC_ACQUIRE)) sched_yield();
    double until = ck_now() + 0.4;
    int e = mp_thread_cpu0(&ft, 1, mp_spin_until, &until);
    if (e) {
        fprintf(stderr, "\n  skipped the live half: no SCHED_FIFO thread here (%s)", strerror(e));
    } else {
        pccl_tlook a[PCCL_RUNQ_LOOK], b[PCCL_RUNQ_LOOK];
        struct timespec d = {0, 50 * 1000000};
        nanosleep(&d, NULL); /* the spin has CPU 0 */
        double t0 = ck_now();
        int na = pccl_proc_runnable(getpid(), a, PCCL_RUNQ_LOOK);
        d.tv_nsec = 200 * 1000000;
        nanosleep(&d, NULL);
        int nb = pccl_proc_runnable(getpid(), b, PCCL_RUNQ_LOOK);
        uint64_t span = (uint64_t)((ck_now() - t0) * 1e9);
        const pccl_tlook *x = find_tid(a, na, v.tid), *y = find_tid(b, nb, v.tid);
        PT_CHECK(x && y, "the thread on CPU 0 is runnable at both looks (%s, %s)", x ? "yes" : "no", y ? "yes" : "no");
        if (x && y)
            PT_CHECK((y->cpu_ns - x->cpu_ns) * 2 < span, "it had %.1f ms of CPU in %.1f ms (the real-time throttle "
                     "leaves others 50 ms a second)", (y->cpu_ns - x->cpu_ns) / 1e6, span / 1e6);
        PT_CHECK(pccl_waited_for_cpu(a, na, b, nb, span), "the rule sees a thread that waited for a CPU");
        pthread_join(ft, NULL);
    }
    __atomic_store_n(&v.stop, 1, __ATOMIC_RELAXED);
    pthread_join(vt, NULL);
    pt_end();
}

/* ---- pcclCommShrink from threads of one process, and its arguments ---------- */

typedef struct {
    pcclComm_t old, shrunk;
    int exclude, wrong;
    pcclResult_t r;
} shrink_arg;

/* A survivor: shrinks, then runs an all-reduce on the new communicator. */
static void *shrink_main(void *p)
{
    shrink_arg *a = p;
    pcclConfig_t cfg = pt_config(2, 512);
    if ((a->r = pcclCommShrink(a->old, &a->exclude, 1, &a->shrunk, &cfg, PCCL_SHRINK_DEFAULT))) return NULL;
    int n = 0, rank = -1, id;
    pcclCommCount(a->shrunk, &n);
    pcclCommUserRank(a->shrunk, &rank);
    ck_coll cc = {pcclCollAllReduce, pcclInt32, pcclSum, 0, 1000, n};
    void *s = malloc(ck_send_bytes(&cc)), *r = malloc(ck_recv_bytes(&cc));
    ck_prepare(&cc, rank, 5, 0, s, r);
    if ((a->r = pcclRegisterAllReduce(a->shrunk, cc.count, cc.dtype, cc.op, 0, &id)) ||
        (a->r = pcclRun(a->shrunk, id, s, r, NULL, NULL)) || (a->r = pcclWait(a->shrunk, id)))
        a->wrong = -1;
    else
        a->wrong = (int)ck_verify(&cc, rank, 5, 0, r, NULL, 0);
    free(s);
    free(r);
    return NULL;
}

static void test_shrink_threads(void)
{
    pt_begin("shrink threads", 60);
    pcclConfig_t cfg = pt_config(2, 512);
    pcclComm_t c[3];
    if (pt_init(c, 3, &cfg)) return;
    shrink_arg a[2] = {{c[0], NULL, 1, 0, 0}, {c[2], NULL, 1, 0, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, shrink_main, &a[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++) {
        int n = 0, rank = -1;
        PT_CHECK(a[i].r == pcclSuccess && a[i].wrong == 0, "rank %d: shrink or all-reduce -> %s, %d wrong: %s",
                 2 * i, pcclGetErrorString(a[i].r), a[i].wrong, pcclGetLastError(NULL));
        if (!a[i].shrunk) continue;
        pcclCommCount(a[i].shrunk, &n);
        pcclCommUserRank(a[i].shrunk, &rank);
        PT_CHECK(n == 2 && rank == i, "old rank %d: new communicator of %d, rank %d (want 2, %d)", 2 * i, n, rank, i);
        int dev_old = -1, dev_new = -2; /* a survivor keeps its device (old rank 2 is new rank 1) */
        PT_OK(pcclCommCuDevice(a[i].old, &dev_old));
        PT_OK(pcclCommCuDevice(a[i].shrunk, &dev_new));
        PT_CHECK(dev_new == dev_old, "old rank %d: device %d after the shrink, %d before", 2 * i, dev_new, dev_old);
        PT_OK(pcclCommDestroy(a[i].shrunk));
    }
    pcclResult_t ae = pcclRemoteError;
    PT_OK(pcclCommGetAsyncError(c[0], &ae));
    PT_CHECK(ae == pcclSuccess, "a healthy communicator reports async error %d", ae);
    pt_destroy(c, 3);
    pt_end();
}

static void test_shrink_args(void)
{
    pt_begin("shrink args", 60);
    pcclConfig_t cfg = pt_config(1, 512);
    pcclComm_t c[2], nc = NULL;
    if (pt_init(c, 2, &cfg)) return;
    int one = 1, zero = 0, twice[2] = {1, 1}, bad = 7, ranks[2], n = -1;
    PT_ERR(pcclInvalidArgument, pcclCommShrink(c[0], &one, 1, NULL, &cfg, 0));
    PT_ERR(pcclInvalidArgument, pcclCommShrink(c[0], NULL, 1, &nc, &cfg, 0));
    PT_ERR(pcclInvalidArgument, pcclCommShrink(c[0], &one, -1, &nc, &cfg, 0));
    PT_ERR(pcclInvalidArgument, pcclCommShrink(c[0], &one, 2, &nc, &cfg, 0)); /* nobody left */
    PT_ERR(pcclInvalidArgument, pcclCommShrink(c[0], &zero, 1, &nc, &cfg, 0)); /* itself */
    PT_ERR(pcclInvalidArgument, pcclCommShrink(c[0], &bad, 1, &nc, &cfg, 0));
    PT_ERR(pcclInvalidArgument, pcclCommShrink(c[0], &one, 1, &nc, &cfg, 5)); /* flags */
    PT_ERR(pcclInvalidArgument, pcclCommShrink(c[0], twice, 2, &nc, &cfg, 0));
    PT_ERR(pcclInvalidArgument, pcclCommGetFailedRanks(c[0], NULL, &n));
    PT_ERR(pcclInvalidArgument, pcclCommGetAsyncError(c[0], NULL));
    PT_OK(pcclCommGetFailedRanks(c[0], ranks, &n));
    PT_CHECK(n == 0, "a healthy communicator lists %d failed ranks", n);
    PT_CHECK(nc == NULL, "a refused shrink set newcomm");
    /* A one-rank shrink needs no peer: rank 0 alone, excluding rank 1, after
     * failing what the parent has in flight (PCCL_SHRINK_ABORT). */
    PT_OK(pcclCommShrink(c[0], &one, 1, &nc, &cfg, PCCL_SHRINK_ABORT));
    pcclResult_t ae = pcclSuccess;
    PT_OK(pcclCommGetAsyncError(c[0], &ae));
    PT_CHECK(ae == pcclRemoteError, "PCCL_SHRINK_ABORT left the parent's async error at %d", ae);
    PT_OK(pcclCommGetFailedRanks(c[0], ranks, &n));
    PT_CHECK(n == 1 && ranks[0] == 1, "after PCCL_SHRINK_ABORT excluding 1: %d failed ranks (first %d)", n, ranks[0]);
    if (nc) PT_OK(pcclCommDestroy(nc));
    PT_OK(pcclCommAbort(c[0]));
    PT_OK(pcclCommDestroy(c[1]));
    pt_end();
}

/* ---- faults (mp_fault_case judges each: mproc.c) ------------------------------ */

static void test_faults(void)
{
    pt_begin("faults", 600);
    env_set();
    const char *e = getenv("PCCL_FAULT_SEEDS");
    int n = e ? atoi(e) : ck_quick() ? 5 : 15;
    mp_stats st;
    memset(&st, 0, sizeof st);
    double t0 = ck_now();
    for (int i = 1; i <= n; i++) {
        char why[1024];
        int ok = mp_fault_case((uint64_t)i, PCCL_BACKEND_HOST, 2, 4, &st, why, sizeof why);
        PT_CHECK(ok, "%s", why);
    }
    fprintf(stderr, "\n");
    mp_print_stats(&st, stderr);
    fprintf(stderr, "  (%.1f s)", ck_now() - t0);
    env_restore();
    pt_end();
}

/* The mesh (PCCL_ALGO=oneshot or twoshot: each rank maps every peer's
 * arena, not its ring neighbours' alone) as processes: exact, in random
 * orders with syncs and chaos; then faults, whose survivors shrink into a
 * mesh of their own. */
static void test_mesh(void)
{
    pt_begin("multiproc mesh", 600);
    env_set();
    pt_env k = pt_env_push("PCCL_ALGO", "twoshot");
    run_clean("processes, two-shot", 4, ck_scaled(20, 4), 0, 0, 31);
    run_clean("processes, two-shot, random order + syncs + chaos", 3, ck_scaled(20, 4), 1, 1, 32);
    mp_stats st;
    memset(&st, 0, sizeof st);
    for (int i = 1; i <= (ck_quick() ? 2 : 4); i++) {
        char why[1024];
        int ok = mp_fault_case((uint64_t)(100 + i), PCCL_BACKEND_HOST, 3, 4, &st, why, sizeof why);
        PT_CHECK(ok, "two-shot: %s", why);
    }
    pt_env_pop(k);
    k = pt_env_push("PCCL_ALGO", "oneshot");
    run_clean("processes, one-shot", 4, ck_scaled(20, 4), 0, 0, 33);
    pt_env_pop(k);
    env_restore();
    pt_end();
}

int pt_register_multiproc(void)
{
    CU_pSuite s = CU_add_suite("multiproc", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "2-4 ranks as processes, shared-memory arenas: exact", test_exact) ||
        !CU_add_test(s, "random order, syncs, chaos, detection on: no false alarm", test_randorder) ||
        !CU_add_test(s, "a slow peer (computing longer than the timeout): no false alarm", test_slow_peer) ||
        !CU_add_test(s, "a starved peer (no CPU for longer than the timeout): no false alarm", test_starved_peer) ||
        !CU_add_test(s, "the starvation rule: a thread without a CPU at two looks", test_starvation_rule) ||
        !CU_add_test(s, "a peer that finished and left first: no false alarm, until one invocation more", test_early_leaver) ||
        !CU_add_test(s, "the mesh (oneshot, twoshot) as processes: exact, chaos, faults", test_mesh) ||
        !CU_add_test(s, "pcclCommShrink from threads: exact", test_shrink_threads) ||
        !CU_add_test(s, "pcclCommShrink and fault queries: bad arguments", test_shrink_args))
        return -1;
    return 0;
}

int pt_register_faults(void)
{
    CU_pSuite s = CU_add_suite("faults", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "kill -9 / SIGSTOP a rank at random points", test_faults)) return -1;
    return 0;
}
