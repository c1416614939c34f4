/* The poller thread: takes CQ entries in ticket order (acquire), runs
 * callbacks, and restarts the daemon when it quit with work left (at once if
 * new requests arrived since its launch or its time slice ended it, else
 * after a growing delay, so that a GPU synchronization waiting for the
 * daemon to quit gets its chance to return). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"

/* The poller's pace.  While an invocation is in flight and something
 * happened (a submission, a completion) within poll_hot_ns, it spins on the
 * CQ without the lock (poll_spin_ns at a time, then a yield; waiters spin
 * and drain too, run.c): a completion is seen within a microsecond, where a
 * sleep would cost tens (nanosleep's timer slack alone is 50 us).  Otherwise
 * it sleeps on poll_cv, which pcclRun signals, so an invocation after a quiet
 * spell is seen at once too; the sleep grows from 20 us (a collective still
 * in flight: a stuck one, or a long one) to 1 ms (nothing in flight).  The
 * daemon's liveness (a stream query, a few microseconds of driver time) is
 * checked at most every POLL_QUERY_NS (internal.h): a quit daemon is
 * relaunched after PCCL_RELAUNCH_US at the earliest anyway.  The host
 * backend's window is short: there the "GPUs" are threads that need the
 * cores a spinning poller would take. */
#define POLL_COOL_NS 20000000
#define SLICE_HOT_NS 100000
#define SLICE_QUERY_NS 2000

/* Asks the driver whether the daemon still runs (a stream query).  The
 * poller asks only while c->was_running: every launch sets it and the poller
 * clears it when it sees the launch end, so with it clear the stream is idle
 * and the answer known.  During a slice's gap the poller asked every
 * SLICE_QUERY_NS before: driver calls on the path to the relaunch, and
 * beside the waiting CUDA call the gap is for (a poller was seen to sit in
 * cudaStreamQuery while another thread synchronized: lib/stream.c).
 * Counted when made in a gap (pcclSliceStats_t.gapQueries). */
static int daemon_query(pcclComm_t c)
{
    if (c->slice_acc.cut_launch && c->slice_acc.cut_launch == c->launches) c->slice_acc.sum.gapQueries++;
    return c->be->running(c);
}

/* Whether every block of the latest launch has ended: the last one out
 * says so in pinned memory (scheduler.h, pccl_end), a host load where a
 * stream query is a driver call.  The poller relaunches on that sight: the
 * kernel may still be retiring, and the relaunch queues behind it on the
 * daemon's stream (the host backend's launch waits for the threads, as a
 * stream would).  On 2 H200s the stream query saw the end 0-2 us later
 * (results/slice-x2/, call 21), and a relaunch at 8 B came 12 us sooner
 * (GPU time with no block: 40 us median against 53).  Its first sight is
 * stamped (mu held) for the relaunch's split (slice.c). */
static int daemon_ended(pcclComm_t c, uint64_t now)
{
    if (!pccl_ended(c)) return 0;
    if (!c->slice_acc.ended_ns) c->slice_acc.ended_ns = now;
    return 1;
}

/* ---- the poller ---------------------------------------------------------------- */

void pccl_finish(pcclComm_t c, int id, pcclResult_t status)
{
    pccl_hcoll *h = &c->colls[id];
    pcclCallback_t cb = h->cb;
    void *arg = h->cb_arg;
    h->status = status;
    h->inflight = 0;
    if (!h->direct) h->completions++; /* the daemon's count (stream.c's tickets); direct.c's are not in it */
    h->direct = 0;
    if (h->held_pos >= 0 && h->completions >= h->waited) pccl_hold_release_locked(c, id); /* the last stream wait on it ends */
    c->outstanding--;
    c->completed++;
    c->backoff_ns = c->relaunch_ns;
    if (h->npend) pccl_stream_next_locked(c, id);
    if (cb) {
        h->in_callback = 1;
        c->callbacks++;
        pccl_trace_consumed_locked(c, id, 0);
        pthread_mutex_unlock(&c->mu);
        int own = pccl_err_own_thread(0); /* the callback's failed calls are its own */
        uint64_t cb0 = c->stall_ns && pccl_on_poller(c) ? pccl_now_ns() : 0;
        cb(id, status, arg);
        if (cb0) c->stall_cb_ns += pccl_now_ns() - cb0;
        pccl_err_own_thread(own);
        pthread_mutex_lock(&c->mu);
        h->in_callback = 0;
        c->callbacks--;
    }
    __atomic_store_n(&c->wakes, c->wakes + 1, __ATOMIC_RELAXED);
    if (h->sleepers || c->sleepers_all) pthread_cond_broadcast(&c->cv);
}

