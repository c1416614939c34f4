/* Stream-ordered invocation: a collective ordered on a stream as a kernel
 * would be, while the daemon stays the only thing that runs it.
 *
 * The host writes the SQ entry at once, marked gated, and enqueues on the
 * stream a store of the invocation's number n into its gate (a flag in the
 * daemon's device memory, one of PCCL_GATE_SLOTS per collective): the stream
 * makes it only after its earlier work is complete and visible.  The daemon
 * treats a closed gate as "not ready", like a peer that is not there yet: it
 * waits up to the spin threshold, preempts, runs other collectives, quits
 * when nothing progresses (so a cudaDeviceSynchronize() or an implicit
 * synchronization can return) and is relaunched by the poller while the
 * invocation is outstanding.  At completion the daemon stores n into the
 * collective's fin flag (scheduler.h, pccl_flush_done), and pcclStreamWaitRun
 * enqueues a wait until fin >= n before the stream's later work.  No host
 * thread waits for anything.
 *
 * One invocation per collective runs at a time (its context and rings are
 * its own), so a stream-ordered invocation issued while one is in flight
 * waits in the collective's pending list; the poller submits it when the one
 * before completes.  Gates have PCCL_GATE_SLOTS slots: invocation n+SLOTS
 * may be issued only once invocation n has completed, so that its stream can
 * never overwrite the gate of an invocation that has not started. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/* The poller relaunches a daemon that quit while a gate was closed as soon
 * as the gate opens, not after its backoff (up to 10 ms): the stream writes
 * each gate twice, into device memory for the daemon and into pinned memory
 * (hgate) for the poller, which watches the gated invocations in flight. */
struct pccl_gwatch {
    int id;
    int fired; /* seen open, relaunched for */
    uint64_t ticket;
};

static void watch_locked(pcclComm_t c, int id)
{
    if (!c->gwatch) c->gwatch = calloc((size_t)c->G.k.depth, sizeof *c->gwatch);
    if (!c->gwatch || c->ngwatch >= c->G.k.depth) return; /* then the backoff relaunches it */
    c->gwatch[c->ngwatch++] = (struct pccl_gwatch){id, 0, c->colls[id].completions + 1};
}

int pccl_stream_gate_opened_locked(pcclComm_t c)
{
    int opened = 0;
    for (int i = 0; i < c->ngwatch;) {
        struct pccl_gwatch *w = &c->gwatch[i];
        if (c->colls[w->id].completions >= w->ticket) { /* done: forget it */
            *w = c->gwatch[--c->ngwatch];
            continue;
        }
        const uint64_t *g = &c->G.hgate[(size_t)w->id * PCCL_GATE_SLOTS + w->ticket % PCCL_GATE_SLOTS];
        if (!w->fired && pccl_ld_acq(g) >= w->ticket) w->fired = opened = 1;
        i++;
    }
    return opened;
}

/* Issues invocation `issued + 1` gated on `stream`; its ticket is that number. */
static pcclResult_t run_after(pcclComm_t c, const char *fn, int id, const void *sendbuff, void *recvbuff,
                              void *stream, uint64_t *ticket)
{
    pthread_mutex_lock(&c->mu);
    pcclResult_t r = pccl_run_check_locked(c, fn, id, sendbuff, recvbuff);
    if (!r) r = c->be->stream_check(c, stream);
    if (r) { pthread_mutex_unlock(&c->mu); return r; }
    pccl_hcoll *h = &c->colls[id];
    uint64_t pending = (uint64_t)h->inflight + (uint64_t)h->npend;
    if (pending >= PCCL_GATE_SLOTS) {
        pthread_mutex_unlock(&c->mu);
        return pccl_err(c, pcclInvalidUsage,
                        "%s: collId %d has %d invocations outstanding already (at most %d; wait for the oldest)", fn,
                        id, (int)pending, PCCL_GATE_SLOTS);
    }
    uint64_t n = h->issued + 1;
    size_t slot = (size_t)id * PCCL_GATE_SLOTS + n % PCCL_GATE_SLOTS;
    r = c->be->stream_write(c, stream, &c->G.gate[slot], n);
    if (!r) r = c->be->stream_write(c, stream, &c->G.hgate[slot], n);
    if (r) { pthread_mutex_unlock(&c->mu); return r; }
    h->issued = n;
    pccl_count_outstanding_locked(c);
    if (h->inflight || h->npend) { /* after the one in flight */
        h->pend[(h->pend_head + h->npend) % PCCL_GATE_SLOTS] = (pccl_args){sendbuff, recvbuff};
        h->npend++;
    } else {
        h->cb = NULL;
        watch_locked(c, id);
        r = pccl_submit_locked(c, id, sendbuff, recvbuff, PCCL_SQ_GATED);
    }
    pthread_mutex_unlock(&c->mu);
    if (ticket) *ticket = n;
    return r;
}

