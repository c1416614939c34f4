/* Stream-ordered invocation (lib/stream.c) on the host backend's emulated
 * streams (lib/host/stream.c): the inputs are read only after the stream's
 * earlier work, the stream's later work runs only after completion, several
 * invocations of one collective may be outstanding (in issue order, across
 * streams), an abort releases the waiting streams, bad handles are refused,
 * and the paper's deadlock tests issued through streams complete: each
 * collective on its own stream in random orders, with and without device
 * synchronizations on a second thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define N 1024 /* int32 elements of the all-reduce the small tests use */

/* ---- stream functions ------------------------------------------------------- */

typedef struct {
    int32_t *buf;     /* input to write, or output to check */
    int32_t value;    /* each element's value (input), or the sum (output) */
    int delay_ms;     /* before writing the input */
    double t;         /* when the function ran */
    long wrong;       /* output: elements that differ, -1 not run */
} sfn;

static void write_input(void *arg)
{
    sfn *f = arg;
    if (f->delay_ms) ck_sleep_ms(f->delay_ms);
    for (int i = 0; i < N; i++) f->buf[i] = f->value + i;
    f->t = ck_now();
}

static void check_output(void *arg)
{
    sfn *f = arg;
    long wrong = 0;
    for (int i = 0; i < N; i++) wrong += f->buf[i] != f->value + 2 * i;
    f->wrong = wrong;
    f->t = ck_now();
}

static void poison(int32_t *b) { ck_fill_sentinel(b, N * sizeof *b); }

/* Two ranks, one int32 sum all-reduce of N, a host stream per rank. */
typedef struct {
    pcclComm_t comms[2];
    pcclStream_t st[2];
    int id;
    int32_t *send[2], *recv[2];
} pair;

static int pair_open(pair *p, int blocks)
{
    memset(p, 0, sizeof *p);
    pcclConfig_t cfg = pt_config(blocks, 1024);
    cfg.spinHead = 50;
    cfg.spinBase = 20;
    cfg.spinMin = 2;
    cfg.quitUs = 500;
    cfg.relaunchUs = 50;
    if (pt_init(p->comms, 2, &cfg)) return -1;
    for (int r = 0; r < 2; r++) {
        int id = -1;
        PT_OK(pcclRegisterAllReduce(p->comms[r], N, pcclInt32, pcclSum, 0, &id));
        p->id = id;
        PT_OK(pcclHostStreamCreate(p->comms[r], &p->st[r]));
        p->send[r] = malloc(N * sizeof(int32_t));
        p->recv[r] = malloc(N * sizeof(int32_t));
        poison(p->send[r]);
        poison(p->recv[r]);
    }
    return 0;
}

static void pair_close(pair *p)
{
    for (int r = 0; r < 2; r++)
        if (p->st[r]) PT_OK(pcclHostStreamDestroy(p->st[r]));
    pt_destroy(p->comms, 2);
    for (int r = 0; r < 2; r++) {
        free(p->send[r]);
        free(p->recv[r]);
    }
}

/* ---- semantics ------------------------------------------------------------------ */

/* Rank 0's input is written by a stream function 30 ms after the invocation
 * was issued; rank 1's at once.  Without the gate the daemons would reduce
 * rank 0's poisoned input. */
static void test_inputs_after_stream_work(void)
{
    pair p;
    pt_begin("stream: inputs after earlier stream work", 60);
    if (pair_open(&p, 2)) { pt_end(); return; }
    sfn in[2], out[2];
    for (int r = 0; r < 2; r++) {
        in[r] = (sfn){p.send[r], 0, r == 0 ? 30 : 0, 0, 0};
        out[r] = (sfn){p.recv[r], 0, 0, 0, -1};
        PT_OK(pcclHostStreamLaunch(p.st[r], write_input, &in[r]));
        PT_OK(pcclRunOnStream(p.comms[r], p.id, p.send[r], p.recv[r], p.st[r]));
        PT_OK(pcclHostStreamLaunch(p.st[r], check_output, &out[r]));
    }
    for (int r = 0; r < 2; r++) PT_OK(pcclHostStreamSynchronize(p.st[r]));
    for (int r = 0; r < 2; r++)
        PT_CHECK(out[r].wrong == 0, "rank %d: %ld of %d output elements wrong (input read before the stream wrote it?)",
                 r, out[r].wrong, N);
    pcclStats_t s;
    PT_OK(pcclWait(p.comms[0], p.id)); /* the stream saw fin before the poller took the CQ entry */
    PT_OK(pcclCommGetStats(p.comms[0], &s));
    PT_CHECK(s.completed == 1, "rank 0 completed %llu invocations, expected 1", (unsigned long long)s.completed);
    pair_close(&p);
    pt_end();
}

/* Rank 0 issues through its stream, rank 1 (plain pcclRun) 30 ms later: the
 * function after pcclRunOnStream must run after completion, so not before
 * rank 1 joined, and see the whole output. */