/* A completion wakes only the threads that sleep for its collective or for
 * all of them.  Woken by every completion, a thread in pcclWait on the last
 * invocation of a chain (pccl-perf's back to back, a framework's bucket
 * loop) cost the poller a futex wake per completion and took the lock the
 * poller was about to take back: one rank back to back on one H200, 1-1.5%
 * of the time per all-reduce at 8 B-2 MiB out of place (eight rounds,
 * results/noop-h200/, call 3). */
void pccl_sleep_locked(pcclComm_t c, int id)
{
    if (id >= 0) c->colls[id].sleepers++;
    else c->sleepers_all++;
    pthread_cond_wait(&c->cv, &c->mu);
    if (id >= 0) c->colls[id].sleepers--;
    else c->sleepers_all--;
}

/* The CQ entry at the head, if it is there (the ticket it expects). */
static int cq_head_entry(pcclComm_t c, uint64_t t, uint64_t *e)
{
    *e = pccl_ld_acq(&c->G.cq[t % (uint64_t)c->G.k.depth]);
    return (*e >> 32) == ((t + 1) & 0xffffffffull);
}

/* cq_head changes under mu; read here without it (the poller's and the
 * waiters' spins), hence the atomic accesses. */
int pccl_cq_pending(pcclComm_t c)
{
    uint64_t e;
    return cq_head_entry(c, __atomic_load_n(&c->cq_head, __ATOMIC_RELAXED), &e);
}

/* CQ entries posted and not yet drained (mu held). */
int pccl_cq_ready_locked(pcclComm_t c)
{
    uint64_t e;
    int n = 0;
    while (n < c->G.k.depth && cq_head_entry(c, c->cq_head + (uint64_t)n, &e)) n++;
    return n;
}

/* Takes CQ entries in ticket order; returns how many.  Called with mu held.
 * own: a waiter's drain, which stops at the first entry whose collective
 * has a callback (it runs on the poller thread). */
static int drain(pcclComm_t c, int own)
{
    int n = 0;
    for (;;) {
        uint64_t t = c->cq_head, e;
        if (!cq_head_entry(c, t, &e)) return n;
        int id = (int)(e & 0xffffffffu);
        int known = id >= 0 && id < c->ncolls && c->colls[id].inflight;
        if (own && known && c->colls[id].cb) return n;
        __atomic_store_n(&c->cq_head, t + 1, __ATOMIC_RELAXED);
        n++;
        if (!known) {
            pccl_err_comm(c, pcclInternalError, "CQ entry for collective %d that is not in flight", id);
            continue;
        }
        pccl_trace_seen_locked(c, id, own);
        c->cq_seen_ns = pccl_now_ns();
        pccl_slice_on_completion_locked(c, c->cq_seen_ns);
        pccl_finish(c, id, pcclSuccess);
    }
}

int pccl_drain(pcclComm_t c) { return pccl_drain_direct_locked(c, 0) + drain(c, 0); }
int pccl_drain_own_locked(pcclComm_t c) { return drain(c, 1) + pccl_drain_direct_locked(c, 1); }

/* One pause of a spin: the host backend's "GPUs" are threads that need the
 * cores, so there it yields. */
static void spin_pause(pcclComm_t c)
{
    if (c->be == &pccl_host_backend) sched_yield();
#if defined(__x86_64__) || defined(__i386__)
    else __builtin_ia32_pause();
#endif
}

/* Spins without the lock until a CQ entry is there, a completion was
 * announced (another thread drained one: waiters look again), a direct
 * invocation may complete (direct.c), or `until` passed. */