void pccl_stream_next_locked(pcclComm_t c, int id)
{
    pccl_hcoll *h = &c->colls[id];
    if (c->aborted || c->failed) { /* their streams are released by pccl_stream_release */
        c->outstanding -= (uint64_t)h->npend;
        h->completions += (uint64_t)h->npend; /* pcclTestRun/pcclWaitRun: done, pcclRemoteError */
        h->npend = 0;
        return;
    }
    pccl_args a = h->pend[h->pend_head];
    h->pend_head = (h->pend_head + 1) % PCCL_GATE_SLOTS;
    h->npend--;
    h->cb = NULL;
    watch_locked(c, id);
    if (pccl_submit_locked(c, id, a.sendbuf, a.recvbuf, PCCL_SQ_GATED))
        pccl_err(c, pcclUnhandledCudaError, "launching the daemon for a pending stream invocation failed");
}

void pccl_stream_release(pcclComm_t c)
{
    pccl_st_rel32(&c->G.hdr->hold, 0); /* the daemon quits on the abort flag anyway */
    if (c->ncolls && c->be->set_flags(c, c->G.fin, PCCL_FIN_RELEASED, (size_t)c->ncolls))
        pccl_err(c, pcclUnhandledCudaError, "releasing the streams that wait for collectives failed");
}

pcclResult_t pcclRunAfter(pcclComm_t c, int id, const void *sendbuff, void *recvbuff, pcclStream_t stream,
                          uint64_t *ticket)
{
    CHECK_COMM(c, "pcclRunAfter");
    return run_after(c, "pcclRunAfter", id, sendbuff, recvbuff, stream, ticket);
}

/* An issued ticket of a registered collective (mu held); fn names the call. */
static pcclResult_t ticket_check_locked(pcclComm_t c, const char *fn, int id, uint64_t ticket)
{
    if (id < 0 || id >= c->ncolls || !c->colls[id].ready)
        return pccl_err(c, pcclInvalidArgument, "%s: collId %d not registered (have %d)", fn, id, c->ncolls);
    if (ticket < 1 || ticket > c->colls[id].issued)
        return pccl_err(c, pcclInvalidArgument, "%s: ticket %llu of collId %d was not issued (issued: %llu)", fn,
                        (unsigned long long)ticket, id, (unsigned long long)c->colls[id].issued);
    return pcclSuccess;
}

/* The hold (cut.h, pccl_may_quit): while a stream waits for an
 * invocation that is not complete, the daemon does not quit.  A framework's
 * thread that enqueues the wait goes on to launch its own kernels, and the
 * first launch of a kernel under lazy module loading (or a cudaFree) waits
 * for the GPU to drain while holding the context lock: the drain includes
 * the stream's wait, and a daemon that quit could not be relaunched until
 * the lock is free.  So the daemon must be running when the wait is
 * enqueued, and stay until the collective completes.  The host publishes
 * the flag and the set of held invocations, which the daemon checks itself
 * (pccl_hold_done): the collectives a stream waits for and the ticket each
 * waits for, PCCL_HOLD_SET of them at most (else PCCL_HOLD_MANY: held until
 * the host's release).  The host is the only writer (mu held); a seqlock
 * lets the daemon read a consistent copy or retry. */