static void test_later_work_after_completion(void)
{
    pair p;
    pt_begin("stream: later stream work after completion", 60);
    if (pair_open(&p, 1)) { pt_end(); return; }
    sfn out = {p.recv[0], 0, 0, 0, -1};
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < N; i++) p.send[r][i] = i;
    double t0 = ck_now();
    PT_OK(pcclRunOnStream(p.comms[0], p.id, p.send[0], p.recv[0], p.st[0]));
    PT_OK(pcclHostStreamLaunch(p.st[0], check_output, &out));
    ck_sleep_ms(30);
    int done = 1;
    PT_OK(pcclTest(p.comms[0], p.id, &done));
    PT_CHECK(!done, "rank 0's invocation completed without rank 1");
    PT_CHECK(out.wrong == -1, "the stream ran the function after pcclRunOnStream before the collective completed");
    double t1 = ck_now();
    PT_OK(pcclRun(p.comms[1], p.id, p.send[1], p.recv[1], NULL, NULL));
    PT_OK(pcclHostStreamSynchronize(p.st[0]));
    PT_CHECK(out.wrong == 0, "%ld of %d output elements wrong when the stream's later work ran", out.wrong, N);
    PT_CHECK(out.t >= t1, "the later stream work ran %.1f ms after the issue, before rank 1 invoked (%.1f ms)",
             (out.t - t0) * 1e3, (t1 - t0) * 1e3);
    PT_OK(pcclWait(p.comms[1], p.id));
    pair_close(&p);
    pt_end();
}

/* pcclRunAfter + pcclStreamWaitRun on another stream: the wait's stream
 * (torch's Work.wait() on the current stream) runs its later work after
 * completion, the issuing stream's later work does not wait. */
static void test_run_after_wait_elsewhere(void)
{
    pair p;
    pt_begin("stream: run after, wait on another stream", 60);
    if (pair_open(&p, 1)) { pt_end(); return; }
    pcclStream_t other;
    PT_OK(pcclHostStreamCreate(p.comms[0], &other));
    sfn out = {p.recv[0], 0, 0, 0, -1};
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < N; i++) p.send[r][i] = i;
    uint64_t ticket = 0;
    PT_OK(pcclRunAfter(p.comms[0], p.id, p.send[0], p.recv[0], p.st[0], &ticket));
    PT_CHECK(ticket == 1, "first ticket %llu, expected 1", (unsigned long long)ticket);
    PT_OK(pcclStreamWaitRun(p.comms[0], p.id, ticket, other));
    PT_OK(pcclHostStreamLaunch(other, check_output, &out));
    int done0 = 1;
    PT_OK(pcclTestRun(p.comms[0], p.id, ticket, &done0));
    PT_CHECK(!done0, "pcclTestRun: ticket %llu done before rank 1 invoked", (unsigned long long)ticket);
    PT_OK(pcclHostStreamSynchronize(p.st[0])); /* returns: nothing on it waits for the collective */
    ck_sleep_ms(20);
    PT_CHECK(out.wrong == -1, "the waiting stream ran its later work before the collective completed");
    PT_OK(pcclRun(p.comms[1], p.id, p.send[1], p.recv[1], NULL, NULL));
    PT_OK(pcclHostStreamSynchronize(other));
    PT_CHECK(out.wrong == 0, "%ld of %d output elements wrong after the wait", out.wrong, N);
    int done = 0;
    PT_OK(pcclWaitRun(p.comms[0], p.id, ticket));
    PT_OK(pcclTestRun(p.comms[0], p.id, ticket, &done));
    PT_CHECK(done, "pcclTestRun: ticket %llu not done after pcclWaitRun", (unsigned long long)ticket);
    PT_ERR(pcclInvalidArgument, pcclTestRun(p.comms[0], p.id, 2, &done));
    PT_ERR(pcclInvalidArgument, pcclStreamWaitRun(p.comms[0], p.id, 2, other));
    PT_ERR(pcclInvalidArgument, pcclStreamWaitRun(p.comms[0], p.id, 0, other));
    PT_OK(pcclHostStreamDestroy(other));
    pcclWait(p.comms[1], p.id);
    pair_close(&p);
    pt_end();
}

/* PCCL_MAX_PENDING invocations of one collective outstanding at once, their
 * inputs written by stream functions, alternating between two streams per
 * rank, the first stream held back 30 ms: each runs after its own gate, in
 * issue order, and one more is refused while they are outstanding. */