static void spin_cq(pcclComm_t c, uint64_t until)
{
    uint64_t w = c->wakes;
    pthread_mutex_unlock(&c->mu);
    while (!pccl_cq_pending(c) && __atomic_load_n(&c->wakes, __ATOMIC_RELAXED) == w && pccl_now_ns() < until &&
           !pccl_direct_ready(c))
        spin_pause(c);
    pthread_mutex_lock(&c->mu);
}

int pccl_wait_spin_locked(pcclComm_t c, uint64_t until)
{
    if (pccl_now_ns() >= until) return 0;
    __atomic_store_n(&c->spinners, c->spinners + 1, __ATOMIC_RELAXED);
    spin_cq(c, until);
    __atomic_store_n(&c->spinners, c->spinners - 1, __ATOMIC_RELAXED);
    if (!pccl_drain_own_locked(c) && (pccl_cq_pending(c) || pccl_direct_ready(c))) {
        /* a callback's entry first: the poller's turn */
        pthread_cond_signal(&c->poll_cv);
        pthread_mutex_unlock(&c->mu);
        sched_yield();
        pthread_mutex_lock(&c->mu);
    }
    return 1;
}

/* The daemon posted a completion less than POLL_QUERY_NS (or PCCL_QUIT_US,
 * if less) ago and its slice did not end it: it runs (it quits for idleness
 * only PCCL_QUIT_US after its last progress), no stream query needed.  While completions stream,
 * a query after each (driver time) held up the next; should it have ended
 * after all, completions stop, and the query comes POLL_QUERY_NS later. */
static int answered_lately(pcclComm_t c, uint64_t now)
{
    uint64_t window = c->G.k.quit_ns < POLL_QUERY_NS ? (uint64_t)c->G.k.quit_ns : POLL_QUERY_NS;
    return c->was_running && now - c->cq_seen_ns < window && !pccl_sliced(c);
}

/* Restart policy, with mu held: a quit daemon with work left is relaunched at
 * once when new requests came since its launch (or a stream invocation's
 * gate opened, or its time slice ended it while work progressed), else
 * after a delay that doubles while relaunches bring no completion.  A
 * relaunch at once does not keep a waiting implicit synchronization out:
 * the driver call that waits for the daemon to end (a module load,
 * cudaFree) holds the context lock, so this launch queues behind it
 * (tests/gpu/pccl_share.cu measures it). */
static void maybe_launch(pcclComm_t c, uint64_t now)
{
    if (c->stopping == 2 || c->aborted || c->failed) return;
    if (pccl_ahead_ended(c)) pccl_ahead_handover_locked(c, now);
    if (c->was_running && !daemon_ended(c, now) && (answered_lately(c, now) || daemon_query(c))) {
        c->running_seen_ns = now;
        if (pccl_ahead_due(c, now)) pccl_launch_ahead_locked(c);
        return;
    }
    if (c->was_running) {
        c->was_running = 0;
        c->quit_seen_ns = (int64_t)now;
        if (c->ahead) pccl_ahead_promote_locked(c, now); /* both ended before the poller looked */
        pccl_slice_on_end_locked(c, c->launches);
    }
    if (c->outstanding <= (uint64_t)c->ndirect) return; /* direct invocations alone: no daemon needed (direct.c) */
    /* Completions first: the launch may have ended having completed what
     * was outstanding (a held launch ends once every invocation a stream
     * waits for is complete, before the host has seen it: stream.c). */
    if (pccl_cq_pending(c)) return;
    int sliced = pccl_sliced(c);
    if (sliced && (int64_t)now - c->quit_seen_ns < c->slice_gap_ns) return; /* the waiting call's turn */
    /* A gate that opened is as good as a new request: a stream invocation
     * can start now (lib/stream.c). */
    int fresh = sliced || c->submitted != c->submitted_at_launch || pccl_stream_gate_opened_locked(c);
    if (fresh || (int64_t)now - c->quit_seen_ns >= c->backoff_ns) {
        if (!fresh) {
            c->backoff_ns *= 2;
            if (c->backoff_ns > 10000000) c->backoff_ns = 10000000;
        }
        if (pccl_launch_locked(c)) pccl_err(c, pcclUnhandledCudaError, "relaunching the daemon failed");
    }
}


