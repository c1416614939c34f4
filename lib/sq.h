/* The SQ side of a block (included by scheduler.h, after the block's
 * state): block 0 fetches new invocations from the host's SQ in pinned
 * memory and hands each on to the blocks that run it through their SQs in
 * device memory; every block takes what it is handed into its task queue.
 * Plain C shared by both backends, as the rest of the scheduling core. */
#ifndef PCCL_SQ_H
#define PCCL_SQ_H

PCCL_FN void pccl_enqueue(pccl_blk *S, const pccl_gpu *G, int32_t task)
{
    int i = S->tq_len++;
    if (G->k.order == 1) { /* priority: stable insertion, higher first */
        int32_t p = G->colls[PCCL_TASK_ID(task)].priority;
        while (i > 0 && G->colls[PCCL_TASK_ID(S->tq[i - 1])].priority < p) { S->tq[i] = S->tq[i - 1]; i--; }
    }
    S->tq[i] = task;
}

/* The entries of the hand-ons pccl_fetch_host listed, in their order, each
 * scheduling thread writing those of its blocks, o % lanes == lane (the
 * tails are the thread's alone), after the block's barrier, with a release
 * fence of its own before them (the leader's stores of the buffers are
 * ordered before it by the barrier).  The leader alone: lane 0 of 1.
 * One thread took 5.3 us to hand a collective on to 63 blocks on one H100,
 * each block's tail read from shared memory behind the store before it;
 * the warp, 0.2 us (results/handon-h100/). */
PCCL_FN void pccl_hand_on_lanes(pccl_blk *S, const pccl_gpu *G, int lane, int lanes)
{
    const uint32_t depth = (uint32_t)G->k.depth;
    for (int h = 0; h < S->nhand; h++) {
        uint32_t raw = S->hand[h].raw, first = S->hand[h].first, end = first + S->hand[h].used;
        uint32_t o = first ? first : 1, n = (uint32_t)lanes;
        o += ((uint32_t)lane + n - o % n) % n; /* the first of mine */
        if (o < end) pccl_fence_rel_gpu();
        for (; o < end; o += (uint32_t)lanes) {
            uint64_t e = S->dtail[o]++;
            uint32_t slot = S->dslot[o];
            S->dslot[o] = slot + 1 == depth ? 0 : slot + 1;
            pccl_st_post_gpu(&G->dsq[(size_t)o * depth + slot],
                             ((e + 1) & 0xffffffffull) << 32 | (uint32_t)PCCL_TASK(raw, o - first));
        }
    }
}

/* The leader writes the listed hand-ons alone, and empties the list. */
PCCL_FN void pccl_hand_on_alone(pccl_blk *S, const pccl_gpu *G)
{
    pccl_hand_on_lanes(S, G, 0, 1);
    S->nhand = 0;
}

/* Block 0 hands an invocation on to the other blocks that take part (first
 * .. first+used-1, core.h pccl_first_block, as lanes 0 .. used-1): the
 * buffers here, then an entry in each one's SQ in device memory, naming the
 * lane (pccl_hand_on_lanes).  Placed collectives (PCCL_SPREAD=2) run on
 * the group of `used` blocks the host named in the record: blocks g used
 * .. g used + used-1 (g = 0: block 0's own).  The host names it alike on
 * every rank, so that lane l of a ring sits behind the same collectives on
 * every rank; which group, and why not block 0's own choice: run.c,
 * place_group.
 * Returns whether block 0 takes part itself (as lane 0). */
PCCL_FN int pccl_hand_on(pccl_blk *S, const pccl_gpu *G, uint32_t raw, pccl_args a)
{
    int32_t id = (int32_t)(raw & PCCL_SQ_ID_MASK);
    const pccl_coll *c = &G->colls[id];
    uint32_t used = c->used, first = c->first;
    if (c->placed) first = PCCL_SQ_GROUP(raw) * used;
    if (first == 0 && used < 2) return 1;
    G->dargs[id] = a;
    /* A full list, or a hand-on of a few entries with none before it: the
     * leader writes them alone, in their order (the warp's turn costs a
     * block-wide barrier: 0.2-0.4 us more per small collective back to
     * back). */
    if (S->nhand == PCCL_HAND_MAX) pccl_hand_on_alone(S, G);
    int h = S->nhand++;
    S->hand[h].raw = raw;
    S->hand[h].first = first;
    S->hand[h].used = used;
    if (h == 0 && used <= PCCL_HAND_ALONE) pccl_hand_on_alone(S, G);
    return first == 0;
}

/* A fetched invocation into the block's context and task queue.  Taken
 * into an empty queue, it is the next one picked (FIFO): its context stays
 * in the active slot too, and pccl_pick need not load it back (on the GPU a
 * load from L2, since every acquire empties the SM's L1; with pccl_fetch's
 * look ahead, take to pick went from 1.8 to 0.8 us a block on one H100:
 * results/take-h100/).  Between passes the slot is free: every pick's
 * context was saved at its pass's end. */
PCCL_FN void pccl_take(pccl_blk *S, const pccl_gpu *G, uint32_t raw, pccl_args a, uint64_t now, uint32_t lane)
{
    int32_t id = (int32_t)(raw & PCCL_SQ_ID_MASK);
    pccl_ctx *x = pccl_ctx_of(G, id, lane), v = *x; /* one round trip for all of it */
    v.group = lane; /* lane g starts with group g */
    v.loop = 0;
    v.step = 0;
    v.next = 0;
    v.inv++;
    v.gated = (raw & PCCL_SQ_GATED) != 0;
    v.sendbuf = a.sendbuf;
    v.recvbuf = a.recvbuf;
    v.t_fetch = now;
    *x = v;
    if (S->tq_len == 0) {
        S->act = v;
        S->act_task = PCCL_TASK(id, lane);
    }
    pccl_enqueue(S, G, PCCL_TASK(id, lane));
}