static void test_pending_in_order(void)
{
    pair p;
    pt_begin("stream: invocations outstanding", 60);
    if (pair_open(&p, 2)) { pt_end(); return; }
    enum { K = PCCL_MAX_PENDING };
    pcclStream_t second[2];
    int32_t *in[2][K], *outb[2][K];
    sfn fin[2][K], fout[2][K], hold = {NULL, 0, 0, 0, 0};
    for (int r = 0; r < 2; r++) PT_OK(pcclHostStreamCreate(p.comms[r], &second[r]));
    hold.buf = p.send[0];
    hold.delay_ms = 30;
    PT_OK(pcclHostStreamLaunch(p.st[0], write_input, &hold)); /* holds rank 0's first stream back */
    for (int k = 0; k < K; k++)
        for (int r = 0; r < 2; r++) {
            pcclStream_t s = k % 2 ? second[r] : p.st[r];
            in[r][k] = malloc(N * sizeof(int32_t));
            outb[r][k] = malloc(N * sizeof(int32_t));
            poison(in[r][k]);
            poison(outb[r][k]);
            fin[r][k] = (sfn){in[r][k], 1000 * k, 0, 0, 0};
            fout[r][k] = (sfn){outb[r][k], 2000 * k, 0, 0, -1};
            PT_OK(pcclHostStreamLaunch(s, write_input, &fin[r][k]));
            PT_OK(pcclRunOnStream(p.comms[r], p.id, in[r][k], outb[r][k], s));
            PT_OK(pcclHostStreamLaunch(s, check_output, &fout[r][k]));
        }
    PT_ERR(pcclInvalidUsage, pcclRunOnStream(p.comms[0], p.id, p.send[0], p.recv[0], p.st[0]));
    PT_ERR(pcclInvalidUsage, pcclRun(p.comms[0], p.id, p.send[0], p.recv[0], NULL, NULL));
    for (int r = 0; r < 2; r++) {
        PT_OK(pcclHostStreamSynchronize(p.st[r]));
        PT_OK(pcclHostStreamSynchronize(second[r]));
        PT_OK(pcclWait(p.comms[r], p.id));
    }
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < K; k++) {
            PT_CHECK(fout[r][k].wrong == 0, "rank %d, invocation %d: %ld of %d output elements wrong", r, k,
                     fout[r][k].wrong, N);
            free(in[r][k]);
            free(outb[r][k]);
        }
    pcclStats_t s;
    PT_OK(pcclCommGetStats(p.comms[1], &s));
    PT_CHECK(s.completed == K, "rank 1 completed %llu invocations, expected %d", (unsigned long long)s.completed, K);
    for (int r = 0; r < 2; r++) PT_OK(pcclHostStreamDestroy(second[r]));
    pair_close(&p);
    pt_end();
}

/* A stream function that writes its input once the test lets it (*go). */
typedef struct {
    sfn f;
    const int *go;
} gated_sfn;

static void write_input_on_go(void *arg)
{
    gated_sfn *g = arg;
    while (!__atomic_load_n(g->go, __ATOMIC_ACQUIRE)) ck_sleep_ms(1);
    write_input(&g->f);
}

/* 1 when every launch of c's daemon has ended (it quit idle: no slice). */
static int daemon_quit(pcclComm_t c)
{
    pcclStats_t s;
    return pcclCommGetStats(c, &s) == pcclSuccess && s.launches >= 1 && s.quits == s.launches;
}

/* Both ranks' inputs come only after both daemons quit (their gates
 * closed), and the restart delay (PCCL_RELAUNCH_US) is 10 s: the pollers
 * must relaunch at the gates' opening, not after the delay.  No stream
 * waits for the collective (a stream wait would hold the daemon:
 * test_drain_locks_launch), the host does.  What the test assumes, and why:
 *   - The time slice is off: its relaunches (at once, every slice) would run
 *     the collective without the gate's.
 *   - A daemon decides to quit between passes over its queue, and a pass
 *     spins up to the spin threshold (polls, each a yield on the host
 *     backend, which under load can cost a scheduler tick: with the default
 *     1000 polls the daemons did not quit within 10 s beside 12 busy loops).
 *     Thresholds of 2 polls: they quit at PCCL_QUIT_US under load too.
 *   - The two ranks' relaunches must meet: a relaunched daemon whose peer
 *     comes later than PCCL_QUIT_US quits again, and its gate has fired, so
 *     it waits for the delay (by design: a late peer costs the restart
 *     delay).  The two gates open on two stream threads: with PCCL_QUIT_US
 *     500 their openings 30 ms apart gave 10 s, as did 2 runs in 30 under
 *     load.  So PCCL_QUIT_US is 250 ms, longer than the threads' skew.
 * Unloaded, the collective completes within a millisecond of the opening;
 * beside 12 busy loops on this 2-core machine it took up to 530 ms (TSan:
 * the ranks' threads run in 4 ms scheduler ticks).  So the bound is half the
 * delay: it measures the machine, the delay pccl (with the gate's relaunch
 * broken, the completion came 10 s after the opening). */
