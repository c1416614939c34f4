/* Regressions: bugs this suite found in lib/, one minimal reproducer each
 * (KB1-KB10 below say what was wrong and how it was fixed); they must stay
 * fixed.  Races show under the TSan build. */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static int enabled(const char *what)
{
    (void)what;
    return 1;
}
/* KB1 (TSan): pccl_end (lib/scheduler.h, the += on G->stats[b].preemptions,
 * .primitives, .quits) writes the block statistics with plain stores while
 * pcclCommGetStats (lib/stats.c) reads them with __atomic_load_n: a data race
 * whenever statistics are read while a daemon instance ends.  Fix: store
 * them with pccl_st_rel (release) in pccl_end. */
typedef struct {
    pcclComm_t c;
    int id, left;
    int32_t *s, *r;
} kb1_chain;

static void kb1_cb(int id, pcclResult_t st, void *arg)
{
    kb1_chain *k = arg;
    if (k->left-- > 0) pcclRun(k->c, k->id, k->s, k->r, kb1_cb, k); /* launched by the poller */
}

static void test_stats_race(void)
{
    if (!enabled("KB1 stats race: pccl_end writes stats non-atomically while pcclCommGetStats reads")) return;
    pt_begin("KB1", 60);
    for (int rep = 0; rep < 5; rep++) {
        pcclComm_t c[3];
        pcclConfig_t cfg = pt_config(2, 256);
        if (pt_init(c, 3, &cfg)) break;
        kb1_chain k[3];
        for (int r = 0; r < 3; r++) {
            k[r] = (kb1_chain){c[r], 0, 20, calloc(3 * 700, 4), calloc(700, 4)};
            PT_OK(pcclRegisterReduceScatter(c[r], 700, pcclInt32, pcclSum, 0, &k[r].id));
        }
        for (int r = 0; r < 3; r++) PT_OK(pcclRun(c[r], k[r].id, k[r].s, k[r].r, kb1_cb, &k[r]));
        for (int r = 0; r < 3; r++) PT_OK(pcclWait(c[r], k[r].id));
        double t0 = ck_now();
        while (ck_now() - t0 < 0.02) { /* while the daemons are ending */
            pcclStats_t st;
            for (int r = 0; r < 3; r++) PT_OK(pcclCommGetStats(c[r], &st));
        }
        pt_destroy(c, 3);
        for (int r = 0; r < 3; r++) {
            free(k[r].s);
            free(k[r].r);
        }
    }
    pt_end();
}

/* KB2 (TSan; a use-after-free): pcclCommAbort / pcclCommDestroy free the
 * communicator (group_leave -> comm_free in lib/comm.c) while threads woken
 * from pcclWait / pcclWaitAll on it have yet to re-take c->mu and read
 * c->colls[id].status (pcclWait) or c->aborted (pcclWaitAll reads it even
 * after unlocking).  Likewise a call that passed CHECK_COMM's live_has() can
 * lock c->mu after the free.  Fix: count callers inside the communicator
 * (c->users++ under global_mu in the live check, -- on return) and let
 * shutdown_comm wait, under c->mu, until users == 0 before the free; read
 * c->aborted under the lock in pcclWaitAll. */
typedef struct {
    pcclComm_t c;
    int id, all;
    pcclResult_t r;
    int tid; /* set before the call */
} kb2_waiter;

