/* Invocation and completion, the host half of the SQ/CQ protocol: pcclRun
 * writes the buffers, then the SQ entry (release); waits sleep on the
 * communicator until the poller (poller.c) finished the invocation. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int coll_id_ok(pcclComm_t c, int id) { return id >= 0 && id < c->ncolls && c->colls[id].ready; }

/* A buffer the collective uses: aligned to its element (the daemon reads and
 * writes whole elements: a misaligned one faults on the GPU, is undefined
 * behaviour on the host), then the backend's checks (memory, size). */
static pcclResult_t check_buf(pcclComm_t c, const pccl_hcoll *h, const void *p, size_t bytes, const char *what)
{
    if ((uintptr_t)p & ~(uintptr_t)PCCL_SQ_PTR_MASK) /* the SQ has 48 bits for it (core.h, "SQ") */
        return pccl_err(c, pcclInvalidArgument, "pcclRun: %s %p is above the 48-bit address space", what, p);
    if (p && bytes && (uintptr_t)p % h->dev.esize)
        return pccl_err(c, pcclInvalidArgument, "pcclRun: %s %p is not aligned to its datatype's %d bytes", what, p,
                        (int)h->dev.esize);
    return c->be->check_buf(c, p, bytes, what);
}

/* Waits on c's poller thread would wait for the thread they block. */
#define NOT_ON_POLLER(c, fn)                                                                                  \
    if (pccl_on_poller(c))                                                                                    \
        return pccl_err(c, pcclInvalidUsage,                                                                  \
                        "%s: called from a callback of this communicator, whose completions it would wait for " \
                        "(use pcclTest there)", fn)

/* The checks every invocation passes, with c->mu held; fn names the call. */
pcclResult_t pccl_run_check_locked(pcclComm_t c, const char *fn, int id, const void *sendbuff, void *recvbuff)
{
    if (c->aborted) return pccl_err(c, pcclInvalidUsage, "%s: communicator aborted", fn);
    if (c->stopping) return pccl_err(c, pcclInvalidUsage, "%s: communicator being destroyed", fn);
    if (c->failed)
        return pccl_err(c, c->failed, "%s: collective %d refused, the communicator failed: %s", fn, id, c->fail_why);
    if (!coll_id_ok(c, id))
        return pccl_err(c, pcclInvalidArgument, "%s: collId %d not registered (have %d)", fn, id, c->ncolls);
    pccl_hcoll *h = &c->colls[id];
    int type = h->dev.type, root = h->dev.root;
    int needs_in = !(type == pcclCollBroadcast && c->rank != root);
    int needs_out = !(type == pcclCollReduce && c->rank != root);
    pcclResult_t r = pcclSuccess;
    if (c->outstanding >= (uint64_t)c->G.k.depth)
        r = pccl_err(c, pcclInvalidUsage, "%s: %d invocations in flight already (PCCL_QUEUE_DEPTH)", fn,
                     c->G.k.depth);
    else if (needs_in && needs_out && sendbuff == recvbuff) /* in place: one look at the buffer (a driver call) */
        return check_buf(c, h, recvbuff, h->in_bytes > h->out_bytes ? h->in_bytes : h->out_bytes,
                         "sendbuff (= recvbuff)");
    else if (needs_in)
        r = check_buf(c, h, sendbuff, h->in_bytes, "sendbuff");
    if (!r && needs_out) r = check_buf(c, h, recvbuff, h->out_bytes, "recvbuff");
    return r;
}

