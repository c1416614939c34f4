/* One rank's invocations that the daemon does not run (issue 16).  With no
 * peer, a collective moves data only within the rank: in place nothing
 * (each step would copy the buffer onto itself, which pccl_fill skips),
 * out of place a copy of the input.  NCCL launches nothing for the first
 * and makes the second with cudaMemcpyAsync (ncclLaunchOneRank); so does
 * pcclRun here:
 * - in place: complete at once (nccl-tests 0.2-0.4 us back to back; through
 *   the daemon 3.3 us at 8 B, 18 at 512 MiB, on one H200; 0.6-1.1 us now:
 *   results/noop-h200/);
 * - out of place from PCCL_ONE_RANK_COPY_BYTES (16 MiB): a copy on pccl's
 *   copy stream.  The daemon copies on its own blocks (64 at most, 1.85
 *   TB/s at 512 MiB on one H200, results/one-rank-h200/), a stream's copy
 *   over the whole GPU at 2.1, even beside a busy daemon: back to back 512
 *   MiB 255.5-255.6 us as a copy, 291.4-291.8 through the daemon,
 *   nccl-tests 255.5-255.7; round trip 274-275 against 326-336, nccl-tests
 *   264-265 (results/onecopy-h200/, call 8).  Below 16 MiB the daemon is
 *   faster back to back: a copy costs the host ~9-14 us however small (its
 *   driver calls and its event's queries).
 * Not avg: x / 1 may differ from x in its bits (a signalling NaN comes out
 * quiet), and the daemon divides.  Only pcclRun, not a stream: a stream
 * invocation's ticket is the daemon's own count (stream.c), and its gate
 * orders it after the stream's work.  Neither issued nor completions counts
 * these: they are the daemon's counts, which tickets and gates name.
 *
 * Completion: an invocation in place without a callback completes in
 * pcclRun.  Every other one joins a queue, in pcclRun's order, with the
 * number of the copy it waits for (an invocation in place: the latest copy
 * issued, so the queue stays in order); the poller, or a waiter spinning,
 * completes the queue's head once the backend counts that copy done (the
 * copies run on one stream, in order; be->copied).  Once a copy failed
 * (the CUDA context's error is sticky), every copy's invocation completes
 * with pcclUnhandledCudaError.  Callbacks run on the poller: pcclRun may be
 * called from a callback, and run in pcclRun a chain of them would nest
 * without end. */
#include <stdlib.h>

#include "internal.h"

struct pccl_direct {
    int id;
    uint64_t copy; /* may complete once be->copied counts this many copies done (0: at once) */
};

enum { DIRECT_NONE, DIRECT_NOOP, DIRECT_COPY };

static int reduces_exactly(const pccl_hcoll *h)
{
    int t = h->dev.type;
    return h->dev.op != pcclAvg || t == pcclCollAllGather || t == pcclCollBroadcast;
}

/* Which way invocation (sendbuff, recvbuff) of h runs: DIRECT_NONE (the
 * daemon), DIRECT_NOOP or DIRECT_COPY.  On one rank every collective's
 * output is its input: in_bytes = out_bytes. */
int pccl_direct_kind(pcclComm_t c, const pccl_hcoll *h, const void *sendbuff, const void *recvbuff)
{
    if (c->nranks != 1 || !reduces_exactly(h)) return DIRECT_NONE;
    if (sendbuff == recvbuff) return DIRECT_NOOP;
    if (c->one_rank_copy_bytes && h->out_bytes >= c->one_rank_copy_bytes && c->be->copy) return DIRECT_COPY;
    return DIRECT_NONE;
}

/* Copies done; *failed: one failed (be->copied keeps it).  Asked only for
 * an entry that waits for a copy, so one was issued. */
static uint64_t copied(pcclComm_t c, int *failed)
{
    int f = 0;
    uint64_t n = c->be->copied(c, &f);
    if (failed) *failed = f;
    return n;
}

/* Issues it (mu held); the run checks passed, the callback is set. */
pcclResult_t pccl_run_direct_locked(pcclComm_t c, int id, int kind, const void *sendbuff, void *recvbuff)
{
    pccl_hcoll *h = &c->colls[id];
    int depth = c->G.k.depth;
    if (!c->directq && !(c->directq = malloc(sizeof *c->directq * (size_t)depth)))
        return pccl_err(c, pcclSystemError, "pcclRun: out of host memory");
    if (kind == DIRECT_COPY) {
        pcclResult_t r = c->be->copy(c, recvbuff, sendbuff, h->out_bytes, c->copies + 1);
        if (r) return r;
        __atomic_store_n(&c->copies, c->copies + 1, __ATOMIC_RELEASE);
    }
    h->inflight = h->direct = 1;
    c->direct_runs++;
    pccl_count_outstanding_locked(c);
    if (kind == DIRECT_NOOP && !h->cb) {
        pccl_finish(c, id, pcclSuccess);
        return pcclSuccess;
    }
    /* at most depth outstanding (pccl_run_check_locked): the ring never fills */
    struct pccl_direct *e = &c->directq[(c->direct_head + c->ndirect) % depth];
    __atomic_store_n(&e->id, id, __ATOMIC_RELAXED);
    __atomic_store_n(&e->copy, c->copies, __ATOMIC_RELAXED);
    __atomic_store_n(&c->ndirect, c->ndirect + 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&c->poll_cv);
    return pcclSuccess;
}

/* Whether the queue's head may complete: read without mu by the spins (a
 * hint; the drain looks again under mu). */
int pccl_direct_ready(pcclComm_t c)
{
    if (!__atomic_load_n(&c->ndirect, __ATOMIC_ACQUIRE)) return 0;
    int head = __atomic_load_n(&c->direct_head, __ATOMIC_RELAXED);
    uint64_t want = __atomic_load_n(&c->directq[head].copy, __ATOMIC_RELAXED);
    return !want || want <= copied(c, NULL);
}

/* Completes the queue's head while it may (mu held), in pcclRun's order;
 * one finished by an abort meanwhile is skipped.  own: a waiter's drain,
 * which stops at an invocation with a callback (the poller runs those).
 * Returns how many were taken. */
int pccl_drain_direct_locked(pcclComm_t c, int own)
{
    int n = 0, failed = 0;
    uint64_t done = 0;
    while (c->ndirect) {
        struct pccl_direct *e = &c->directq[c->direct_head];
        int id = e->id;
        if (e->copy > done && (done = copied(c, &failed)) < e->copy && !failed) return n;
        if (own && c->colls[id].cb && c->colls[id].direct) return n;
        __atomic_store_n(&c->direct_head, (c->direct_head + 1) % c->G.k.depth, __ATOMIC_RELAXED);
        __atomic_store_n(&c->ndirect, c->ndirect - 1, __ATOMIC_RELAXED);
        n++;
        pcclResult_t st = pcclSuccess;
        if (failed && e->copy)
            st = pccl_err_comm(c, pcclUnhandledCudaError, "rank %d: the copy of collective %d (one rank, out of "
                               "place) failed on the GPU", c->rank, id);
        if (c->colls[id].inflight && c->colls[id].direct) pccl_finish(c, id, st); /* mu dropped there */
    }
    return n;
}