/* Block 0's look at the host's SQ across PCIe: the head record alone (one
 * 16-byte load: an idle look costs one round trip), and where it is there,
 * the next PCCL_SQ_BATCH - 1 records with all their loads issued before the
 * first is waited for.  The records there among the first k (a prefix) go
 * to out (core.h, pccl_sq_decode); returns how many. */
#ifdef __CUDA_ARCH__
/* Its own frame, with nothing else live: the words stay in registers (the
 * kernel has 64 a thread: inlined into the loop, ptxas spilled, and a spill
 * store waits for its load: one round trip each again). */
__device__ __noinline__
#else
static
#endif
int pccl_sq_read(const pccl_sqe *sq, uint64_t depth, uint64_t head, int k, uint64_t (*out)[3])
{
    uint64_t slot = head % depth, w[2];
    if (k < 1) return 0;
    pccl_ld_pair_acq(sq[slot].w, w);
    if (!pccl_sq_decode(w, head, depth, out[0])) return 0;
    int n = 1;
#if PCCL_SQ_BATCH > 1
    uint64_t v[PCCL_SQ_BATCH - 1][2];
#ifdef __CUDA_ARCH__
#pragma unroll /* constant indices: the words stay in registers */
#endif
    for (int i = 0; i < PCCL_SQ_BATCH - 1; i++) { /* straight-line loads, no branch between them */
        slot = slot + 1 == depth ? 0 : slot + 1;
        pccl_ld_pair(sq[slot].w, v[i]);
    }
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int i = 1; i < PCCL_SQ_BATCH; i++)
        if (i < k && n == i && pccl_sq_decode(v[i - 1], head + (uint64_t)i, depth, out[i])) n++;
#endif
    return n;
}

/* Block 0 takes what one look at the host's SQ finds (pccl_sq_read), in
 * order: the head record's load acquired, the others' behind one acquire
 * fence (core.h, pccl_ld_pair).  Returns how many. */
PCCL_FN int pccl_fetch_host(pccl_blk *S, const pccl_gpu *G, uint64_t now)
{
    int k = G->k.depth - S->tq_len;
    int n = pccl_sq_read(G->sq, (uint64_t)G->k.depth, S->sq_head, k < PCCL_SQ_BATCH ? k : PCCL_SQ_BATCH, S->sqw);
    if (!n) return 0;
    if (n > 1) pccl_fence_acq();
    for (int i = 0; i < n; i++) {
        uint32_t raw = (uint32_t)S->sqw[i][0];
        pccl_args a;
        a.sendbuf = (const void *)(uintptr_t)S->sqw[i][1];
        a.recvbuf = (void *)(uintptr_t)S->sqw[i][2];
        if (pccl_hand_on(S, G, raw, a)) pccl_take(S, G, raw, a, now, 0);
    }
    S->sq_head += (uint64_t)n;
    return n;
}

/* A device SQ word (pccl_hand_on_lanes) holds entry `head` of its block:
 * its high half is that entry's number + 1. */
PCCL_FN int pccl_dsq_is(uint64_t e, uint64_t head) { return (e >> 32) == ((head + 1) & 0xffffffffull); }

/* Takes the new entries of the block's SQ (block 0: the host's, in pinned
 * memory; the others: the one block 0 fills, in device memory) into the
 * task queue. */
PCCL_FN int pccl_fetch(pccl_blk *S, const pccl_gpu *G, int b, uint64_t now)
{
    int n = 0;
    if (b == 0) {
        /* In FIFO order one batch a pass: a look that finds the next record
         * not there yet costs a round trip, which the invocations just
         * fetched would wait for, and the records left run after them
         * anyway (the next pass fetches them; a collective on several
         * blocks looks once more while it runs: pccl_look_ahead).  With
         * priorities, all that are there are fetched first, so the highest
         * of them runs first; chaos keeps its choice among all. */
        int got;
        do n += got = pccl_fetch_host(S, G, now);
        while (got == PCCL_SQ_BATCH && (G->k.order != 0 || G->k.chaos));
        return n;
    }
    /* The next slot is looked at (relaxed) while this entry is taken, and
     * read again by an acquire load only where the look found it there: an
     * acquire look after the take cost every hand-on an L2 round trip
     * (0.5-0.7 us on one H100) to find, most often, nothing. */
    uint64_t *sq = G->dsq + (size_t)b * G->k.depth;
    uint64_t e = pccl_ld_acq(&sq[S->sq_head % G->k.depth]);
    while (S->tq_len < G->k.depth && pccl_dsq_is(e, S->sq_head)) {
        uint64_t next = pccl_ld_gpu(&sq[(S->sq_head + 1) % G->k.depth]);
        uint32_t lane = PCCL_TASK_LANE((uint32_t)e), raw = (uint32_t)e & ~PCCL_LANE_MASK;
        pccl_take(S, G, raw, G->dargs[raw & PCCL_SQ_ID_MASK], now, lane); /* one 16-byte read */
        S->sq_head++;
        n++;
        if (!pccl_dsq_is(next, S->sq_head)) break;
        e = pccl_ld_acq(&sq[S->sq_head % G->k.depth]); /* there: what it names is read behind an acquire */
    }
    return n;
}

#endif