#define GATE_RELAUNCH_US 10000000
static void test_gate_opening_relaunches(void)
{
    pair p;
    pt_begin("stream: an opening gate relaunches the daemon", 60);
    memset(&p, 0, sizeof p);
    pcclConfig_t cfg = pt_config(1, 1024);
    cfg.quitUs = 250000;
    cfg.relaunchUs = GATE_RELAUNCH_US;
    cfg.sliceUs = 0;
    cfg.spinHead = cfg.spinBase = 2; /* a pass of polls (yields on the host) ends soon under load too */
    cfg.spinMin = 1;
    if (pt_init(p.comms, 2, &cfg)) { pt_end(); return; }
    for (int r = 0; r < 2; r++) {
        PT_OK(pcclRegisterAllReduce(p.comms[r], N, pcclInt32, pcclSum, 0, &p.id));
        PT_OK(pcclHostStreamCreate(p.comms[r], &p.st[r]));
        p.send[r] = malloc(N * sizeof(int32_t));
        p.recv[r] = malloc(N * sizeof(int32_t));
        poison(p.send[r]);
        poison(p.recv[r]);
    }
    int go = 0;
    gated_sfn in[2];
    sfn out[2];
    uint64_t ticket[2] = {0, 0};
    for (int r = 0; r < 2; r++) {
        in[r] = (gated_sfn){{p.send[r], 0, 0, 0, 0}, &go};
        out[r] = (sfn){p.recv[r], 0, 0, 0, -1};
        PT_OK(pcclHostStreamLaunch(p.st[r], write_input_on_go, &in[r]));
        PT_OK(pcclRunAfter(p.comms[r], p.id, p.send[r], p.recv[r], p.st[r], &ticket[r]));
    }
    double t0 = ck_now();
    while (!(daemon_quit(p.comms[0]) && daemon_quit(p.comms[1])) && ck_now() - t0 < 10) ck_sleep_ms(1);
    PT_CHECK(daemon_quit(p.comms[0]) && daemon_quit(p.comms[1]),
             "the daemons did not quit within 10 s while their gates were closed");
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    for (int r = 0; r < 2; r++) {
        PT_OK(pcclWaitRun(p.comms[r], p.id, ticket[r]));
        check_output(&out[r]); /* and its time */
    }
    double opened = in[0].f.t > in[1].f.t ? in[0].f.t : in[1].f.t, bound = GATE_RELAUNCH_US / 2 * 1e-6;
    for (int r = 0; r < 2; r++) {
        PT_CHECK(out[r].wrong == 0, "rank %d: %ld of %d output elements wrong", r, out[r].wrong, N);
        PT_CHECK(out[r].t - opened < bound, "rank %d: completed %.1f ms after the last gate opened (the restart delay "
                 "is %d ms: the opening gate did not relaunch the daemon)", r, (out[r].t - opened) * 1e3,
                 GATE_RELAUNCH_US / 1000);
    }
    pair_close(&p);
    pt_end();
}

static void set_flag(void *arg) { __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE); }

typedef struct {
    pcclComm_t comm;
    int id;
    pcclResult_t r;
} waiter;

static void *wait_second(void *arg)
{
    waiter *w = arg;
    w->r = pcclWaitRun(w->comm, w->id, 2);
    return NULL;
}

/* A collective whose peer never comes: its stream waits, until an abort
 * releases it (the later work then runs; pcclCommAbort returns). */
static void test_abort_releases(void)
{
    pair p;
    pt_begin("stream: abort releases the stream", 60);
    if (pair_open(&p, 1)) { pt_end(); return; }
    int ran = 0;
    PT_OK(pcclRunOnStream(p.comms[0], p.id, p.send[0], p.recv[0], p.st[0]));
    PT_OK(pcclHostStreamLaunch(p.st[0], set_flag, &ran));
    PT_OK(pcclRunOnStream(p.comms[0], p.id, p.send[0], p.recv[0], p.st[0])); /* pending behind the first */
    waiter w = {p.comms[0], p.id, pcclSuccess};
    pthread_t th;
    pthread_create(&th, NULL, wait_second, &w);
    ck_sleep_ms(20);
    PT_CHECK(!__atomic_load_n(&ran, __ATOMIC_ACQUIRE), "the stream went on without the collective");
    for (int r = 0; r < 2; r++) { /* abort frees the streams left (after their work) */
        PT_OK(pcclCommAbort(p.comms[r]));
        p.comms[r] = NULL;
        p.st[r] = NULL;
    }
    PT_CHECK(__atomic_load_n(&ran, __ATOMIC_ACQUIRE), "the stream's later work never ran after the abort");
    pthread_join(th, NULL);
    PT_CHECK(w.r == pcclRemoteError, "pcclWaitRun of the pending invocation returned %s at the abort, expected %s",
             pcclGetErrorString(w.r), pcclGetErrorString(pcclRemoteError));
    pair_close(&p);
    pt_end();
}

typedef struct {
    pair *p;
    double t;
    pcclResult_t r;
} late_peer;