static void hold_publish_locked(pcclComm_t c)
{
    pccl_pinned_hdr *hd = c->G.hdr;
    uint32_t seq = hd->hold_seq + 1, n = c->nheld <= PCCL_HOLD_SET ? (uint32_t)c->nheld : PCCL_HOLD_MANY;
    __atomic_store_n(&hd->hold_seq, seq, __ATOMIC_RELAXED); /* odd: being rewritten */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    for (uint32_t i = 0; n != PCCL_HOLD_MANY && i < n; i++) {
        int id = c->held[i];
        __atomic_store_n(&hd->hold_id[i], (uint32_t)id, __ATOMIC_RELAXED);
        __atomic_store_n(&hd->hold_tk[i], c->colls[id].waited, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&hd->hold_n, n, __ATOMIC_RELAXED);
    __atomic_store_n(&hd->hold_seq, seq + 1, __ATOMIC_RELEASE);
    pccl_st_rel32(&hd->hold, c->nheld > 0 && !c->aborted && !c->failed);
}

void pccl_hold_release_locked(pcclComm_t c, int id)
{
    pccl_hcoll *h = &c->colls[id];
    if (c->nheld <= 0 || h->held_pos < 0) return;
    int last = c->held[--c->nheld];
    c->held[h->held_pos] = last;
    c->colls[last].held_pos = h->held_pos;
    h->held_pos = -1;
    hold_publish_locked(c);
}

static pcclResult_t hold_locked(pcclComm_t c, int id, uint64_t ticket)
{
    pccl_hcoll *h = &c->colls[id];
    if (ticket <= h->completions || ticket <= h->waited || c->aborted || c->failed) {
        if (ticket > h->waited) h->waited = ticket;
        return pcclSuccess;
    }
    if (!c->held) c->held = malloc(sizeof *c->held * (size_t)c->G.k.max_colls);
    if (!c->held) return pccl_err(c, pcclSystemError, "out of host memory");
    h->waited = ticket;
    int first = c->nheld == 0;
    if (h->held_pos < 0) {
        h->held_pos = c->nheld;
        c->held[c->nheld++] = id;
    }
    hold_publish_locked(c);
    /* A daemon that quit before the hold (its gate closed, say), or one whose
     * blocks are ending the latest launch (hdr->quitting: block 0 saw no
     * hold, or saw every held invocation complete before this one was added;
     * a launch queued ahead behind an ending one will see the hold), comes back
     * now, before the caller's next CUDA call can be a module load or a
     * stream synchronization that keeps the poller's relaunch out (on one
     * H100 a poller sat in cudaStreamQuery while the thread that waited
     * synchronized: results/stream-gpu/run7): an ending launch is waited
     * for and replaced. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the hold before the look at quitting */
    if (c->stopping == 0) {
        int quitting = pccl_quitting(c);
        if (quitting) c->be->launch_wait(c);
        /* held already and not ending: the launch runs, no driver call */
        if ((quitting || first) && !c->be->running(c)) {
            pcclResult_t r = pccl_launch_locked(c);
            if (r) return r;
        }
    }
    return pcclSuccess;
}

/* The hardware queues.  CUDA runs a process's streams on a few hardware
 * queues per GPU (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default), each in its
 * order: work a stream enqueues behind another stream's wait, on the same
 * queue, waits too.  So with more streams than queues a gate can sit behind
 * the wait for another collective, and ranks that issued the two in
 * opposite orders wait for each other: a deadlock no scheduling can undo
 * (the gate's stream's earlier work, the inputs, waits as well).  On one
 * H200, two ranks, each of 8 collectives on a stream of its own in random
 * orders: 3 of 3 runs hung with 8 queues, 2 of 2 completed with 32
 * (results/stream-queues-h200/).  pccl cannot see which queue a stream got,
 * but more streams than queues share one for certain: the streams that
 * carry a wait on a collective not yet complete, and the communicator's own
 * two on the GPU (the daemon's and its copies'), counted against
 * PCCL_STREAM_QUEUES; past it, a warning, once, where there are peers to
 * wait for. */
struct pccl_swait {
    void *stream;
    int id;
    uint64_t ticket;
};

#define PCCL_OWN_STREAMS 2

static void queues_check_locked(pcclComm_t c, void *stream, int id, uint64_t ticket)
{
    /* one rank waits for no peer: a shared queue only orders its collectives */
    if (!c->stream_queues || c->queues_warned || c->nranks < 2) return;
    int n = 0, found = 0;
    for (int i = 0; i < c->nswaits; i++) { /* drop the completed waits; this stream's wait: the later ticket */
        struct pccl_swait *w = &c->swaits[i];
        if (c->colls[w->id].completions >= w->ticket) continue;
        if (w->stream == stream && w->id == id) w->ticket = ticket > w->ticket ? ticket : w->ticket, found = 1;
        c->swaits[n++] = *w;
    }
    c->nswaits = n;
    if (!found && c->colls[id].completions < ticket) {
        if (c->nswaits == c->cap_swaits) {
            int cap = c->cap_swaits ? 2 * c->cap_swaits : 16;
            struct pccl_swait *a = realloc(c->swaits, sizeof *a * (size_t)cap);
            if (!a) return; /* a check skipped, nothing else */
            c->swaits = a;
            c->cap_swaits = cap;
        }
        c->swaits[c->nswaits++] = (struct pccl_swait){stream, id, ticket};
    }
    /* distinct streams, counted until they are too many (each entry looks
     * back for its stream; the entries are the waits pending, a few) */
    int own = c->be == &pccl_host_backend ? 0 : PCCL_OWN_STREAMS, streams = 0;
    for (int i = 0; i < c->nswaits && streams + own <= c->stream_queues; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = c->swaits[j].stream == c->swaits[i].stream;
        streams += !seen;
    }
    if (streams + own <= c->stream_queues) return;
    c->queues_warned = 1;
    fprintf(stderr,
            "pccl: rank %d: %d or more streams wait for collectives not yet complete, with pccl's own %d more than the %d "
            "hardware queues CUDA runs streams on (CUDA_DEVICE_MAX_CONNECTIONS): work behind a wait on a shared "
            "queue waits too, so ranks that order collectives differently may wait for each other. Set "
            "CUDA_DEVICE_MAX_CONNECTIONS=32 before CUDA starts, use fewer streams, or enqueue a stream's "
            "collectives (pcclRunAfter) before its waits (pcclStreamWaitRun); lib/README.md, \"Not yet\"\n",
            c->rank, streams, own, c->stream_queues);
}

static pcclResult_t wait_run(pcclComm_t c, const char *fn, int id, uint64_t ticket, void *stream)
{
    pthread_mutex_lock(&c->mu);
    pcclResult_t r = ticket_check_locked(c, fn, id, ticket);
    if (!r) r = c->be->stream_check(c, stream);
    if (!r) r = c->be->stream_wait(c, stream, &c->G.fin[id], ticket);
    if (!r) r = hold_locked(c, id, ticket);
    if (!r) queues_check_locked(c, stream, id, ticket);
    pthread_mutex_unlock(&c->mu);
    return r;
}

pcclResult_t pcclStreamWaitRun(pcclComm_t c, int id, uint64_t ticket, pcclStream_t stream)
{
    CHECK_COMM(c, "pcclStreamWaitRun");
    return wait_run(c, "pcclStreamWaitRun", id, ticket, stream);
}

pcclResult_t pcclRunOnStream(pcclComm_t c, int id, const void *sendbuff, void *recvbuff, pcclStream_t stream)
{
    CHECK_COMM(c, "pcclRunOnStream");
    uint64_t n = 0;
    pcclResult_t r = run_after(c, "pcclRunOnStream", id, sendbuff, recvbuff, stream, &n);
    return r ? r : wait_run(c, "pcclRunOnStream", id, n, stream);
}

/* Ticket t of a collective is complete once t of its invocations completed
 * (they complete in issue order). */
pcclResult_t pcclTestRun(pcclComm_t c, int id, uint64_t ticket, int *done)
{
    CHECK_COMM(c, "pcclTestRun");
    if (!done) return pccl_err(c, pcclInvalidArgument, "pcclTestRun: done is NULL");
    pthread_mutex_lock(&c->mu);
    pcclResult_t r = ticket_check_locked(c, "pcclTestRun", id, ticket);
    if (!r) {
        *done = c->colls[id].completions >= ticket;
        if (*done && (c->aborted || c->failed)) r = pcclRemoteError;
    }
    pthread_mutex_unlock(&c->mu);
    return r;
}

pcclResult_t pcclWaitRun(pcclComm_t c, int id, uint64_t ticket)
{
    CHECK_COMM(c, "pcclWaitRun");
    pthread_mutex_lock(&c->mu);
    pcclResult_t r = ticket_check_locked(c, "pcclWaitRun", id, ticket);
    if (!r) {
        uint64_t until = c->wait_spin_ns ? pccl_now_ns() + c->wait_spin_ns : 0; /* as pcclWait */
        while (c->colls[id].completions < ticket && !c->aborted && !c->failed)
            if (!until || !pccl_wait_spin_locked(c, until)) pccl_sleep_locked(c, id);
        if (c->aborted || c->failed) r = pcclRemoteError;
    }
    pthread_mutex_unlock(&c->mu);
    return r;
}