/* The watch (watch.c): a call of the process has waited PCCL_WATCH_US while
 * the daemon runs, so block 0 is asked to end the launch (the ctl word), as
 * the slice would end it; the poller relaunches after the gap, as after a
 * slice.  A call that still waits gets its next cut at twice its wait so far
 * (pccl_watch_due): a call that waits for other work (a stream behind a long
 * kernel) costs a few relaunches, not one per PCCL_WATCH_US. */
static int watch_asked(pcclComm_t c) { return (pccl_ld_acq32(&c->G.hdr->ctl) & PCCL_CTL_CUT) != 0; }

static void watch_look(pcclComm_t c, uint64_t now)
{
    if (!c->watch) return;
    /* a function's first launch (CUPTI): its work waits for an idle GPU */
    uint64_t f = pccl_watch_firsts();
    int first = f != c->watch_firsts;
    c->watch_firsts = f;
    if (!c->was_running || watch_asked(c) || !(first || pccl_watch_due(now, c->watch_ns, c->watch_last))) return;
    __atomic_fetch_or(&c->G.hdr->ctl, PCCL_CTL_CUT, __ATOMIC_RELEASE);
    c->watch_last = now;
    c->watch_asks++;
}

/* PCCL_HANG_DUMP_MS: the poller's pass, for the report (a quiet spell the
 * poller itself slept through shows as a gap between its passes). */
static void pass_log(pcclComm_t c, uint64_t now, char what, uint32_t arg)
{
    if (!c->hang_dump_ns) return;
    uint32_t i = c->pass_i++ % PCCL_PASS_LOG;
    c->pass_at[i] = now;
    c->pass_what[i] = what;
    c->pass_arg[i] = arg;
}

/* PCCL_HANG_DUMP_MS: once per quiet spell with work outstanding (dump.c). */
static void hang_report(pcclComm_t c, uint64_t now, int completions)
{
    if (completions || !c->outstanding) c->hang_dumped = 0;
    if (!c->hang_dump_ns || !c->outstanding || c->hang_dumped) return;
    uint64_t since = c->cq_seen_ns > c->inflight_since ? c->cq_seen_ns : c->inflight_since;
    if (now - since < c->hang_dump_ns) return;
    c->hang_dumped = 1;
    /* written at once: the reports of a process's ranks interleaved line by
     * line, the lines naming no rank (results/x4-h200/, call 3) */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        pccl_dump_locked(c, stderr, now - since);
        return;
    }
    pccl_dump_locked(c, m, now - since);
    fclose(m);
    fwrite(buf, 1, len, stderr);
    fflush(stderr);
    free(buf);
}

/* PCCL_POLLER_STALL_US: a pass's clock.  A pass that did not come back to
 * its loop's top in time (a rank's host side standing still while its GPU
 * and its peers went on: results/x4-h200/, call 19) says where its time
 * went: the callbacks (and the longest pcclRun they made: its buffers'
 * driver queries, its launch), the rest of the drain (the lock, the CQ),
 * the heartbeat and health checks, the daemon's liveness and launches
 * (stream queries, launch calls: driver calls that wait for the context's
 * lock), and the spin or sleep against what it asked for (a timed sleep
 * that ran long, a lock retaken late). */
enum { PASS_BEGIN, PASS_DRAINED, PASS_CHECKED, PASS_LAUNCHED, PASS_MARKS };
typedef struct {
    uint64_t t[PASS_MARKS];
    uint64_t asked, launches; /* the spin's or sleep's ns; c->launches at the pass's start */
    int completions, busy;    /* busy: invocations outstanding at its start */
    char what; /* 'd' drained, 'y' spun, 's' slept */
} pass_clock;

static void pass_mark(pcclComm_t c, pass_clock *p, int mark)
{
    if (c->stall_ns) p->t[mark] = pccl_now_ns();
}

void pccl_poller_note_run(pcclComm_t c, uint64_t t0)
{
    if (!c->stall_ns || !pccl_on_poller(c)) return;
    uint64_t d = pccl_now_ns() - t0;
    if (d > c->stall_run_ns) c->stall_run_ns = d;
}