static void *join_late(void *arg)
{
    late_peer *l = arg;
    ck_sleep_ms(50);
    l->t = ck_now();
    l->r = pcclRun(l->p->comms[1], l->p->id, l->p->send[1], l->p->recv[1], NULL, NULL);
    if (!l->r) l->r = pcclWait(l->p->comms[1], l->p->id);
    return NULL;
}

/* The start both held-stream tests share: a pair opened with the test knob
 * `knob` set, rank 0's all-reduce issued on its stream with the output check
 * queued behind it, and rank 1 joining 50 ms later on a thread.  0 on
 * success (then join th). */
static int held_start(pair *p, const char *knob, sfn *out, late_peer *l, pthread_t *th)
{
    setenv(knob, "1", 1);
    int bad = pair_open(p, 2);
    unsetenv(knob);
    if (bad) return -1;
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < N; i++) p->send[r][i] = i;
    *out = (sfn){p->recv[0], 0, 0, 0, -1};
    PT_OK(pcclRunOnStream(p->comms[0], p->id, p->send[0], p->recv[0], p->st[0]));
    PT_OK(pcclHostStreamLaunch(p->st[0], check_output, out));
    *l = (late_peer){p, 0, pcclInternalError};
    pthread_create(th, NULL, join_late, l);
    return 0;
}

/* What a framework's thread does on a GPU (the torch backend, pccl-stream
 * --lazy): a collective and a stream wait for it, then a CUDA call that
 * drains the GPU while holding the context lock, as the first launch of a
 * kernel under lazy module loading does (PCCL_TEST_DRAIN_LOCKS=1: the host
 * backend's device synchronization holds the lock a launch needs).  Rank 1
 * joins 50 ms later, long after an idle daemon quits (PCCL_QUIT_US 500).  A
 * daemon that quit could not be relaunched before the drain ended, nor the
 * drain end before the collective completed: it must stay while the stream
 * waits (cut.h, pccl_may_quit), and quit once the wait is over.  The
 * backend's running query waits for the drain's lock too (as a driver call
 * may wait for the context lock), so the poller cannot drain the completion
 * meanwhile: the daemon must see the held invocation complete itself
 * (pccl_hold_done), or the drain waits for good. */
static void test_drain_locks_launch(void)
{
    pair p;
    sfn out;
    late_peer l;
    pthread_t th;
    pt_begin("stream: a drain holding the launch lock while a stream waits", 20);
    if (held_start(&p, "PCCL_TEST_DRAIN_LOCKS", &out, &l, &th)) { pt_end(); return; }
    /* pcclRunOnStream returned with the hold in place and a daemon running
     * (stream.c, hold_locked): one that quit idle before the hold (its gate
     * still closed, as a loaded machine's stream thread may leave it longer
     * than PCCL_QUIT_US) was relaunched there.  From here on, none may end. */
    pcclStats_t st0;
    PT_OK(pcclCommGetStats(p.comms[0], &st0));
    PT_OK(pcclDeviceSynchronize(p.comms[0])); /* the drain: returns once the collective did */
    double t = ck_now();
    /* and with the completion taken: the daemon ended its held launch before
     * the poller, stuck behind the drain's lock, could drain it */
    pcclStats_t st;
    PT_OK(pcclCommGetStats(p.comms[0], &st));
    PT_CHECK(st.completed == 1, "after the drain rank 0 counts %llu completions, not 1",
             (unsigned long long)st.completed);
    pthread_join(th, NULL);
    PT_CHECK(l.r == pcclSuccess, "rank 1: %s", pcclGetErrorString(l.r));
    PT_CHECK(out.wrong == 0, "%ld of %d output elements wrong after the drain", out.wrong, N);
    PT_CHECK(t >= l.t, "the drain returned before rank 1 joined");
    PT_CHECK(st.launches == st0.launches, "rank 0's daemon was launched %llu times, %llu of them after the hold: "
             "it quit while the stream waited", (unsigned long long)st.launches,
             (unsigned long long)(st.launches - st0.launches));
    /* The wait is over: no hold left, the daemon quits when idle again. */
    double t0 = ck_now();
    PT_OK(pcclDeviceSynchronize(p.comms[0]));
    PT_CHECK(ck_now() - t0 < 2.0, "a drain after the wait took %.2f s: the daemon stayed held", ck_now() - t0);
    pair_close(&p);
    pt_end();
}

/* The torch backend registers lazily, between a step's stream waits.  A
 * registration whose upload waits for the GPU to drain (PCCL_TEST_UPLOAD_DRAINS=1,
 * as a copy caught behind a lazy module load does on a GPU) while a stream
 * waits for a collective: the collective completes once rank 1 joins, and the
 * daemon may quit only once the host has seen it complete (the hold).  An
 * upload made with the communicator's lock held kept the poller from seeing
 * it: the daemon stayed held and the upload waited for good (one H100, two
 * ranks sharing it: results/stream-gpu/run9). */
