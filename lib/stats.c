/* Counters: the daemon's per-block totals, summed or one block's. */
#include <string.h>

#include "internal.h"

/* Adds blocks [lo, hi)'s published totals to *s (quits: the least of them,
 * since the daemon quits when all its blocks have). */
static void add_blocks(pcclComm_t c, int lo, int hi, pcclStats_t *s)
{
    uint64_t q = UINT64_MAX;
    for (int b = lo; b < hi; b++) {
        const pccl_blk_stats *t = &c->G.stats[b];
        s->preemptions += __atomic_load_n(&t->preemptions, __ATOMIC_ACQUIRE);
        s->primitives += __atomic_load_n(&t->primitives, __ATOMIC_ACQUIRE);
        s->blockCompletions += __atomic_load_n(&t->completions, __ATOMIC_ACQUIRE);
        s->sqNs += __atomic_load_n(&t->ns_sq, __ATOMIC_ACQUIRE);
        s->waitNs += __atomic_load_n(&t->ns_wait, __ATOMIC_ACQUIRE);
        s->execNs += __atomic_load_n(&t->ns_exec, __ATOMIC_ACQUIRE);
        s->commitNs += __atomic_load_n(&t->ns_commit, __ATOMIC_ACQUIRE);
        s->cqNs += __atomic_load_n(&t->ns_cq, __ATOMIC_ACQUIRE);
        s->lifeNs += __atomic_load_n(&t->ns_life, __ATOMIC_ACQUIRE);
        s->crossed += __atomic_load_n(&t->crossed, __ATOMIC_ACQUIRE);
        s->lookAheads += __atomic_load_n(&t->ahead, __ATOMIC_ACQUIRE);
        s->waitFetches += __atomic_load_n(&t->wait_fetches, __ATOMIC_ACQUIRE);
        uint64_t bq = __atomic_load_n(&t->quits, __ATOMIC_ACQUIRE);
        if (bq < q) q = bq;
    }
    s->quits = q == UINT64_MAX ? 0 : q;
    /* block 0's: it reports the slice's end to the poller (scheduler.h, pccl_end) */
    if (hi > lo) s->slices = __atomic_load_n(&c->G.stats[lo].slices, __ATOMIC_ACQUIRE);
}

pcclResult_t pcclCommGetStats(pcclComm_t c, pcclStats_t *s)
{
    CHECK_COMM(c, "pcclCommGetStats");
    if (!s) return pccl_err(c, pcclInvalidArgument, "pcclCommGetStats: stats is NULL");
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&c->mu);
    s->completed = c->completed;
    s->launches = c->launches;
    s->blocks = c->G.k.blocks;
    s->smId = -1;
    add_blocks(c, 0, c->G.k.blocks, s);
    pthread_mutex_unlock(&c->mu);
    return pcclSuccess;
}

pcclResult_t pcclCommGetBlockStats(pcclComm_t c, int block, pcclStats_t *s)
{
    CHECK_COMM(c, "pcclCommGetBlockStats");
    if (!s) return pccl_err(c, pcclInvalidArgument, "pcclCommGetBlockStats: stats is NULL");
    if (block < 0 || block >= c->G.k.blocks)
        return pccl_err(c, pcclInvalidArgument, "pcclCommGetBlockStats: block %d not in [0, %d)", block,
                        c->G.k.blocks);
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&c->mu);
    s->completed = c->completed;
    s->launches = c->launches;
    s->blocks = 1;
    s->smId = (int)__atomic_load_n(&c->G.stats[block].sm, __ATOMIC_ACQUIRE) - 1;
    add_blocks(c, block, block + 1, s);
    pthread_mutex_unlock(&c->mu);
    return pcclSuccess;
}