/* The pass p ends now (mu held): reported if it began with work
 * outstanding and outlasted its spin or sleep by stall_ns (a sleep with
 * nothing outstanding that runs long holds up no one: pcclRun wakes it);
 * then the next one begins. */
static void pass_next(pcclComm_t c, pass_clock *p)
{
    if (!c->stall_ns) return;
    uint64_t end = pccl_now_ns(), *t = p->t;
    if (t[PASS_BEGIN]) {
        uint64_t idle = p->what == 'd' ? 0 : end - t[PASS_LAUNCHED];
        uint64_t over = end - t[PASS_BEGIN] - (idle < p->asked ? idle : p->asked);
        if (p->busy && over >= c->stall_ns)
            fprintf(stderr,
                    "pccl: rank %d of %d: poller pass of %.0f us (PCCL_POLLER_STALL_US) from %llu ns "
                    "(CLOCK_MONOTONIC): %d completions, callbacks "
                    "%.0f us (their longest pcclRun %.1f), the drain's rest %.0f, heartbeat and health %.0f, "
                    "liveness and launches %.0f (%llu launches), %s %.0f us of %.0f asked\n",
                    c->rank, c->nranks, (end - t[PASS_BEGIN]) / 1e3, (unsigned long long)t[PASS_BEGIN],
                    p->completions, c->stall_cb_ns / 1e3,
                    c->stall_run_ns / 1e3, (t[PASS_DRAINED] - t[PASS_BEGIN] - c->stall_cb_ns) / 1e3,
                    (t[PASS_CHECKED] - t[PASS_DRAINED]) / 1e3, (t[PASS_LAUNCHED] - t[PASS_CHECKED]) / 1e3,
                    (unsigned long long)(c->launches - p->launches),
                    p->what == 's' ? "slept" : p->what == 'y' ? "spun" : "drained: no spin or sleep,", idle / 1e3,
                    p->asked / 1e3);
    }
    *p = (pass_clock){.t = {end}, .launches = c->launches, .busy = c->outstanding > 0, .what = 'd'};
    c->stall_cb_ns = c->stall_run_ns = 0;
}

static void poller_sleep(pcclComm_t c, int64_t ns)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += ns;
    while (t.tv_nsec >= 1000000000) { t.tv_nsec -= 1000000000; t.tv_sec++; }
    pthread_cond_timedwait(&c->poll_cv, &c->mu, &t);
}

int pccl_on_poller(pcclComm_t c) { return pthread_equal(c->poller, pthread_self()); }

/* A waiter spinning on the CQ drains a completion without a callback
 * itself and returns at once; drained here, the waiter would wait for this
 * thread to let go of the lock (it goes on to its stream query, its health
 * checks).  So with a waiter spinning, a new entry is left to it for up to
 * WAITERS_FIRST_NS (an entry with a callback it leaves here, at once). */
#define WAITERS_FIRST_NS 2000
static void waiters_first(pcclComm_t c)
{
    if (!c->spinners || !pccl_cq_pending(c)) return;
    uint64_t head = c->cq_head, until = pccl_now_ns() + WAITERS_FIRST_NS;
    pthread_mutex_unlock(&c->mu);
    while (__atomic_load_n(&c->cq_head, __ATOMIC_RELAXED) == head && __atomic_load_n(&c->spinners, __ATOMIC_RELAXED) &&
           pccl_now_ns() < until)
        spin_pause(c);
    pthread_mutex_lock(&c->mu);
}

/* A destroy from one of c's callbacks (comm.c) completes what is in flight
 * here, on the poller thread, as the poller would: callbacks run nested. */
void pccl_poll_idle_locked(pcclComm_t c)
{
    while (c->outstanding) {
        if (pccl_drain(c)) continue;
        uint64_t now = pccl_now_ns();
        /* as the poller's pass does: a peer that died meanwhile fails what
         * is in flight (health.c) instead of leaving this loop waiting */
        if (c->boot) pccl_boot_beat(c->boot);
        pccl_health_check(c, now);
        maybe_launch(c, now);
        if (c->outstanding) poller_sleep(c, 20000);
    }
}