static void test_register_while_held(void)
{
    pair p;
    sfn out;
    late_peer l;
    pthread_t th;
    pt_begin("stream: a registration whose upload waits for the drain while a stream waits", 20);
    if (held_start(&p, "PCCL_TEST_UPLOAD_DRAINS", &out, &l, &th)) { pt_end(); return; }
    int id2 = -1;
    PT_OK(pcclRegisterBroadcast(p.comms[0], N, pcclInt32, 1, 0, &id2)); /* returns once the daemon quit */
    double t = ck_now();
    pthread_join(th, NULL);
    PT_CHECK(l.r == pcclSuccess, "rank 1: %s", pcclGetErrorString(l.r));
    PT_CHECK(t >= l.t, "the registration returned before rank 1 joined: its upload did not wait for the drain");
    PT_OK(pcclHostStreamSynchronize(p.st[0]));
    PT_CHECK(out.wrong == 0, "%ld of %d output elements wrong", out.wrong, N);
    /* the new collective works, and ids agree with rank 1's registration */
    int id2b = -1;
    PT_OK(pcclRegisterBroadcast(p.comms[1], N, pcclInt32, 1, 0, &id2b));
    PT_CHECK(id2 == id2b && id2 == p.id + 1, "ids %d and %d, expected %d", id2, id2b, p.id + 1);
    for (int i = 0; i < N; i++) { p.send[1][i] = 7 * i; p.recv[0][i] = -1; }
    PT_OK(pcclRun(p.comms[1], id2, p.send[1], p.recv[1], NULL, NULL));
    PT_OK(pcclRun(p.comms[0], id2, NULL, p.recv[0], NULL, NULL));
    for (int r = 0; r < 2; r++) PT_OK(pcclWait(p.comms[r], id2));
    long wrong = 0;
    for (int i = 0; i < N; i++) wrong += p.recv[0][i] != 7 * i;
    PT_CHECK(wrong == 0, "broadcast after the registration: %ld of %d elements wrong", wrong, N);
    pair_close(&p);
    pt_end();
}

static void test_bad_handles(void)
{
    pair p;
    pt_begin("stream: bad handles", 60);
    if (pair_open(&p, 1)) { pt_end(); return; }
    int bogus = 0;
    PT_ERR(pcclInvalidArgument, pcclRunOnStream(p.comms[0], p.id, p.send[0], p.recv[0], NULL));
    PT_ERR(pcclInvalidArgument, pcclRunOnStream(p.comms[0], p.id, p.send[0], p.recv[0], &bogus));
    PT_ERR(pcclInvalidArgument, pcclRunOnStream(p.comms[0], p.id, p.send[0], p.recv[0], p.st[1]));
    PT_CHECK(strstr(pcclGetLastError(p.comms[0]), "another communicator") != NULL, "message: %s",
             pcclGetLastError(p.comms[0]));
    PT_ERR(pcclInvalidArgument, pcclRunOnStream(p.comms[0], 99, p.send[0], p.recv[0], p.st[0]));
    PT_ERR(pcclInvalidArgument, pcclRunAfter(p.comms[0], p.id, NULL, p.recv[0], p.st[0], NULL));
    PT_ERR(pcclInvalidArgument, pcclStreamWaitRun(p.comms[0], p.id, 1, p.st[0])); /* nothing issued */
    PT_ERR(pcclInvalidArgument, pcclHostStreamLaunch(&bogus, set_flag, &bogus));
    PT_ERR(pcclInvalidArgument, pcclHostStreamLaunch(p.st[0], NULL, NULL));
    PT_ERR(pcclInvalidArgument, pcclHostStreamDestroy(&bogus));
    PT_ERR(pcclInvalidArgument, pcclHostStreamSynchronize(&bogus));
    PT_ERR(pcclInvalidArgument, pcclHostStreamCreate(NULL, &p.st[0]));
    PT_ERR(pcclInvalidArgument, pcclHostStreamCreate(p.comms[0], NULL));
    pcclStats_t s;
    PT_OK(pcclCommGetStats(p.comms[0], &s));
    PT_CHECK(s.completed == 0 && s.launches == 0, "refused calls ran something: %llu completed, %llu launches",
             (unsigned long long)s.completed, (unsigned long long)s.launches);
    pair_close(&p);
    pt_end();
}

/* ---- the hardware queues: more streams waiting than queues, a warning ------------ */

/* With PCCL_STREAM_QUEUES=2 (as if CUDA ran the streams on two queues; the
 * host backend checks nothing by default): two streams waiting, nothing
 * said, and the waits of completed collectives forgotten, so two other
 * streams after them neither; a third stream waiting at once: one warning,
 * and only one for the communicator's life. */
