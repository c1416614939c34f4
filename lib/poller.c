/* The poller thread: takes CQ entries in ticket order (acquire), runs
 * callbacks, and restarts the daemon when it quit with work left (at once if
 * new requests arrived since its launch or its time slice ended it, else
 * after a growing delay, so that a GPU synchronization waiting for the
 * daemon to quit gets its chance to return). */
#include <sched.h>
#include <time.h>

#include "internal.h"

/* The poller's pace.  While an invocation is in flight and something
 * happened (a submission, a completion) within poll_hot_ns, it only yields
 * between polls: a completion is seen within a microsecond or two, where a
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

/* Called with c->mu held. */
pcclResult_t pccl_launch_locked(pcclComm_t c)
{
    pccl_st_rel32(&c->G.hdr->sliced, 0); /* the new launch reports its own end */
    uint64_t t0 = pccl_now_ns();
    c->slice_acc.end_ns = pccl_slice_plan_locked(c, t0);
    pcclResult_t r = c->be->launch(c);
    if (r) return r;
    c->launches++;
    pccl_slice_on_launch_locked(c, t0, pccl_now_ns());
    c->submitted_at_launch = c->submitted;
    c->was_running = 1;
    c->running_seen_ns = c->launched_ns = pccl_now_ns();
    return pcclSuccess;
}

/* ---- the poller ---------------------------------------------------------------- */

void pccl_finish(pcclComm_t c, int id, pcclResult_t status)
{
    pccl_hcoll *h = &c->colls[id];
    pcclCallback_t cb = h->cb;
    void *arg = h->cb_arg;
    h->status = status;
    h->inflight = 0;
    h->completions++;
    c->outstanding--;
    c->completed++;
    c->backoff_ns = c->relaunch_ns;
    if (h->npend) pccl_stream_next_locked(c, id);
    if (cb) {
        h->in_callback = 1;
        c->callbacks++;
        pthread_mutex_unlock(&c->mu);
        cb(id, status, arg);
        pthread_mutex_lock(&c->mu);
        h->in_callback = 0;
        c->callbacks--;
    }
    pthread_cond_broadcast(&c->cv);
}

/* Takes CQ entries in ticket order; returns how many.  Called with mu held. */
int pccl_drain(pcclComm_t c)
{
    int n = 0;
    for (;;) {
        uint64_t t = c->cq_head, e = pccl_ld_acq(&c->G.cq[t % (uint64_t)c->G.k.depth]);
        if ((e >> 32) != ((t + 1) & 0xffffffffull)) return n;
        int id = (int)(e & 0xffffffffu);
        c->cq_head++;
        n++;
        if (id < 0 || id >= c->ncolls || !c->colls[id].inflight) {
            pccl_err(c, pcclInternalError, "CQ entry for collective %d that is not in flight", id);
            continue;
        }
        pccl_finish(c, id, pcclSuccess);
    }
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
    if (c->be->running(c)) {
        c->was_running = 1;
        c->running_seen_ns = now;
        return;
    }
    if (c->was_running) {
        c->was_running = 0;
        c->quit_seen_ns = (int64_t)now;
        pccl_slice_on_end_locked(c);
    }
    if (!c->outstanding) return;
    int sliced = pccl_ld_acq32(&c->G.hdr->sliced) != 0;
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


static void poller_sleep(pcclComm_t c, int64_t ns)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += ns;
    while (t.tv_nsec >= 1000000000) { t.tv_nsec -= 1000000000; t.tv_sec++; }
    pthread_cond_timedwait(&c->poll_cv, &c->mu, &t);
}

int pccl_on_poller(pcclComm_t c) { return pthread_equal(c->poller, pthread_self()); }

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
    uint64_t last_event = pccl_now_ns(), last_query = 0, seen = 0;
    pthread_mutex_lock(&c->mu);
    c->backoff_ns = c->relaunch_ns;
    while (c->stopping != 2) {
        int n = pccl_drain(c);
        uint64_t now = pccl_now_ns();
        if (c->boot) pccl_boot_beat(c->boot); /* peers see this rank alive (health.c) */
        pccl_health_check(c, now);
        if (n || c->submitted != seen) { last_event = now; seen = c->submitted; }
        /* Near the end of a launch's slice the poller is hot and looks more
         * often, and stays so until the relaunch: a sliced daemon is
         * relaunched within SLICE_QUERY_NS of PCCL_SLICE_GAP_US, not after a
         * sleep or POLL_QUERY_NS (each slice costs that gap). */
        int slice_due = c->G.k.slice_ns && c->outstanding &&
                        (c->was_running ? now + SLICE_HOT_NS >= c->slice_acc.end_ns
                                        : pccl_ld_acq32(&c->G.hdr->sliced) != 0 && !c->aborted && !c->failed &&
                                              c->stopping != 2); /* a relaunch to come: else it would spin for good */
        if (now - last_query >= (slice_due ? SLICE_QUERY_NS : POLL_QUERY_NS) || n) {
            maybe_launch(c, now);
            last_query = now;
        }
        if (n) continue;
        uint64_t quiet = now - last_event;
        if (c->outstanding && (quiet < c->poll_hot_ns || slice_due)) {
            pthread_mutex_unlock(&c->mu);
            sched_yield();
            pthread_mutex_lock(&c->mu);
        } else {
            poller_sleep(c, !c->outstanding ? 1000000 : quiet < POLL_COOL_NS ? 20000 : 200000);
        }
    }
    int deferred = c->deferred;
    pthread_mutex_unlock(&c->mu);
    if (deferred) pccl_teardown_deferred(c); /* destroyed from a callback: frees c */
    return NULL;
}