void *pccl_poller_main(void *arg)
{
    pcclComm_t c = arg;
    pthread_setname_np(pthread_self(), "pccl-poller"); /* named: tests count what is left */
    pccl_err_own_thread(1); /* its errors were no caller's: the communicator's (error.c) */
    pccl_watch_mute(1);     /* its driver calls (stream queries, relaunches) wait for no one */
    uint64_t last_event = pccl_now_ns(), last_query = 0, seen = 0; /* seen: invocations issued */
    pass_clock pc = {.what = 'd'};
    pthread_mutex_lock(&c->mu);
    c->backoff_ns = c->relaunch_ns;
    while (c->stopping != 2) {
        pass_next(c, &pc);
        waiters_first(c);
        int n = pc.completions = pccl_drain(c);
        uint64_t now = pccl_now_ns();
        pass_mark(c, &pc, PASS_DRAINED);
        if (c->boot) pccl_boot_beat(c->boot); /* peers see this rank alive (health.c) */
        pccl_health_check(c, now);
        if (n || c->submitted + c->direct_runs != seen) { last_event = now; seen = c->submitted + c->direct_runs; }
        hang_report(c, now, n);
        watch_look(c, now);
        /* Near the end of a launch's slice, or once the watch asked for a
         * cut, the poller is hot and looks more often, and stays so until
         * the relaunch: a sliced daemon is relaunched within SLICE_QUERY_NS
         * of PCCL_SLICE_GAP_US, not after a sleep or POLL_QUERY_NS (each
         * slice costs that gap).  With the launch ahead, the running
         * launch's end needs no such pace (its relaunch is queued within
         * POLL_QUERY_NS of its time, a stream query on the way at most):
         * the poller stays awake only, spinning without the lock as between
         * completions, where the hot pace took the lock at every pass, and
         * pcclRun and pcclWait waited for it. */
        int ends_soon = c->was_running && c->G.k.slice_ns && !c->ahead && now + SLICE_HOT_NS + c->slice_ahead_ns >= c->slice_acc.end_ns;
        int ahead_mode = c->slice_ahead_ns && !c->watch;
        int slice_due = (c->G.k.slice_ns || c->watch) && c->outstanding &&
                        (c->was_running ? (ends_soon && !ahead_mode) || watch_asked(c)
                                        : pccl_sliced(c) && !c->aborted && !c->failed &&
                                              c->stopping != 2); /* a relaunch to come: else it would spin for good */
        int awake = slice_due || (c->outstanding && ends_soon);
        pass_mark(c, &pc, PASS_CHECKED);
        /* Not after every completion: a stream query is driver time, and
         * the next completion waits for it. */
        if ((c->was_running && daemon_ended(c, now)) || pccl_ahead_ended(c) || now - last_query >= (slice_due ? SLICE_QUERY_NS : POLL_QUERY_NS)) {
            maybe_launch(c, now);
            last_query = now;
        }
        pass_mark(c, &pc, PASS_LAUNCHED);
        if (n) {
            pass_log(c, now, 'd', (uint32_t)n);
            continue;
        }
        uint64_t quiet = now - last_event;
        if (c->outstanding && (quiet < c->poll_hot_ns || awake)) {
            /* Hot: spins on the CQ without the lock (held while polling, it
             * sent every pcclRun and pcclWait to sleep on the mutex), then
             * yields. */
            pass_log(c, now, 'y', 0);
            pc.what = 'y';
            pc.asked = slice_due ? 0 : c->poll_spin_ns;
            spin_cq(c, now + pc.asked);
            if (!pccl_cq_pending(c) && !pccl_direct_ready(c)) {
                pthread_mutex_unlock(&c->mu);
                sched_yield();
                pthread_mutex_lock(&c->mu);
            }
        } else {
            int64_t ns = !c->outstanding ? 1000000 : quiet < POLL_COOL_NS ? 20000 : 200000;
            pass_log(c, now, 's', (uint32_t)(ns / 1000));
            pc.what = 's';
            pc.asked = (uint64_t)ns;
            poller_sleep(c, ns);
        }
    }
    int deferred = c->deferred;
    pthread_mutex_unlock(&c->mu);
    if (deferred) pccl_teardown_deferred(c); /* destroyed from a callback: frees c */
    return NULL;
}