static void *kb2_wait(void *p)
{
    kb2_waiter *w = p;
    __atomic_store_n(&w->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
    w->r = w->all ? pcclWaitAll(w->c) : pcclWait(w->c, w->id);
    return NULL;
}

/* 1 if thread tid of this process sleeps in a condition variable's wait
 * (a futex FUTEX_WAIT_BITSET, as glibc's pthread_cond_wait; a mutex's is a
 * FUTEX_WAIT), 0 if not, -1 if /proc cannot tell. */
static int kb2_in_cond_wait(int tid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long nr = -1;
    unsigned long addr = 0, op = 0;
    int n = fgets(line, sizeof line, f) ? sscanf(line, "%ld %lx %lx", &nr, &addr, &op) : 0;
    fclose(f);
    if (n < 1) return -1;
    return nr == SYS_futex && n == 3 && (op & FUTEX_CMD_MASK) == FUTEX_WAIT_BITSET;
}

/* Waits until the waiters sleep inside pcclWait / pcclWaitAll (the only
 * condition waits on their way): 20 ms of sleep was not enough for threads
 * to get there on a loaded machine.  Where /proc cannot tell, the sleep. */
static void kb2_until_waiting(kb2_waiter *w, int n)
{
    double t0 = ck_now();
    for (int i = 0; i < n; i++) {
        int tid, in = 0;
        while (!(tid = __atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE)) || (in = kb2_in_cond_wait(tid)) == 0) {
            if (ck_now() - t0 > 30) {
                PT_CHECK(0, "KB2: waiter %d is not waiting after 30 s", i);
                return;
            }
            ck_sleep_ms(1);
        }
        if (in < 0) {
            ck_sleep_ms(20);
            return;
        }
    }
}

static void test_abort_frees_under_waiters(void)
{
    if (!enabled("KB2 pcclCommAbort frees the communicator while woken pcclWait/pcclWaitAll callers still use it"))
        return;
    pt_begin("KB2", 60);
    for (int rep = 0; rep < 10; rep++) {
        pcclComm_t c[2];
        pcclConfig_t cfg = pt_config(1, -1);
        if (pt_init(c, 2, &cfg)) break;
        int id;
        int32_t b[2][64];
        for (int r = 0; r < 2; r++) PT_OK(pcclRegisterAllReduce(c[r], 64, pcclInt32, pcclSum, 0, &id));
        PT_OK(pcclRun(c[0], id, b[0], b[1], NULL, NULL)); /* stuck: rank 1 never invokes */
        kb2_waiter w[4];
        pthread_t t[4];
        for (int i = 0; i < 4; i++) {
            w[i] = (kb2_waiter){c[0], id, i & 1, pcclSuccess, 0};
            pthread_create(&t[i], NULL, kb2_wait, &w[i]);
        }
        kb2_until_waiting(w, 4);
        PT_OK(pcclCommAbort(c[1]));
        PT_OK(pcclCommAbort(c[0])); /* the last rank: frees the group's memory */
        for (int i = 0; i < 4; i++) {
            pthread_join(t[i], NULL);
            CU_ASSERT_EQUAL(w[i].r, pcclRemoteError);
        }
        ck_watchdog_kick(); /* a repetition done: 60 s for each (a loaded machine, TSan) */
    }
    pt_end();
}

/* KB3 (a crash on misuse): pccl_boot_join (lib/bootstrap.c) ftruncate()s
 * the shared rendezvous file to its own nranks * sizeof(boot_rec).  A join
 * claiming a smaller nranks for an id whose group is forming shrinks the file
 * under the ranks that mapped it larger: past the first page, their polling
 * in wait_all() dies of SIGBUS (96-byte records: nranks >= 43).  Fix: only
 * grow the file (fstat, ftruncate if smaller), or better, keep nranks in a
 * header written by the creator (O_EXCL) and refuse a mismatching join at
 * once with pcclInvalidArgument. */
#if !defined(__SANITIZE_THREAD__)
static void *kb3_rank0(void *p)
{
    pcclComm_t c = NULL;
    pcclCommInitRank(&c, 64, *(pcclUniqueId *)p, 0);
    return NULL;
}
#endif

static void test_boot_shrink_sigbus(void)
{
    if (!enabled("KB3 a join with a smaller nranks shrinks the /dev/shm rendezvous file: SIGBUS in the others"))
        return;
#if defined(__SANITIZE_THREAD__)
    fprintf(stderr, "\n  KB3 needs fork + threads, which ThreadSanitizer refuses: run it in another build\n  ");
    return;
#else
    pt_begin("KB3", 60);
    pcclUniqueId id;
    PT_OK(pcclGetUniqueId(&id));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) { /* the child: rank 0 of 64 waits; a bogus rank 1 of 2 joins */
        setenv("PCCL_BOOT_TIMEOUT", "2", 1);
        pthread_t t;
        pcclComm_t c1 = NULL;
        pthread_create(&t, NULL, kb3_rank0, &id);
        ck_sleep_ms(200);
        pcclCommInitRank(&c1, 2, id, 1);
        pthread_join(t, NULL);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    PT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "KB3: the child %s %d%s",
             WIFSIGNALED(st) ? "died of signal" : "exited with", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
             WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS ? " (SIGBUS)" : "");
    pt_boot_unlink(&id);
    pt_end();
