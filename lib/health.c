/* Faults: a peer that exited, or whose process stopped making progress, fails
 * the communicator instead of leaving this rank waiting forever.
 *
 * What "alive" and "progress" mean here, observably (ranks in separate
 * processes; threads of one process live and die together):
 *   - exited: the peer's lock on its byte of the rendezvous mapping is free
 *     (bootstrap.c).  The kernel drops it when the process ends, however it
 *     ends (kill -9, a crash, exit), so this is seen within one check.
 *   - stalled: the peer's heartbeat, which its poller thread bumps on every
 *     pass (at least every millisecond) and its barriers bump while they
 *     wait, has not moved for PCCL_PEER_TIMEOUT_MS, counted only while this
 *     rank has an invocation in flight.  A slow peer, a peer busy computing
 *     before it invokes, a preempted collective, a daemon that quit and waits
 *     to be relaunched: their pollers beat, so none of them is ever a stall;
 *     a process stopped (SIGSTOP, a debugger) or frozen is one.  A callback
 *     that runs longer than the timeout holds its poller, and counts as one.
 *   - a peer that failed the communicator publishes the ranks it found
 *     failed; every rank adopts them, so all survivors report the same set
 *     (pcclCommGetFailedRanks) and can shrink alike.  A peer that left
 *     without a failure (aborted, or destroyed while this rank still waits)
 *     counts as failed itself.
 * On a failure the daemon stops, every invocation in flight completes with
 * pcclRemoteError (callbacks run, waits return it), pcclRun refuses new ones,
 * and pcclGetLastError names the rank, what happened, and the collectives. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* A check costs a system call per peer (the lock): every 5 ms at most. */
#define HEALTH_NS 5000000ull

static const char *const coll_names[pcclNumColls] = {"all-reduce", "all-gather", "reduce-scatter", "reduce",
                                                     "broadcast"};

void pccl_fail_locked(pcclComm_t c, uint64_t mask, const char *why)
{
    if (c->failed) return;
    c->failed = pcclRemoteError;
    c->failed_mask = mask;
    if (c->boot) pccl_boot_set_failed(c->boot, mask);
    int n = 0, first = -1;
    for (int i = 0; i < c->ncolls; i++)
        if (c->colls[i].inflight && n++ == 0) first = i;
    char what[160] = "no invocation was in flight", more[48] = "";
    if (n > 1) snprintf(more, sizeof more, " and %d more in flight", n - 1);
    if (first >= 0)
        snprintf(what, sizeof what, "collective %d (%s)%s failed with pcclRemoteError", first,
                 coll_names[c->colls[first].dev.type % pcclNumColls], more);
    snprintf(c->fail_why, sizeof c->fail_why, "rank %d of %d: %s; %s", c->rank, c->nranks, why, what);
    pccl_err_comm(c, pcclRemoteError, "%s (pcclCommAbort the communicator, then pcclCommShrink or a new one)",
                  c->fail_why); /* whichever thread found it: every thread's */
    /* The daemon stops for good before anything completes: the caller may
     * free its buffers as soon as its wait returns. */
    __atomic_fetch_or(&c->G.hdr->ctl, PCCL_CTL_ABORT, __ATOMIC_RELEASE);
    pccl_stream_release(c); /* streams waiting for a collective go on */
    c->be->devsync(c);
    pccl_drain(c); /* what did complete before the daemon stopped completes as such */
    for (int i = 0; i < c->ncolls; i++)
        if (c->colls[i].inflight) pccl_finish(c, i, pcclRemoteError);
}

/* Appends "what, " to the reason. */
static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t k = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (k + 2 < len) vsnprintf(buf + k, len - k, fmt, ap);
    va_end(ap);
    k = strlen(buf);
    if (k + 3 < len) strcat(buf, ", ");
}

/* A peer whose poller waits for a CPU is not stalled: on a loaded machine
 * (2 cores, 20 runnable threads) a live rank's poller waited on the run
 * queue for up to 1.4 s, which PCCL_PEER_TIMEOUT_MS 500 took for a stall.
 * So halfway through a silence the peer's beating thread's CPU time is
 * sampled, with the runnable threads of its process (/proc: only then); at
 * the timeout, a beating thread that is runnable ('R') but had the CPU for
 * less than half the time since waited for one: the silence starts over.
 * So did one blocked ('S', 'D') behind a thread of its process that was
 * runnable at both looks and had the CPU less than half the time: in CI's
 * TSan run a live rank's poller waited 500 ms for the daemon thread it had
 * just created to start, which sat on a CPU taken by another process's
 * SCHED_FIFO spin.  A stopped (SIGSTOP, 'T') or frozen process, a poller
 * blocked on a lock whose holder sleeps too, or computing in a long callback
 * (it has the CPU) stay stalls. */
static void starve_sample(pcclComm_t c, int r, uint64_t now)
{
    if (!pccl_boot_peer_thread(c->boot, r, &c->cpu_seen[r])) c->cpu_seen[r] = UINT64_MAX;
    c->nrunq[r] = pccl_proc_runnable(pccl_boot_pid(c->boot, r), c->runq[r], PCCL_RUNQ_LOOK);
    c->cpu_ns[r] = now;
}

/* Whether a thread runnable at both looks, span_ns apart, had the CPU for
 * less than half of it: it waited for one. */
int pccl_waited_for_cpu(const pccl_tlook *then, int nthen, const pccl_tlook *now, int nnow, uint64_t span_ns)
{
    for (int i = 0; i < nnow; i++)
        for (int j = 0; j < nthen; j++)
            if (now[i].tid == then[j].tid && now[i].cpu_ns >= then[j].cpu_ns &&
                (now[i].cpu_ns - then[j].cpu_ns) * 2 < span_ns)
                return 1;
    return 0;
}