/* Where a placed collective (PCCL_SPREAD=2) runs its n-th invocation
 * (scheduler.h, pccl_hand_on), named here so that every rank names the
 * same blocks: registration and invocations are collective, so the id and
 * n are alike on every rank, and whether others are in flight nearly so
 * (it differs only where a completion races the next submission; either
 * way the block is a hint: a lane's connectors are the same whichever
 * block runs it), where a block's own state (free or not) and an
 * invocation's place in the SQ (the order of completions issues the next
 * ones) are not.  Invocations of one collective that sat on different
 * blocks on different ranks each queued behind other heads, waiting out
 * their sticky thresholds: two ranks' 32-512 KiB all-reduces on one H100
 * took 14-177 us, 15-29 on blocks 0 .. used-1 (results/hostpath/place.md);
 * 4 H100s' 8 B-8 KiB all-reduces, 4 in flight, 18-25 us each, 10.5-13.6
 * with every one on block id % blocks (results/x4-h100/, call 6).
 * - On one block: block 0 (group 0) where no other invocation of this
 *   rank is in flight (each waited for before the next: a hand-on costs
 *   the round trip 2-3 us), else block 1 + id % min(blocks - 1, 31) (the
 *   record has 5 bits), so that invocations in flight run side by side.
 * - On several blocks: of the G = blocks / used groups of `used` blocks
 *   (at most 32), group 1 + id % (G - 1), where G >= 3: group 0 is block
 *   0's, which reads the SQ and hands the others theirs.
 * By the id alone, not the id and n: two invocations of one collective
 * are never in flight together on one rank, so collectives in flight
 * share a block only where their ids do modulo the blocks.  With 1 + (id
 * + n) % (G - 1), a collective's next invocation landed where the next
 * collective's current one ran (id + n + 1 = id + 1 + n): back to back,
 * chains of consecutive ids met on every group, queued there in the order
 * of each rank's completions, which the ranks need not share, and each
 * head waited out its sticky threshold for the other: on 2 H200s whole
 * runs of 20,000 all-reduces at 45.6 us where the others took 4.8 (32
 * KiB), 72.5 against 5.8 (512 KiB) (results/slowmode-x2/).
 * - Where G = 2 (a collective on half the blocks), groups 0 and 1 in turn
 *   from id and n: with group 1 alone, invocations in flight queued on
 *   half the GPU while the other half idled (4 H100s back to back, 8 MiB
 *   all-reduce 70-75 us, 47 with both; results/x4-h100/). */
static uint32_t place_group(pcclComm_t c, int id, uint64_t n)
{
    const pccl_coll *d = &c->colls[id].dev;
    if (!d->placed) return 0;
    uint32_t blocks = (uint32_t)c->G.k.blocks;
    if (d->used < 2) {
        if (c->outstanding < 2) return 0; /* counted already: this one alone */
        uint32_t k = blocks - 1 < 31 ? blocks - 1 : 31;
        return 1 + (uint32_t)id % k;
    }
    uint32_t groups = blocks / d->used; /* 2 at least: register.c */
    if (groups > 32) groups = 32;
    if (groups == 2) return (uint32_t)(((uint64_t)id + n) % 2);
    return 1 + (uint32_t)id % (groups - 1);
}

/* The record's words, each tagged with the entry's lap, the first last
 * (release): a daemon that sees it sees the input, and a word with the
 * right tag is this invocation's (core.h, "SQ").  Block 0 hands it
 * on to the other blocks that take part. */