#endif
}

/* KB4 (a leak): a failed join (a peer that never came, PCCL_BOOT_TIMEOUT;
 * or an nranks mismatch) leaves its /dev/shm/pccl-* file behind:
 * pccl_boot_leave (lib/bootstrap.c) unlinks it only when every rank has
 * left, and the ranks that never came never leave.  Fix: on a failed join,
 * unlink the file (the group is dead; a late rank makes a new file and fails
 * on its own timeout). */
static void test_boot_file_left(void)
{
    if (!enabled("KB4 a failed pcclCommInitRank leaves its /dev/shm/pccl-* file behind")) return;
    pt_begin("KB4", 60);
    pt_env old = pt_env_push("PCCL_BOOT_TIMEOUT", "1");
    pcclUniqueId id;
    PT_OK(pcclGetUniqueId(&id));
    pcclComm_t c = NULL;
    PT_CHECK(pcclCommInitRank(&c, 2, id, 0) != pcclSuccess, "a rank joined without its peer");
    char path[128];
    pt_boot_path(&id, path, sizeof path);
    PT_CHECK(access(path, F_OK) != 0, "KB4: %s is left behind after the failed join", path);
    pt_boot_unlink(&id);
    pt_env_pop(old);
    pt_end();
}

static void threads_back_to(int base, const char *what)
{
    int now = pt_threads_settle(base);
    PT_CHECK(now <= base, "%s: %d threads 10 s after the teardown, %d before the communicators", what, now, base);
}

/* KB5 (a hang, or a use-after-free; found by the fuzzer, episode "cbdown"):
 * pcclCommDestroy called from one of the communicator's callbacks waited,
 * in shutdown_comm's pccl_wait_all_locked, for c->callbacks to reach 0: the
 * callback it runs in, forever.  pcclCommAbort from a callback joined its
 * own poller thread (pthread_join fails with EDEADLK, unchecked), freed the
 * communicator and returned into pccl_finish, which re-locked c->mu in freed
 * memory.  Fix (lib/comm.c, teardown): on the poller thread, destroy
 * completes what is in flight right there (pccl_poll_idle_locked: callbacks
 * nested), abort fails it, both stop the daemon and return; the poller ends
 * itself (detached) and frees the communicator once the callback returned. */
typedef struct {
    pcclComm_t c;
    int how; /* 1 destroy, 2 abort */
    pcclResult_t r, count_after;
    int other_done_before; /* the other collective's callback ran before the teardown returned */
    int *other_calls;
    pcclResult_t other_status;
    int returned;
} kb5_arg;

static void kb5_other_cb(int id, pcclResult_t st, void *arg)
{
    kb5_arg *a = arg;
    a->other_status = st;
    __atomic_add_fetch(a->other_calls, 1, __ATOMIC_ACQ_REL);
}

static void kb5_cb(int id, pcclResult_t st, void *arg)
{
    kb5_arg *a = arg;
    a->r = a->how == 1 ? pcclCommDestroy(a->c) : pcclCommAbort(a->c);
    int n;
    a->count_after = pcclCommCount(a->c, &n);
    a->other_done_before = __atomic_load_n(a->other_calls, __ATOMIC_ACQUIRE);
    __atomic_store_n(&a->returned, 1, __ATOMIC_RELEASE);
}