static void test_queues_warning(void)
{
    enum { Q = 4 };
    pcclComm_t c[2];
    pcclStream_t st[Q];
    int id[Q];
    int32_t *in[2][Q], *out[2][Q];
    pt_begin("stream: more streams waiting than hardware queues, one warning", 60);
    setenv("PCCL_STREAM_QUEUES", "2", 1);
    pcclConfig_t cfg = pt_config(1, 1024);
    int inited = pt_init(c, 2, &cfg) == 0;
    unsetenv("PCCL_STREAM_QUEUES");
    if (!inited) { pt_end(); return; }
    for (int q = 0; q < Q; q++) {
        for (int r = 0; r < 2; r++) {
            PT_OK(pcclRegisterAllReduce(c[r], N, pcclInt32, pcclSum, 0, &id[q]));
            in[r][q] = malloc(N * sizeof(int32_t));
            out[r][q] = malloc(N * sizeof(int32_t));
            for (int i = 0; i < N; i++) in[r][q][i] = i;
        }
        PT_OK(pcclHostStreamCreate(c[0], &st[q]));
    }
    /* rounds of rank 0's stream invocations (collectives first .. first+k-1,
     * each on its own stream), rank 1 joining with pcclRun after */
    const int first[4] = {0, 2, 0, 0}, k[4] = {2, 2, 3, 4};
    char *text[2] = {NULL, NULL};
    pt_stderr cap;
    int captured = 0;
    for (int round = 0; round < 4; round++) {
        if (round % 2 == 0) captured = pt_stderr_begin(&cap) == 0; /* rounds 0-1, then 2-3 */
        for (int j = first[round]; j < first[round] + k[round]; j++)
            PT_OK(pcclRunOnStream(c[0], id[j], in[0][j], out[0][j], st[j]));
        for (int j = first[round]; j < first[round] + k[round]; j++)
            PT_OK(pcclRun(c[1], id[j], in[1][j], out[1][j], NULL, NULL));
        for (int j = first[round]; j < first[round] + k[round]; j++) {
            PT_OK(pcclHostStreamSynchronize(st[j]));
            PT_OK(pcclWait(c[0], id[j])); /* the host counts it complete: its wait forgotten */
            PT_OK(pcclWait(c[1], id[j]));
        }
        if (round % 2 == 1 && captured) text[round / 2] = pt_stderr_end(&cap);
    }
    const char *w = "pccl: rank 0: 3 or more streams wait for collectives not yet complete";
    PT_CHECK(text[0] && !strstr(text[0], "hardware queues"),
             "a warning with at most 2 streams waiting at once:\n%s", text[0] ? text[0] : "(not captured)");
    PT_CHECK(text[1] && pt_count_of(text[1], w) == 1 && pt_count_of(text[1], "hardware queues") == 1,
             "3 and then 4 streams waiting: %d warnings, expected one (\"%s\"):\n%s",
             text[1] ? pt_count_of(text[1], "hardware queues") : -1, w, text[1] ? text[1] : "(not captured)");
    for (int q = 0; q < Q; q++) {
        long wrong = 0;
        for (int i = 0; i < N; i++) wrong += (out[0][q][i] != 2 * i) + (out[1][q][i] != 2 * i);
        PT_CHECK(wrong == 0, "collective %d: %ld wrong elements", q, wrong);
    }
    free(text[0]);
    free(text[1]);
    for (int q = 0; q < Q; q++) {
        PT_OK(pcclHostStreamDestroy(st[q]));
        for (int r = 0; r < 2; r++) {
            free(in[r][q]);
            free(out[r][q]);
        }
    }
    pt_destroy(c, 2);
    pt_end();
}

/* PCCL_STREAM_QUEUES out of range or not a number: refused at init, by name */
static void test_queues_bad(void)
{
    static const char *const bad[] = {"-1", "eight", "2000000"};
    pt_begin("PCCL_STREAM_QUEUES: bad values refused by name", 10);
    pt_check_env_refused("PCCL_STREAM_QUEUES", bad, 3);
    pt_end();
}

static void sleep_100ms(void *arg) { (void)arg; ck_sleep_ms(100); }

/* One rank waits for no peer: its streams sharing a queue only order its
 * collectives, so three streams waiting at once (their gates held 100 ms
 * by the streams' earlier work) say nothing. */