pcclResult_t pccl_submit_locked(pcclComm_t c, int id, const void *sendbuff, void *recvbuff, uint32_t gated)
{
    c->colls[id].inflight = 1;
    uint64_t t = c->sq_tail++;
    pccl_trace_submit_locked(c, &c->colls[id]);
    uint64_t depth = (uint64_t)c->G.k.depth;
    uint32_t group = place_group(c, id, c->colls[id].submits++);
    pccl_sq_write(&c->G.sq[t % depth], t, depth, (uint32_t)id | group << PCCL_SQ_GROUP_SHIFT | gated, sendbuff,
                  recvbuff);
    c->submitted++;
    pthread_cond_signal(&c->poll_cv); /* a sleeping poller watches from now on */
    /* Seen running by the poller a moment ago: no stream query (driver time
     * on every call).  Should it have quit since, the poller relaunches it
     * within POLL_QUERY_NS, as it does any daemon that quits with a request
     * newer than its launch. */
    int fresh = c->was_running && pccl_now_ns() - c->running_seen_ns < 2 * POLL_QUERY_NS;
    /* A launch queued ahead, or being queued by the poller (its call made
     * without the lock): the daemon's stream holds work for certain, and a
     * query would wait for the launch call's driver lock. */
    if (c->ahead || c->launching) return pcclSuccess;
    /* A launch its slice ended with nothing to run (this invocation the
     * only one outstanding: every one before it completed) owes no gap: a
     * call that waited for the GPU had it from the end to now.  Relaunched
     * here, as after an idle quit.  Left to the poller, the relaunch came
     * after its wake, PCCL_SLICE_GAP_US and the call: in pccl-perf's
     * sweeps on 2 H200s, where 38 of 38 relaunches were such (slices that
     * ended between two rows), 80-130 us from the cut to the relaunch's
     * start, the next row's first invocation waiting for those three
     * (results/offset-h200/, calls 1-2). */
    int sliced = pccl_sliced(c); /* a pinned word: read once */
    if (sliced && c->outstanding <= (uint64_t)c->ndirect + 1 && pccl_ended(c)) {
        c->slice_acc.idle_end = 1; /* not a relaunch the slice cost (slice.c) */
        pcclResult_t r = pccl_launch_locked(c);
        c->slice_acc.idle_end = 0;
        return r;
    }
    /* A daemon that its slice ended is relaunched by the poller, after
     * PCCL_SLICE_GAP_US (poller.c); once the poller saw the end and the
     * gap is over, by this call.  Left to the poller then, the relaunch
     * waited for it to wake from its sleep (nothing was outstanding), and
     * on 4 H200s its timed sleeps ran 1-1.5 ms long: a rank seen idle since
     * its slice ended 12.9 ms before still waited for it
     * (results/x4-h200/, calls 4-8). */
    int gap = c->slice_gap_ns && sliced &&
              (c->was_running || pccl_now_ns() - (uint64_t)c->quit_seen_ns < (uint64_t)c->slice_gap_ns);
    if (fresh || gap) return pcclSuccess;
    c->slice_acc.sum.runQueries++;
    return !c->be->running(c) ? pccl_launch_locked(c) : pcclSuccess;
}

pcclResult_t pcclRun(pcclComm_t c, int id, const void *sendbuff, void *recvbuff, pcclCallback_t cb, void *arg)
{
    uint64_t t0 = pccl_now_ns(); /* PCCL_TRACE_LAT's "run" counts the handle's check too (20 ns) */
    CHECK_COMM(c, "pcclRun");
    pthread_mutex_lock(&c->mu);
    pcclResult_t r = pccl_run_check_locked(c, "pcclRun", id, sendbuff, recvbuff);
    if (!r && (c->colls[id].inflight || c->colls[id].npend))
        r = pccl_err(c, pcclInvalidUsage, "pcclRun: collId %d is still in flight (wait for it first)", id);
    if (r) { pthread_mutex_unlock(&c->mu); return r; }
    /* The callback before the SQ entry: a completion finds it. */
    pccl_hcoll *h = &c->colls[id];
    h->cb = cb;
    h->cb_arg = arg;
    int direct = pccl_direct_kind(c, h, sendbuff, recvbuff); /* one rank's: without the daemon (direct.c) */
    if (direct) {
        r = pccl_run_direct_locked(c, id, direct, sendbuff, recvbuff);
        pthread_mutex_unlock(&c->mu);
        return r;
    }
    h->issued++;
    h->tr_call = t0;
    pccl_count_outstanding_locked(c);
    r = pccl_submit_locked(c, id, sendbuff, recvbuff, 0);
    if (c->trace) h->tr_ret = pccl_now_ns();
    pccl_poller_note_run(c, t0);
    pthread_mutex_unlock(&c->mu);
    return r;
}