static void test_teardown_from_callback(void)
{
    if (!enabled("KB5 pcclCommDestroy/pcclCommAbort from a callback: hang, use-after-free")) return;
    pt_begin("KB5", 60);
    for (int how = 1; how <= 2; how++) {
        int base = pt_thread_count();
        pcclComm_t c[2];
        pcclConfig_t cfg = pt_config(1, -1);
        if (pt_init(c, 2, &cfg)) break;
        ck_coll x = {pcclCollAllReduce, pcclInt32, pcclSum, 0, 300, 2}, y = {pcclCollAllGather, pcclFloat, pcclSum, 0, 50, 2};
        int idx, idy, other_calls = 0;
        void *b[2][2][2];
        for (int r = 0; r < 2; r++) {
            PT_OK(pcclRegisterAllReduce(c[r], x.count, x.dtype, x.op, 0, &idx));
            PT_OK(pcclRegisterAllGather(c[r], y.count, y.dtype, 0, &idy));
            b[r][0][0] = malloc(ck_send_bytes(&x)), b[r][0][1] = malloc(ck_recv_bytes(&x));
            b[r][1][0] = malloc(ck_send_bytes(&y)), b[r][1][1] = malloc(ck_recv_bytes(&y));
            ck_prepare(&x, r, 5, 0, b[r][0][0], b[r][0][1]);
            ck_prepare(&y, r, 6, 0, b[r][1][0], b[r][1][1]);
        }
        kb5_arg a = {c[0], how, pcclInternalError, pcclSuccess, -1, &other_calls, pcclInternalError, 0};
        /* destroy: y runs on both ranks, and rank 0's destroy (in x's
         * callback) completes it; abort: y runs on rank 0 alone, stuck, and
         * rank 0's abort fails it */
        PT_OK(pcclRun(c[0], idy, b[0][1][0], b[0][1][1], kb5_other_cb, &a));
        if (how == 1) PT_OK(pcclRun(c[1], idy, b[1][1][0], b[1][1][1], NULL, NULL));
        PT_OK(pcclRun(c[1], idx, b[1][0][0], b[1][0][1], NULL, NULL));
        PT_OK(pcclRun(c[0], idx, b[0][0][0], b[0][0][1], kb5_cb, &a));
        PT_OK(pcclWaitAll(c[1]));
        while (!__atomic_load_n(&a.returned, __ATOMIC_ACQUIRE)) ck_sleep_us(100); /* (the watchdog bounds it) */
        PT_CHECK(a.r == pcclSuccess, "%s from a callback -> %s", how == 1 ? "destroy" : "abort", pcclGetErrorString(a.r));
        PT_CHECK(a.count_after == pcclInvalidUsage, "the handle is live after the teardown from a callback: %s",
                 pcclGetErrorString(a.count_after));
        PT_CHECK(a.other_done_before == 1, "%s from a callback returned before the other collective's callback ran",
                 how == 1 ? "destroy" : "abort");
        PT_CHECK(a.other_status == (how == 1 ? pcclSuccess : pcclRemoteError), "the other collective: status %s",
                 pcclGetErrorString(a.other_status));
        char msg[512];
        PT_CHECK(ck_verify(&x, 1, 5, 0, b[1][0][1], msg, sizeof msg) == 0, "%s", msg);
        if (how == 1) PT_CHECK(ck_verify(&y, 0, 6, 0, b[0][1][1], msg, sizeof msg) == 0, "%s", msg);
        PT_OK(pcclCommDestroy(c[1]));
        threads_back_to(base, how == 1 ? "KB5 destroy from a callback" : "KB5 abort from a callback");
        for (int r = 0; r < 2; r++)
            for (int k = 0; k < 2; k++) free(b[r][k][0]), free(b[r][k][1]);
    }
    pt_end();
}

/* One rank and a 16-int32 sum all-reduce registered on it (KB6, KB10);
 * 0 on success. */
static int one_rank_allreduce(pcclComm_t c[1], int *id)
{
    pcclConfig_t cfg = pt_config(1, -1);
    if (pt_init(c, 1, &cfg)) return -1;
    PT_OK(pcclRegisterAllReduce(c[0], 16, pcclInt32, pcclSum, 0, id));
    return 0;
}