static int starved(pcclComm_t c, int r, uint64_t now)
{
    uint64_t then = c->cpu_seen[r], t = c->cpu_ns[r], cpu = 0;
    if (!t) { /* this rank's own check came late: sample now, decide half a timeout later */
        starve_sample(c, r, now);
        c->beat_ns[r] = now - c->peer_timeout_ns / 2;
        return 1;
    }
    char st = pccl_boot_peer_thread(c->boot, r, &cpu);
    int waited = 0;
    if (st == 'R') {
        waited = then != UINT64_MAX && cpu >= then && (cpu - then) * 2 < now - t;
    } else if (st == 'S' || st == 'D') {
        pccl_tlook look[PCCL_RUNQ_LOOK];
        int n = pccl_proc_runnable(pccl_boot_pid(c->boot, r), look, PCCL_RUNQ_LOOK);
        waited = pccl_waited_for_cpu(c->runq[r], c->nrunq[r], look, n, now - t);
    }
    if (!waited) return 0;
    c->beat_ns[r] = now; /* waited for a CPU: alive, the silence starts over */
    c->cpu_ns[r] = 0;
    return 1;
}

void pccl_health_check(pcclComm_t c, uint64_t now)
{
    if (c->failed || !c->boot || now - c->health_ns < HEALTH_NS) return;
    c->health_ns = now;
    pccl_boot *b = c->boot;
    uint64_t mask = 0, me = 1ull << c->rank, done = 0;
    char why[256] = "";
    /* Peers that left cleanly after completing as many invocations as this
     * rank submitted: they took their part in all of them (every rank
     * submits the same), which need them no more, so their leaving is no
     * failure here, nor another rank's verdict on it (that rank may have
     * submitted more).  A peer that finished first and left while this one
     * still waited for a third (its destroy waits for the others only until
     * they stall for PCCL_PEER_TIMEOUT_MS) failed this one before.  One
     * invocation more, and its leaving is a failure. */
    for (int r = 0; r < c->nranks; r++)
        if (r != c->rank && pccl_boot_left(b, r) && pccl_boot_done(b, r) >= c->submitted) done |= 1ull << r;
    for (int r = 0; r < c->nranks; r++) {
        if (r == c->rank) continue;
        uint64_t theirs = pccl_boot_failed(b, r) & ~me & ~done, bit = 1ull << r;
        if (theirs && !(theirs & ~mask)) continue;
        if (theirs) { /* a peer failed: its verdict is ours */
            mask |= theirs;
            char list[200] = "";
            for (int f = 0; f < c->nranks; f++)
                if (theirs >> f & 1)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%srank %d", *list ? ", " : "", f);
            append(why, sizeof why, "rank %d found failed (dead or stalled): %s", r, list);
        } else if (!pccl_boot_alive(b, r)) {
            if (done & bit) continue;
            mask |= bit;
            append(why, sizeof why, "rank %d (pid %d) %s", r, pccl_boot_pid(b, r),
                   pccl_boot_left(b, r) ? "left the communicator" : "exited");
        } else {
            uint64_t beat = pccl_boot_peer_beat(b, r), from = c->beat_ns[r];
            if (beat != c->beat_seen[r] || !from) {
                c->beat_seen[r] = beat;
                c->beat_ns[r] = now;
                c->cpu_ns[r] = 0;
                continue;
            }
            if (c->inflight_since > from) from = c->inflight_since;
            if (!c->peer_timeout_ns || !c->outstanding) continue;
            if (now - from < c->peer_timeout_ns) {
                if (now - from >= c->peer_timeout_ns / 2 && !c->cpu_ns[r]) starve_sample(c, r, now);
                continue;
            }
            if (starved(c, r, now)) continue;
            mask |= bit;
            append(why, sizeof why, "rank %d (pid %d) made no progress for %d ms (PCCL_PEER_TIMEOUT_MS) while "
                   "this rank waited", r, pccl_boot_pid(b, r), (int)((now - from) / 1000000));
        }
    }
    if (!mask) return;
    why[strlen(why) > 2 ? strlen(why) - 2 : 0] = 0;
    pccl_fail_locked(c, mask, why);
}

void pccl_forget_arenas(pcclComm_t c)
{
    if (!c->boot || !c->be || !c->be->forget) return;
    for (int r = 0; r < c->nranks; r++) c->be->forget(c, r);
}

pcclResult_t pcclCommGetAsyncError(pcclComm_t c, pcclResult_t *asyncError)
{
    CHECK_COMM(c, "pcclCommGetAsyncError");
    if (!asyncError) return pccl_err(c, pcclInvalidArgument, "pcclCommGetAsyncError: asyncError is NULL");
    pthread_mutex_lock(&c->mu);
    *asyncError = c->failed;
    pthread_mutex_unlock(&c->mu);
    return pcclSuccess;
}

pcclResult_t pcclCommGetFailedRanks(pcclComm_t c, int *ranks, int *count)
{
    CHECK_COMM(c, "pcclCommGetFailedRanks");
    if (!ranks || !count) return pccl_err(c, pcclInvalidArgument, "pcclCommGetFailedRanks: ranks or count is NULL");
    pthread_mutex_lock(&c->mu);
    int n = 0;
    for (int r = 0; r < c->nranks; r++)
        if (c->failed_mask >> r & 1) ranks[n++] = r;
    *count = n;
    pthread_mutex_unlock(&c->mu);
    return pcclSuccess;
}