pcclResult_t pcclTest(pcclComm_t c, int id, int *done)
{
    CHECK_COMM(c, "pcclTest");
    if (!done) return pccl_err(c, pcclInvalidArgument, "pcclTest: done is NULL");
    pthread_mutex_lock(&c->mu);
    pcclResult_t r = pcclSuccess;
    if (!coll_id_ok(c, id)) r = pccl_err(c, pcclInvalidArgument, "pcclTest: collId %d not registered", id);
    else {
        *done = !c->colls[id].inflight && !c->colls[id].in_callback && !c->colls[id].npend;
        if (*done) r = c->colls[id].status;
    }
    pthread_mutex_unlock(&c->mu);
    return r;
}

pcclResult_t pcclWait(pcclComm_t c, int id)
{
    CHECK_COMM(c, "pcclWait");
    NOT_ON_POLLER(c, "pcclWait");
    pthread_mutex_lock(&c->mu);
    if (!coll_id_ok(c, id)) {
        pthread_mutex_unlock(&c->mu);
        return pccl_err(c, pcclInvalidArgument, "pcclWait: collId %d not registered", id);
    }
    /* Spins first, draining the CQ itself: a sleeping thread's wake-up
     * costs several us, and the poller's hop as much again. */
    uint64_t until = c->wait_spin_ns ? pccl_now_ns() + c->wait_spin_ns : 0;
    while (c->colls[id].inflight || c->colls[id].in_callback || c->colls[id].npend)
        if (!until || !pccl_wait_spin_locked(c, until)) pccl_sleep_locked(c, id);
    pccl_trace_consumed_locked(c, id, 1);
    pcclResult_t r = c->colls[id].status;
    pthread_mutex_unlock(&c->mu);
    return r;
}

void pccl_wait_all_locked(pcclComm_t c)
{
    while (c->outstanding || c->callbacks) pccl_sleep_locked(c, -1);
}

pcclResult_t pcclWaitAll(pcclComm_t c)
{
    CHECK_COMM(c, "pcclWaitAll");
    NOT_ON_POLLER(c, "pcclWaitAll");
    pthread_mutex_lock(&c->mu);
    pccl_wait_all_locked(c);
    pcclResult_t r = c->aborted || c->failed ? pcclRemoteError : pcclSuccess;
    pthread_mutex_unlock(&c->mu);
    return r;
}

/* The GPU's work done, and what it completed accounted for: the daemon may
 * end a launch held by a stream once its completion flags are written,
 * before the poller drained the CQ (stream.c), so the completions are taken
 * here too (those with a callback stay the poller's, which runs them). */
pcclResult_t pcclDeviceSynchronize(pcclComm_t c)
{
    CHECK_COMM(c, "pcclDeviceSynchronize");
    pccl_watch_enter(); /* on the host backend, the call the watch sees (CUPTI sees the GPU's) */
    pcclResult_t r = c->be->devsync(c);
    pccl_watch_exit();
    pthread_mutex_lock(&c->mu);
    pccl_drain_own_locked(c);
    pthread_mutex_unlock(&c->mu);
    return r;
}

pcclResult_t pcclMemAlloc(pcclComm_t c, void **p, size_t bytes)
{
    CHECK_COMM(c, "pcclMemAlloc");
    if (!p) return pccl_err(c, pcclInvalidArgument, "pcclMemAlloc: ptr is NULL");
    if (!bytes) return pccl_err(c, pcclInvalidArgument, "pcclMemAlloc: size is 0");
    return c->be->mem_alloc(c, p, bytes);
}

pcclResult_t pcclMemFree(pcclComm_t c, void *p)
{
    CHECK_COMM(c, "pcclMemFree");
    return p ? c->be->mem_free(c, p) : pcclSuccess;
}