/* KB6 (a hang; found by the fuzzer, callback mode CB_WAIT): pcclWait or
 * pcclWaitAll called from a callback of the same communicator waited for the
 * callback it runs in (in_callback, c->callbacks), or for completions only
 * the poller, blocked in that callback, could deliver: forever.  Fix
 * (lib/run.c): on the poller thread they return pcclInvalidUsage saying why
 * (pcclTest works there). */
typedef struct {
    pcclComm_t c;
    pcclResult_t w, wa, t;
    int done;
    char msg[512]; /* pcclGetLastError after the pcclWaitAll, in the callback */
} kb6_arg;

static void kb6_cb(int id, pcclResult_t st, void *arg)
{
    kb6_arg *a = arg;
    a->w = pcclWait(a->c, id);
    a->wa = pcclWaitAll(a->c);
    snprintf(a->msg, sizeof a->msg, "%s", pcclGetLastError(a->c));
    a->t = pcclTest(a->c, id, &a->done);
}

static void test_wait_from_callback(void)
{
    if (!enabled("KB6 pcclWait/pcclWaitAll from a callback of the same communicator hang")) return;
    pt_begin("KB6", 60);
    pcclComm_t c[1];
    int id;
    int32_t s[16] = {0}, r[16];
    if (one_rank_allreduce(c, &id)) { pt_end(); return; }
    kb6_arg a = {c[0], pcclSuccess, pcclSuccess, pcclInternalError, -1, ""};
    PT_OK(pcclRun(c[0], id, s, r, kb6_cb, &a));
    PT_OK(pcclWait(c[0], id));
    PT_ERR(pcclInvalidUsage, a.w);
    PT_ERR(pcclInvalidUsage, a.wa);
    PT_OK(a.t);
    CU_ASSERT_EQUAL(a.done, 0); /* its own callback is still running */
    PT_CHECK(strstr(a.msg, "pcclWaitAll") && strstr(a.msg, "callback"),
             "the callback's message '%s' does not name pcclWaitAll and say 'callback'", a.msg);
    pt_destroy(c, 1);
    pt_end();
}

/* KB7 (a use-after-free; ASan, found by the fuzzer, on_dead()):
 * pcclGetLastError(comm) read comm->err without checking the handle, so on a
 * destroyed communicator it read freed memory (every other entry point
 * checks the live set first).  Fix (lib/error.c): a handle that is not live
 * gets a message saying so. */
static void test_last_error_of_dead(void)
{
    if (!enabled("KB7 pcclGetLastError reads a destroyed communicator")) return;
    pt_begin("KB7", 60);
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(1, -1);
    if (pt_init(c, 2, &cfg)) { pt_end(); return; }
    int x;
    PT_ERR(pcclInvalidArgument, pcclCommCount(c[0], NULL)); /* leaves a message on c[0] */
    pcclComm_t old[2] = {c[0], c[1]};
    pt_destroy(c, 2);
    pcclComm_t fresh;
    pt_init(&fresh, 1, &cfg); /* allocations that may land on the freed memory */
    pcclComm_t d = old[0] == fresh ? old[1] : old[0];
    const char *m = pcclGetLastError(d);
    PT_CHECK(m && strstr(m, "not a live communicator"), "pcclGetLastError(destroyed comm) = '%s'", m ? m : "(null)");
    PT_ERR(pcclInvalidUsage, pcclCommCount(d, &x));
    pt_destroy(&fresh, 1);
    pt_end();
}

/* KB8 (undefined behaviour; UBSan, found by the fuzzer, bad_run()):
 * pcclRun accepted a buffer not aligned to its datatype; the host backend's
 * reduction then loaded misaligned elements ("load of misaligned address"),
 * and the GPU daemon would fault.  Fix (lib/run.c, check_buf): such a buffer
 * is pcclInvalidArgument, naming it and the alignment. */