static void test_queues_one_rank(void)
{
    enum { Q = 3 };
    pcclComm_t c;
    pcclStream_t st[Q];
    int id[Q];
    int32_t *in[Q], *out[Q];
    pt_begin("stream: one rank, more streams waiting than hardware queues, no warning", 60);
    setenv("PCCL_STREAM_QUEUES", "2", 1);
    pcclConfig_t cfg = pt_config(1, 1024);
    int inited = pt_init(&c, 1, &cfg) == 0;
    unsetenv("PCCL_STREAM_QUEUES");
    if (!inited) { pt_end(); return; }
    for (int q = 0; q < Q; q++) {
        PT_OK(pcclRegisterAllReduce(c, N, pcclInt32, pcclSum, 0, &id[q]));
        PT_OK(pcclHostStreamCreate(c, &st[q]));
        in[q] = malloc(N * sizeof(int32_t));
        out[q] = malloc(N * sizeof(int32_t));
        for (int i = 0; i < N; i++) in[q][i] = i;
    }
    pt_stderr cap;
    int captured = pt_stderr_begin(&cap) == 0;
    for (int q = 0; q < Q; q++) {
        PT_OK(pcclHostStreamLaunch(st[q], sleep_100ms, NULL));
        PT_OK(pcclRunOnStream(c, id[q], in[q], out[q], st[q]));
    }
    int pending = 0; /* the third wait came while all three were pending */
    for (int q = 0; q < Q; q++) {
        int done = 1;
        PT_OK(pcclTest(c, id[q], &done));
        pending += !done;
    }
    for (int q = 0; q < Q; q++) PT_OK(pcclHostStreamSynchronize(st[q]));
    char *text = captured ? pt_stderr_end(&cap) : NULL;
    PT_CHECK(pending == Q, "only %d of %d collectives pending after the third wait: the test proves nothing", pending, Q);
    PT_CHECK(text && !strstr(text, "hardware queues"), "one rank warned:\n%s", text ? text : "(not captured)");
    for (int q = 0; q < Q; q++) {
        long wrong = 0;
        for (int i = 0; i < N; i++) wrong += out[q][i] != i;
        PT_CHECK(wrong == 0, "collective %d: %ld wrong elements", q, wrong);
        PT_OK(pcclWait(c, id[q]));
        PT_OK(pcclHostStreamDestroy(st[q]));
        free(in[q]);
        free(out[q]);
    }
    free(text);
    pt_destroy(&c, 1);
    pt_end();
}

/* ---- the paper's deadlock tests, through streams --------------------------------- */

static void random_streams(const char *name, int G, int iters, int sync, int opposite, uint64_t seed)
{
    pt_rand_opts o;
    pt_rand_stats st;
    pt_rand_defaults(&o, name, G, iters);
    o.streams = 1;
    o.streams_delay_us = 200;
    o.sync = sync;
    o.opposite = opposite;
    o.seed = seed;
    pt_begin(name, 600); /* the run arms its own 60 s watchdog */
    if (pt_random_order(&o, &st) == 0) {
        if (opposite) PT_CHECK(st.preemptions > 0, "%s: no preemption in %d iterations of opposite orders", name, iters);
        if (sync) PT_CHECK(st.syncs_min > 0, "%s: a rank's second thread never completed a synchronization", name);
    }
    pt_end();
}

static void test_random_2(void) { random_streams("streams: random order, 2 gpus", 2, ck_scaled(100, 10), 0, 0, 3); }
static void test_random_4(void) { random_streams("streams: random order, 4 gpus", 4, ck_scaled(40, 2), 0, 0, 4); }
static void test_opposite_3(void) { random_streams("streams: opposite orders, 3 gpus", 3, ck_scaled(40, 5), 0, 1, 5); }
static void test_random_2_sync(void)
{
    random_streams("streams: random order + device sync, 2 gpus", 2, ck_scaled(60, 6), 1, 0, 6);
}
static void test_random_3_sync(void)
{
    random_streams("streams: random order + device sync, 3 gpus", 3, ck_scaled(30, 4), 1, 0, 7);
}

int pt_register_stream(void)
{
    CU_pSuite s = CU_add_suite("stream", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "inputs read after earlier stream work", test_inputs_after_stream_work) ||
        !CU_add_test(s, "later stream work after completion", test_later_work_after_completion) ||
        !CU_add_test(s, "run after one stream, wait on another", test_run_after_wait_elsewhere) ||
        !CU_add_test(s, "invocations outstanding, two streams, in order", test_pending_in_order) ||
        !CU_add_test(s, "abort releases a waiting stream", test_abort_releases) ||
        !CU_add_test(s, "an opening gate relaunches the daemon", test_gate_opening_relaunches) ||
        !CU_add_test(s, "a drain holding the launch lock while a stream waits", test_drain_locks_launch) ||
        !CU_add_test(s, "a registration waiting for the drain while a stream waits", test_register_while_held) ||
        !CU_add_test(s, "bad handles refused", test_bad_handles) ||
        !CU_add_test(s, "more streams waiting than hardware queues: one warning", test_queues_warning) ||
        !CU_add_test(s, "one rank: no warning", test_queues_one_rank) ||
        !CU_add_test(s, "PCCL_STREAM_QUEUES: bad values refused", test_queues_bad) ||
        !CU_add_test(s, "random order through streams, 2 gpus", test_random_2) ||
        !CU_add_test(s, "random order through streams, 4 gpus", test_random_4) ||
        !CU_add_test(s, "opposite orders through streams, 3 gpus: preempts", test_opposite_3) ||
        !CU_add_test(s, "random order through streams + device sync, 2 gpus", test_random_2_sync) ||
        !CU_add_test(s, "random order through streams + device sync, 3 gpus", test_random_3_sync))
        return -1;
    return 0;
}