static void test_misaligned_buffers(void)
{
    if (!enabled("KB8 pcclRun accepts buffers not aligned to their datatype")) return;
    pt_begin("KB8", 60);
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(1, -1);
    if (pt_init(c, 2, &cfg)) { pt_end(); return; }
    int id, idb;
    char *s = calloc(1, 4 * 64 + 8), *r = calloc(1, 4 * 64 + 8);
    for (int k = 0; k < 2; k++) {
        PT_OK(pcclRegisterAllReduce(c[k], 64, pcclFloat, pcclSum, 0, &id));
        PT_OK(pcclRegisterBroadcast(c[k], 64, pcclInt64, 0, 0, &idb));
    }
    PT_ERR(pcclInvalidArgument, pcclRun(c[0], id, s + 1, r, NULL, NULL));
    const char *m = pcclGetLastError(c[0]);
    PT_CHECK(strstr(m, "sendbuff") && strstr(m, "aligned"), "message '%s'", m);
    PT_ERR(pcclInvalidArgument, pcclRun(c[0], id, s, r + 2, NULL, NULL));
    m = pcclGetLastError(c[0]);
    PT_CHECK(strstr(m, "recvbuff") && strstr(m, "aligned"), "message '%s'", m);
    PT_ERR(pcclInvalidArgument, pcclRun(c[1], idb, NULL, r + 4, NULL, NULL)); /* int64: 8 bytes */
    /* a broadcast's non-root sendbuff is not read: its alignment is no matter */
    int32_t ok_s[64] = {0};
    int64_t rb[2][64];
    int64_t sb[64];
    for (int i = 0; i < 64; i++) sb[i] = i * 3;
    PT_OK(pcclRun(c[1], idb, (char *)ok_s + 1, rb[1], NULL, NULL));
    PT_OK(pcclRun(c[0], idb, sb, rb[0], NULL, NULL));
    for (int k = 0; k < 2; k++) PT_OK(pcclWaitAll(c[k]));
    PT_CHECK(memcmp(rb[1], sb, sizeof sb) == 0, "broadcast: wrong data on rank 1");
    pt_destroy(c, 2);
    free(s);
    free(r);
    pt_end();
}

/* KB9 (a leak; found reading comm_create while giving the fuzzer bad
 * configurations): when the backend's
 * open failed (out of memory: an arena larger than the machine can give),
 * comm_create (lib/comm.c) cleared c->be before comm_free, so the backend's
 * close never ran: the host backend's state and whatever it had allocated
 * (the GPU backend's: a stream, device and pinned memory) leaked on every
 * failed init.  Fix: comm_free closes it (both closes take a half-open
 * backend).  Seen as the heap's size (mallinfo2) before and after a failed
 * init (the second: the first also pays the C library's first-time
 * costs); in the optimized build only (the sanitizers' allocators abort on
 * a terabyte). */
static size_t heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

static void test_failed_open_leaks(void)
{
    if (!enabled("KB9 a failed backend open leaks the backend's memory")) return;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    fprintf(stderr, "\n  KB9 needs the C library's allocator (a sanitizer's refuses a terabyte by aborting): "
                    "it runs in the optimized build\n  ");
    return;
#endif
    pt_begin("KB9", 60);
    pcclConfig_t cfg = pt_config(1, -1);
    cfg.arenaBytes = 1L << 40; /* in range, more than this machine has */
    pcclComm_t c[2] = {NULL, NULL};
    pcclResult_t r = pcclSuccess;
    size_t before = 0, after = 0;
    for (int i = 0; i < 2 && r == pcclSuccess; i++) { /* the first: the C library's own first-time allocations */
        if (i == 1) pt_destroy(c, 2);
        before = heap_in_use();
        r = pcclCommInitAllConfig(c, 2, NULL, &cfg);
        after = heap_in_use();
    }
    if (r != pcclSuccess) { /* measure a second failure */
        before = heap_in_use();
        r = pcclCommInitAllConfig(c, 2, NULL, &cfg);
        after = heap_in_use();
    }
    if (r == pcclSuccess) { /* a machine with a terabyte to give */
        pt_destroy(c, 2);
        pt_end();
        return;
    }
    PT_ERR(pcclSystemError, r);
    PT_CHECK(strstr(pcclGetLastError(NULL), "memory") != NULL, "message '%s'", pcclGetLastError(NULL));
    /* the leak was 467616 bytes per failed init (host state, its device
     * and pinned stand-ins); the C library keeps a few hundred after a
     * failed mmap (448 here) */
    PT_CHECK(after <= before + 4096, "a failed init left %zu bytes allocated", after - before);
    pt_end();
}

/* KB10 (a wrong message; found by the fuzzer under TSan, episode seq): a
 * communicator had one last-error message for all threads, so a failed call
 * on one thread (a callback's pcclWaitAll on the poller thread) could
 * replace another thread's message between that thread's failed call and its
 * pcclGetLastError: pcclRun's caller read the callback's "pcclWaitAll:
 * called from a callback".  Fix (lib/error.c): a failed call's message is
 * the calling thread's; errors no caller was given (pccl's own threads, a
 * failure) are the communicator's, for every thread; pcclGetLastError gives
 * the newer.  Made to happen in order here: the main thread's pcclRun
 * fails, then a callback's pcclWaitAll fails on the poller thread; each
 * thread must read its own call's message.  (That a peer's failure is every
 * thread's message: multiproc's fault tests, mproc.c.) */
typedef struct {
    pcclComm_t c;
    int fired; /* atomic */
    char msg[512];
} kb10_arg;

static void kb10_cb(int id, pcclResult_t st, void *arg)
{
    kb10_arg *a = arg;
    pcclWaitAll(a->c); /* refused on the poller thread */
    snprintf(a->msg, sizeof a->msg, "%s", pcclGetLastError(a->c));
    __atomic_store_n(&a->fired, 1, __ATOMIC_RELEASE);
}

static void test_last_error_per_thread(void)
{
    if (!enabled("KB10 one thread's failed call replaced another's last error")) return;
    pt_begin("KB10", 60);
    pcclComm_t c[1];
    int id;
    int32_t s[16] = {0}, r[16];
    if (one_rank_allreduce(c, &id)) { pt_end(); return; }
    PT_ERR(pcclInvalidArgument, pcclRun(c[0], id, NULL, r, NULL, NULL)); /* this thread's failed call */
    kb10_arg a = {c[0], 0, ""};
    PT_OK(pcclRun(c[0], id, s, r, kb10_cb, &a));
    for (int i = 0; i < 20000 && !__atomic_load_n(&a.fired, __ATOMIC_ACQUIRE); i++) ck_sleep_us(100);
    PT_CHECK(__atomic_load_n(&a.fired, __ATOMIC_ACQUIRE), "the callback never ran");
    PT_OK(pcclWait(c[0], id));
    const char *m = pcclGetLastError(c[0]);
    PT_CHECK(strstr(m, "pcclRun"), "the main thread's message '%s' is not its pcclRun's", m);
    m = pcclGetLastError(NULL);
    PT_CHECK(strstr(m, "pcclRun"), "the main thread's newest message '%s' is not its pcclRun's", m);
    PT_CHECK(strstr(a.msg, "pcclWaitAll"), "the callback's message '%s' is not its pcclWaitAll's", a.msg);
    pt_destroy(c, 1);
    pt_end();
}

int pt_register_regressions(void)
{
    CU_pSuite s = CU_add_suite("regressions", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "KB1 stats race (TSan)", test_stats_race) ||
        !CU_add_test(s, "KB2 abort frees under waiters (TSan)", test_abort_frees_under_waiters) ||
        !CU_add_test(s, "KB3 boot file shrink: SIGBUS", test_boot_shrink_sigbus) ||
        !CU_add_test(s, "KB4 boot file left after failed join", test_boot_file_left) ||
        !CU_add_test(s, "KB5 destroy/abort from a callback", test_teardown_from_callback) ||
        !CU_add_test(s, "KB6 wait from a callback", test_wait_from_callback) ||
        !CU_add_test(s, "KB7 last error of a destroyed comm (ASan)", test_last_error_of_dead) ||
        !CU_add_test(s, "KB8 misaligned buffers (UBSan)", test_misaligned_buffers) ||
        !CU_add_test(s, "KB9 failed init leaks the backend", test_failed_open_leaks) ||
        !CU_add_test(s, "KB10 last error per thread", test_last_error_per_thread))
        return -1;
    return 0;
}
