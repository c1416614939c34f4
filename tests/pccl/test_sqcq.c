/* The SQ/CQ records of the scheduling core (core.h "SQ", scheduler.h),
 * unit by unit on the host (the GPU runs the same functions): block 0's
 * batched look at the SQ takes exactly the records that are there, in
 * order, and no record a word of which is still old; the completions a
 * block gathered go out on consecutive tickets, in order, each with its
 * completion flag; a step's geometry (the chunk, the loops, the slot),
 * computed without dividing, is the plain formula's.  End to end, every
 * host suite runs them. */
#include <stdlib.h>
#include <string.h>

#include "../../lib/host/host.h"
#include "harness.h"

#define SQ_DEPTH 6
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static char buf_a[64], buf_b[64], buf_c[64], buf_d[64];
static char *const bufs[4] = {buf_a, buf_b, buf_c, buf_d};

/* Entries first .. first+n-1 written as the host writes them: entry t names
 * collective 10 + t - first (plus `id_hi`), its buffers from bufs. */
static void sq_fill(pccl_sqe *sq, uint64_t first, int n, uint32_t id_hi)
{
    for (int i = 0; i < n; i++) {
        uint64_t t = first + (uint64_t)i;
        pccl_sq_write(&sq[t % SQ_DEPTH], t, SQ_DEPTH, (uint32_t)(10 + i) | id_hi, bufs[i % 4], bufs[(i + 1) % 4]);
    }
}

/* out[0..n) as sq_fill wrote them. */
static void sq_expect(uint64_t (*out)[3], int n, uint32_t id_hi)
{
    for (int i = 0; i < n; i++) {
        PT_CHECK(out[i][0] == ((uint64_t)(10 + i) | id_hi), "record %d: id word %llx", i,
                 (unsigned long long)out[i][0]);
        PT_CHECK(out[i][1] == (uint64_t)(uintptr_t)bufs[i % 4], "record %d sendbuf", i);
        PT_CHECK(out[i][2] == (uint64_t)(uintptr_t)bufs[(i + 1) % 4], "record %d recvbuf", i);
    }
}

static void test_sq_batch(void)
{
    static pccl_sqe sq[SQ_DEPTH];
    uint64_t out[PCCL_SQ_BATCH][3];
    memset(sq, 0, sizeof sq);
    /* Never written: nothing there (lap 0's tag is not 0). */
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 0, PCCL_SQ_BATCH, out) == 0, "empty SQ");
    /* Entries 0..4 taken; 5, 6, 7 queued, wrapping past the ring's end
     * (slots 5, 0, 1: lap 1 in the last two); slot 2 still holds entry 2. */
    sq_fill(sq, 0, 5, 0);
    sq_fill(sq, 5, 3, 0);
    int three = MIN(3, PCCL_SQ_BATCH);
    memset(out, 0, sizeof out);
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, PCCL_SQ_BATCH, out) == three, "three queued, %d taken", three);
    sq_expect(out, three, 0);
    /* Only as many as the task queue has room for. */
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, 2, out) == MIN(2, PCCL_SQ_BATCH), "room for two");
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, 1, out) == 1, "room for one");
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, 0, out) == 0, "no room");
    /* A record with one word new and the other still the slot's previous
     * occupant's (the host's stores seen out of order) is not there yet, nor
     * is any after it. */
    uint64_t keep[2] = {sq[0].w[0], sq[0].w[1]};
    sq[0].w[1] = pccl_sq_tag(0, SQ_DEPTH) | (uint64_t)(uintptr_t)buf_d; /* entry 6's slot, entry 0's word */
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, PCCL_SQ_BATCH, out) == 1, "a stale recvbuf word stops the batch");
    sq[0].w[1] = keep[1];
    sq[0].w[0] = pccl_sq_tag(0, SQ_DEPTH) | (uint64_t)(uintptr_t)buf_d;
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, PCCL_SQ_BATCH, out) == 1, "a stale sendbuf word too");
    sq[0].w[0] = keep[0];
    sq[5].w[1] = 0; /* entry 5's word never written */
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, PCCL_SQ_BATCH, out) == 0, "a stale head: none");
    /* Across the tags' wrap (lap 7 has tag 0, lap 8 tag 1), with ids past
     * the first word's 12 bits, a group (core.h, PCCL_SQ_GROUP), and gated. */
    uint64_t firsts[] = {7 * SQ_DEPTH - 2, 8 * SQ_DEPTH - 1, 1000003};
    uint32_t hi[] = {0x5000 | 3u << PCCL_SQ_GROUP_SHIFT, 0x80000000u | 0xff000 | 31u << PCCL_SQ_GROUP_SHIFT,
                     0x80000000u};
    for (size_t f = 0; f < sizeof firsts / sizeof *firsts; f++) {
        memset(sq, 0, sizeof sq);
        sq_fill(sq, firsts[f] - SQ_DEPTH, SQ_DEPTH, 0); /* the slots' previous occupants */
        sq_fill(sq, firsts[f], 4, hi[f]);
        memset(out, 0, sizeof out);
        int four = MIN(4, PCCL_SQ_BATCH);
        PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, firsts[f], PCCL_SQ_BATCH, out) == four, "entry %llu: %d",
                 (unsigned long long)firsts[f], four);
        sq_expect(out, four, hi[f]);
        PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, firsts[f] + 4, PCCL_SQ_BATCH, out) == 0, "entry %llu: then none",
                 (unsigned long long)firsts[f]);
    }
    /* A pointer above 48 bits (an unused one is not checked) leaves the tag. */
    memset(sq, 0, sizeof sq);
    pccl_sq_write(&sq[0], 0, SQ_DEPTH, 3, (const void *)(uintptr_t)~(uintptr_t)0, buf_a);
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 0, PCCL_SQ_BATCH, out) == 1, "an unused wild pointer");
    PT_CHECK(out[0][0] == 3 && out[0][1] == PCCL_SQ_PTR_MASK && out[0][2] == (uint64_t)(uintptr_t)buf_a,
             "its bits masked");
}

/* A buffer pcclRun cannot put in the SQ is refused by name. */
static void test_sq_wild_pointer(void)
{
    pcclComm_t c[1];
    pcclConfig_t cfg = pt_config(1, 256);
    if (pt_init(c, 1, &cfg)) return;
    int id;
    PT_OK(pcclRegisterAllReduce(c[0], 16, pcclInt32, pcclSum, 0, &id));
    int32_t buf[16];
    PT_ERR(pcclInvalidArgument, pcclRun(c[0], id, (void *)((uintptr_t)1 << 60), buf, NULL, NULL));
    PT_CHECK(strstr(pcclGetLastError(c[0]), "48-bit") != NULL, "message: %s", pcclGetLastError(c[0]));
    PT_OK(pcclCommDestroy(c[0]));
}

static void test_cq_flush(void)
{
    enum { DEPTH = 4, COLLS = 8 };
    uint64_t cq[DEPTH], fin[COLLS], ticket = DEPTH - 1; /* the next entries wrap past the ring's end */
    memset(cq, 0, sizeof cq);
    memset(fin, 0, sizeof fin);
    pccl_gpu G;
    memset(&G, 0, sizeof G);
    G.k.depth = DEPTH;
    G.cq = cq;
    G.fin = fin;
    G.cq_ticket = &ticket;
    pccl_blk S;
    memset(&S, 0, sizeof S);
    pccl_flush_done(&S, &G);
    PT_CHECK(ticket == DEPTH - 1 && !cq[0] && !cq[DEPTH - 1], "nothing gathered: nothing posted");
    int32_t ids[3] = {5, 2, 7};
    uint64_t invs[3] = {9, 1, 4};
    for (int i = 0; i < 3; i++) {
        S.done_id[S.ndone] = ids[i];
        S.done_inv[S.ndone++] = invs[i];
    }
    pccl_flush_done(&S, &G);
    PT_CHECK(S.ndone == 0 && ticket == DEPTH + 2, "three tickets taken, ndone %d ticket %llu", S.ndone,
             (unsigned long long)ticket);
    for (int i = 0; i < 3; i++) {
        uint64_t t = DEPTH - 1 + (uint64_t)i;
        PT_CHECK(cq[t % DEPTH] == ((t + 1) << 32 | (uint64_t)ids[i]), "ticket %llu: %llx",
                 (unsigned long long)t, (unsigned long long)cq[t % DEPTH]);
        PT_CHECK(fin[ids[i]] == invs[i], "collective %d: invocation %llu complete", ids[i],
                 (unsigned long long)fin[ids[i]]);
    }
}

/* A communicator of n ranks with PCCL_SPREAD set to `spread` (environment
 * only: set for its init), and the small collectives the spread tests run
 * (16 floats or fewer: one loop, one group, one block). */
static int init_spread(pcclComm_t *c, int n, const pcclConfig_t *cfg, const char *spread)
{
    setenv("PCCL_SPREAD", spread, 1);
    int bad = pt_init(c, n, cfg);
    unsetenv("PCCL_SPREAD");
    return bad;
}

static void small_cases(pt_case *cases, int n, int ranks)
{
    memset(cases, 0, sizeof *cases * (size_t)n);
    for (int i = 0; i < n; i++)
        cases[i].c = (ck_coll){(pcclCollType_t)(i % 5), pcclFloat, pcclSum, i % ranks, 2 + (size_t)i, ranks};
}

/* Small collectives (one group: one block) of different ids run on
 * different blocks, block id % blocks (core.h, pccl_first_block), block 0
 * handing each on: exact results on 3 ranks in opposite orders (each
 * block's ring must still meet the same block on every rank, and preempt),
 * and every block completes its share, no other. */
static void test_spread(void)
{
    enum { RANKS = 3, BLOCKS = 4, CASES = 8 };
    pcclComm_t c[RANKS];
    pcclConfig_t cfg = pt_config(BLOCKS, 256);
    pt_begin("sqcq: small collectives spread over the blocks", 120);
    if (init_spread(c, RANKS, &cfg, "1")) { pt_end(); return; }
    pt_case cases[CASES];
    small_cases(cases, CASES, RANKS);
    /* Opposite orders on queues of two: each block's head waits its sticky
     * threshold for a peer on the other collective (on a loaded host, polls
     * of sched_yield: 2-6 s for 3 rounds with a second copy running, 1-2 s
     * unspread), so 2 rounds. */
    enum { ROUNDS = 2 };
    PT_CHECK(pt_run_cases(c, RANKS, cases, CASES, 7, ROUNDS, 1) == 0, "wrong results");
    for (int r = 0; r < RANKS; r++) PT_OK(pcclDeviceSynchronize(c[r])); /* the blocks' counts published */
    for (int r = 0; r < RANKS; r++)
        for (int b = 0; b < BLOCKS; b++) {
            pcclStats_t st;
            PT_OK(pcclCommGetBlockStats(c[r], b, &st));
            /* ids b, b + BLOCKS: ROUNDS invocations each */
            PT_CHECK(st.blockCompletions == (uint64_t)ROUNDS * (CASES / BLOCKS),
                     "rank %d block %d completed %llu invocations, not %d", r, b,
                     (unsigned long long)st.blockCompletions, ROUNDS * (CASES / BLOCKS));
        }
    pt_destroy(c, RANKS);
    pt_end();
}

/* PCCL_SPREAD=2: the host places each invocation of a collective on one
 * block (run.c, place_group; scheduler.h, pccl_hand_on).  A burst in
 * opposite orders on 3 ranks, where others are in flight: exact, and on
 * every rank blocks other than 0 run some of it (block 1 + id % 3).
 * Then one rank, each invocation waited for before the next: none other in
 * flight, so block 0 runs every one, on a loaded host too (the host knows
 * it; block 0's own look at the SQ, once the rule, could come only after
 * the next record). */
static void test_place(void)
{
    enum { RANKS = 3, BLOCKS = 4, CASES = 8, ROUNDS = 2, ONE = 40, N = 4 };
    pcclComm_t c[RANKS], one;
    pcclConfig_t cfg = pt_config(BLOCKS, 256);
    pt_begin("sqcq: block 0 places small collectives", 120);
    if (init_spread(c, RANKS, &cfg, "2")) { pt_end(); return; }
    if (init_spread(&one, 1, &cfg, "2")) { pt_destroy(c, RANKS); pt_end(); return; }
    pt_case cases[CASES];
    small_cases(cases, CASES, RANKS);
    PT_CHECK(pt_run_cases(c, RANKS, cases, CASES, 11, ROUNDS, 1) == 0, "wrong results");
    for (int r = 0; r < RANKS; r++) PT_OK(pcclDeviceSynchronize(c[r])); /* the blocks' counts published */
    for (int r = 0; r < RANKS; r++) {
        uint64_t all = 0, others = 0;
        for (int b = 0; b < BLOCKS; b++) {
            pcclStats_t st;
            PT_OK(pcclCommGetBlockStats(c[r], b, &st));
            all += st.blockCompletions;
            if (b) others += st.blockCompletions;
        }
        PT_CHECK(all == (uint64_t)ROUNDS * CASES, "rank %d: its blocks completed %llu invocations, not %d", r,
                 (unsigned long long)all, ROUNDS * CASES);
        PT_CHECK(others > 0, "rank %d: block 0 ran all %llu invocations of a burst", r, (unsigned long long)all);
    }
    pt_destroy(c, RANKS);
    int id = -1;
    float in[N], out[N];
    PT_OK(pcclRegisterAllReduce(one, N, pcclFloat, pcclSum, 0, &id));
    for (int i = 0; i < ONE && id >= 0; i++) {
        for (int k = 0; k < N; k++) in[k] = (float)(i * N + k), out[k] = -1;
        PT_OK(pcclRun(one, id, in, out, NULL, NULL));
        PT_OK(pcclWait(one, id));
        PT_CHECK(!memcmp(in, out, sizeof in), "invocation %d: wrong result", i);
    }
    PT_OK(pcclDeviceSynchronize(one));
    pcclStats_t st;
    PT_OK(pcclCommGetBlockStats(one, 0, &st));
    PT_CHECK(st.blockCompletions == ONE, "block 0 ran %llu of %d invocations waited for one at a time",
             (unsigned long long)st.blockCompletions, ONE);
    pt_destroy(&one, 1);
    pt_end();
}

/* PCCL_SPREAD=2 on collectives of two blocks (lanes 0 and 1).  On 6
 * blocks the host places every invocation of collective id on group
 * 1 + id % 2, blocks 2-3 or 4-5 (run.c, place_group); on 4 blocks,
 * where the collective takes half of them, on group (id + n) % 2, blocks
 * 0-1 or 2-3; the same on every rank.  A burst on 3 ranks, odd ranks in the
 * opposite order: exact, every collective on two blocks (the test covers
 * what it says), on 6 blocks blocks 0-1 run none of them and 4-5 some, on 4
 * both halves run some, and each block ran as many on every rank.  Block 0
 * deciding from its own state (free or not: the rule for one block) fails
 * the last check; group 1 alone on 4 blocks fails the one before. */
static void place_groups(int blocks)
{
    enum { RANKS = 3, CASES = 4, ROUNDS = 3, MAXB = 6 };
    pcclComm_t c[RANKS];
    pcclConfig_t cfg = pt_config(blocks, 256);
    pt_begin("sqcq: the host places collectives of several blocks alike on every rank", 120);
    if (init_spread(c, RANKS, &cfg, "2")) { pt_end(); return; }
    pt_case cases[CASES];
    memset(cases, 0, sizeof cases);
    for (int i = 0; i < CASES; i++) /* 32 floats a rank: two loops of 16 (the least), two blocks */
        cases[i].c = (ck_coll){i % 2 ? pcclCollAllGather : pcclCollReduceScatter, pcclFloat, pcclSum, 0, 32, RANKS};
    PT_CHECK(pt_run_cases(c, RANKS, cases, CASES, 13, ROUNDS, 1) == 0, "wrong results");
    for (int k = 0; k < c[0]->ncolls; k++)
        PT_CHECK(c[0]->colls[k].dev.used == 2 && c[0]->colls[k].dev.placed, "collective %d: on %u blocks, placed %d",
                 k, c[0]->colls[k].dev.used, c[0]->colls[k].dev.placed);
    for (int r = 0; r < RANKS; r++) PT_OK(pcclDeviceSynchronize(c[r])); /* the blocks' counts published */
    uint64_t ran[RANKS][MAXB];
    for (int r = 0; r < RANKS; r++)
        for (int b = 0; b < blocks; b++) {
            pcclStats_t st;
            PT_OK(pcclCommGetBlockStats(c[r], b, &st));
            ran[r][b] = st.blockCompletions;
        }
    for (int r = 0; r < RANKS; r++) {
        uint64_t low = ran[r][0] + ran[r][1], high = ran[r][blocks - 2] + ran[r][blocks - 1];
        if (blocks == 6)
            PT_CHECK(low == 0, "rank %d: blocks 0-1 ran %llu lanes", r, (unsigned long long)low);
        else
            PT_CHECK(low > 0, "rank %d: blocks 0-1 ran nothing, on 4 blocks", r);
        PT_CHECK(high > 0, "rank %d: blocks %d-%d ran nothing of a burst of collectives on two blocks", r, blocks - 2,
                 blocks - 1);
        for (int b = 0; b < blocks; b++)
            PT_CHECK(ran[r][b] == ran[0][b], "block %d ran %llu lanes on rank %d, %llu on rank 0", b,
                     (unsigned long long)ran[r][b], r, (unsigned long long)ran[0][b]);
    }
    pt_destroy(c, RANKS);
    pt_end();
}
/* Collectives in flight together share a group only where their ids do
 * modulo the groups: invocation n of collective id runs on group 1 + id %
 * (G - 1) whatever n (run.c, place_group).  With 1 + (id + n) % (G - 1),
 * the next invocation of id landed on the current one of id + 1, back to
 * back chains met on every group, queued in each rank's order of
 * completions, and each head waited out its sticky threshold: 45.6 us an
 * all-reduce against 4.8 on 2 H200s (results/slowmode-x2).  Read from the
 * SQ records the host writes, four rounds of three collectives of two
 * blocks on 8 blocks (G = 4: groups 1-3) on 2 ranks. */
static void test_place_by_id(void)
{
    enum { RANKS = 2, BLOCKS = 8, COLLS = 3, ROUNDS = 4, COUNT = 32 };
    pcclComm_t c[RANKS];
    pcclConfig_t cfg = pt_config(BLOCKS, 256);
    pt_begin("sqcq: a collective's invocations run on its id's group, whatever n", 60);
    if (init_spread(c, RANKS, &cfg, "2")) { pt_end(); return; }
    int id[RANKS][COLLS];
    void *buf[RANKS][COLLS][2];
    for (int r = 0; r < RANKS; r++)
        for (int k = 0; k < COLLS; k++) {
            PT_OK(pcclRegisterAllGather(c[r], COUNT, pcclFloat, 0, &id[r][k]));
            PT_OK(pcclMemAlloc(c[r], &buf[r][k][0], COUNT * sizeof(float)));
            PT_OK(pcclMemAlloc(c[r], &buf[r][k][1], COUNT * RANKS * sizeof(float)));
            memset(buf[r][k][0], 0, COUNT * sizeof(float));
        }
    for (int k = 0; k < COLLS; k++)
        PT_CHECK(c[0]->colls[id[0][k]].dev.used == 2 && c[0]->colls[id[0][k]].dev.placed,
                 "collective %d: on %u blocks, placed %d", k, c[0]->colls[id[0][k]].dev.used,
                 c[0]->colls[id[0][k]].dev.placed);
    for (int n = 0; n < ROUNDS; n++) {
        for (int k = 0; k < COLLS; k++)
            for (int r = 0; r < RANKS; r++) {
                PT_OK(pcclRun(c[r], id[r][k], buf[r][k][0], buf[r][k][1], NULL, NULL));
                pthread_mutex_lock(&c[r]->mu);
                uint64_t t = c[r]->sq_tail - 1, depth = (uint64_t)c[r]->G.k.depth, out[3] = {0};
                uint64_t w[2] = {c[r]->G.sq[t % depth].w[0], c[r]->G.sq[t % depth].w[1]};
                pthread_mutex_unlock(&c[r]->mu);
                PT_CHECK(pccl_sq_decode(w, t, depth, out), "rank %d: record %llu not there", r, (unsigned long long)t);
                uint32_t group = PCCL_SQ_GROUP(out[0]), want = 1 + (uint32_t)id[r][k] % (BLOCKS / 2 - 1);
                PT_CHECK(group == want, "rank %d: collective %d's invocation %d on group %u, expected %u", r,
                         id[r][k], n, group, want);
            }
        for (int k = 0; k < COLLS; k++)
            for (int r = 0; r < RANKS; r++) PT_OK(pcclWait(c[r], id[r][k]));
    }
    for (int r = 0; r < RANKS; r++)
        for (int k = 0; k < COLLS; k++) {
            PT_OK(pcclMemFree(c[r], buf[r][k][0]));
            PT_OK(pcclMemFree(c[r], buf[r][k][1]));
        }
    pt_destroy(c, RANKS);
    pt_end();
}

static void test_place_groups(void) { place_groups(6); }
static void test_place_halves(void) { place_groups(4); }

/* The twins: a step's geometry as core.h computed it before the fields
 * derived at registration (every term divided out). */
static uint64_t geo_span(const pccl_coll *c) { return pccl_split_loop(c) ? c->chunk_elems * c->nranks : c->chunk_elems; }
static void geo_chunk(const pccl_coll *c, uint64_t loop, int chunk, uint64_t *in, uint64_t *out, uint64_t *cnt)
{
    uint64_t n = c->count, span = geo_span(c), o = MIN(loop * span, n), hi = MIN(o + span, n);
    if (pccl_split_loop(c)) {
        uint64_t cs = ((hi - o + c->nranks - 1) / c->nranks + 15) & ~(uint64_t)15, s = MIN(o + cs * chunk, hi);
        *in = *out = s;
        *cnt = MIN(s + cs, hi) - s;
        return;
    }
    *cnt = hi - o;
    *in = *out = o;
    if (c->type == 1) *out += (uint64_t)chunk * c->count;
    if (c->type == 2) *in += (uint64_t)chunk * c->count;
}

static void test_geometry(void)
{
    static const uint64_t counts[] = {0, 1, 15, 16, 17, 100, 1000, 4096, 65537, 20003};
    static const uint64_t chunks[] = {16, 32, 48, 256, 4096};
    uint64_t cases = 0;
    for (int type = 0; type < 5; type++)
        for (int algo = 0; algo < 2; algo++)
            for (int nr = 1; nr <= 9; nr++)
                for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++)
                    for (size_t ki = 0; ki < sizeof chunks / sizeof *chunks; ki++)
                        for (int ilv = 1; ilv <= 3; ilv++) {
                            pccl_coll c;
                            memset(&c, 0, sizeof c);
                            c.type = (uint8_t)type, c.algo = (uint8_t)(algo ? PCCL_ALGO_DIRECT : PCCL_ALGO_RING);
                            c.nranks = (uint8_t)nr, c.count = counts[ci], c.chunk_elems = chunks[ki];
                            c.ilv = (uint32_t)ilv, c.esize = (uint8_t)(1 << (ci % 4));
                            c.proto = (uint8_t)(ki % 2 ? PCCL_PROTO_LL : PCCL_PROTO_SIMPLE);
                            int slots = 1 + (int)((ci + ki) % 9);
                            pccl_coll_derive(&c, slots);
                            uint64_t span = geo_span(&c), loops = (c.count + span - 1) / span;
                            PT_CHECK(c.loops == loops, "count %llu span %llu: %llu loops, expected %llu",
                                     (unsigned long long)c.count, (unsigned long long)span,
                                     (unsigned long long)c.loops, (unsigned long long)loops);
                            PT_CHECK(c.slot == pccl_slot_bytes(&c) && c.stride == pccl_conn_stride(&c, slots),
                                     "derived slot %llu / stride %llu", (unsigned long long)c.slot,
                                     (unsigned long long)c.stride);
                            uint64_t groups = loops ? (loops + c.ilv - 1) / c.ilv : 1, covered = 0;
                            for (uint64_t g = 0; g < groups; g++) {
                                uint64_t want = loops <= g * c.ilv ? 1 : MIN(loops - g * c.ilv, c.ilv);
                                PT_CHECK(pccl_group_loops(&c, g) == want, "group %llu: %u loops, expected %llu",
                                         (unsigned long long)g, pccl_group_loops(&c, g), (unsigned long long)want);
                            }
                            for (uint64_t l = 0; l < (loops ? loops : 1); l++)
                                for (int k = 0; k < nr; k++) {
                                    uint64_t a[3], e[3];
                                    pccl_chunk(&c, l, k, &a[0], &a[1], &a[2]);
                                    geo_chunk(&c, l, k, &e[0], &e[1], &e[2]);
                                    PT_CHECK(!memcmp(a, e, sizeof a),
                                             "type %d algo %d, %d ranks, count %llu, chunk %llu: loop %llu chunk %d "
                                             "is (%llu %llu %llu), expected (%llu %llu %llu)", type, algo, nr,
                                             (unsigned long long)c.count, (unsigned long long)c.chunk_elems,
                                             (unsigned long long)l, k, (unsigned long long)a[0],
                                             (unsigned long long)a[1], (unsigned long long)a[2],
                                             (unsigned long long)e[0], (unsigned long long)e[1],
                                             (unsigned long long)e[2]);
                                    if (pccl_split_loop(&c)) covered += a[2];
                                }
                            if (pccl_split_loop(&c))
                                PT_CHECK(covered == c.count, "all-reduce on %d ranks, count %llu: chunks cover %llu",
                                         nr, (unsigned long long)c.count, (unsigned long long)covered);
                            cases++;
                        }
    PT_CHECK(cases == 5 * 2 * 9 * 10 * 5 * 3, "%llu cases", (unsigned long long)cases);
    static const uint64_t steps[] = {0, 1, 7, 8, 63, 64, 65, 0xffffffffull, 0x100000000ull, (1ull << 40) + 7,
                                     UINT64_MAX - 1, UINT64_MAX};
    for (int slots = 1; slots <= 70; slots++)
        for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
            PT_CHECK(pccl_slot_of(steps[i], slots) == steps[i] % (uint64_t)slots, "step %llu, %d slots: slot %llu",
                     (unsigned long long)steps[i], slots, (unsigned long long)pccl_slot_of(steps[i], slots));
}

/* A block's copy of a collective (pccl_coll_load) holds every field and
 * every step of its program, for rings of 1 to 64 ranks (16 steps or fewer
 * staged, the rest copied), whatever the copy held before. */
static void test_coll_load(void)
{
    for (int type = 0; type < 5; type++)
        for (int nr = 1; nr <= PCCL_MAX_RANKS; nr++) {
            pccl_coll c, d;
            memset(&c, 0, sizeof c);
            c.type = (uint8_t)type, c.nranks = (uint8_t)nr, c.rank = (uint8_t)(nr / 2), c.root = (uint8_t)(nr - 1);
            c.dtype = 7, c.op = 2, c.esize = 4, c.priority = -3, c.used = 17, c.ilv = 2, c.dyn = 1, c.claimer = 1;
            c.count = 1000003, c.chunk_elems = 4096, c.algo = PCCL_ALGO_RING, c.proto = PCCL_PROTO_SIMPLE;
            c.nsteps = (uint8_t)pccl_build_program(&c);
            c.ngroups = 9, c.conn_off = 1u << 20;
            pccl_coll_derive(&c, 4);
            memset(&d, 0xa5, sizeof d);
            pccl_coll_load(&d, &c);
            PT_CHECK(!memcmp(&d, &c, offsetof(pccl_coll, steps)), "type %d, %d ranks: the fields differ", type, nr);
            PT_CHECK(!memcmp(d.steps, c.steps, (size_t)c.nsteps * sizeof c.steps[0]),
                     "type %d, %d ranks: %d steps, the copy's differ", type, nr, c.nsteps);
        }
}

/* Collectives on several blocks invoked back to back: block 0 fetches the
 * next one while it runs its share of one (pccl_look_ahead), and hands it
 * on; every result exact, every completion posted.  2 ranks, 4 blocks,
 * 32 KiB collectives in 1 KiB chunks (every block takes part): broadcasts
 * from rank 1 and reduces to rank 0, so that rank 0's every first step
 * receives from rank 1, which invokes only once rank 0 has invoked all six
 * (pt_run_cases): rank 0's first look ahead in each finds the next record
 * there.  Rank 1's first steps send at once and race its host's next
 * pcclRun: not asserted.  Waits are never preempted and no slice ends a
 * launch: a pass that ends early fetches the next record itself, and
 * block 0, with it queued, has no need to look ahead.  Where rank 0's first
 * step waits 64 polls for rank 1, block 0 fetches the records meanwhile
 * (pccl_fetch_waiting): counted with the looks ahead. */
static void test_look_ahead(void)
{
    pcclComm_t c[2];
    pcclConfig_t cfg = pt_config(4, 1024);
    cfg.spinHead = cfg.spinBase = 1L << 40;
    cfg.sliceUs = 0;
    if (pt_init(c, 2, &cfg)) return;
    pt_case cases[6];
    memset(cases, 0, sizeof cases);
    for (int i = 0; i < 6; i++) {
        int bcast = i % 2 == 0;
        cases[i].c = (ck_coll){bcast ? pcclCollBroadcast : pcclCollReduce, pcclInt32, pcclSum, bcast ? 1 : 0,
                               8192 - 64 * (size_t)i, 2};
    }
    PT_CHECK(pt_run_cases(c, 2, cases, 6, 41, 10, 0) == 0, "wrong results");
    /* the daemon publishes its counters as a launch ends */
    for (int r = 0; r < 2; r++) PT_OK(pcclDeviceSynchronize(c[r]));
    pcclStats_t st;
    PT_OK(pcclCommGetStats(c[0], &st));
    /* fetched by the look ahead, or while block 0's first step waited for
     * rank 1 (pccl_fetch_waiting, after 64 polls: the slower the run, the
     * more of them); 0 with neither */
    uint64_t ahead = st.lookAheads + st.waitFetches;
    PT_CHECK(ahead >= 50 && ahead < st.completed,
             "rank 0: %llu invocations fetched ahead (%llu looking ahead, %llu waiting) of %llu completed (50 at "
             "least: 5 a round)", (unsigned long long)ahead, (unsigned long long)st.lookAheads,
             (unsigned long long)st.waitFetches, (unsigned long long)st.completed);
    pt_destroy(c, 2);
}

int pt_register_sqcq(void)
{
    CU_pSuite s = CU_add_suite("sqcq", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "SQ: one look takes the records there, in order, none with an old word", test_sq_batch) ||
        !CU_add_test(s, "SQ: a buffer above 48 bits refused by name", test_sq_wild_pointer) ||
        !CU_add_test(s, "CQ: gathered completions on consecutive tickets, in order, with their flags",
                     test_cq_flush) ||
        !CU_add_test(s, "small collectives of different ids run on different blocks, exact", test_spread) ||
        !CU_add_test(s, "block 0 runs a small collective alone in flight, bursts go to others, exact", test_place) ||
        !CU_add_test(s, "collectives of two blocks run on the same groups on every rank, exact", test_place_groups) ||
        !CU_add_test(s, "a collective's invocations run on its id's group, whatever n", test_place_by_id) ||
        !CU_add_test(s, "collectives on half the blocks take both halves in turn, exact", test_place_halves) ||
        !CU_add_test(s, "a step's chunk, loops and slot: the plain formulas' (no division)", test_geometry) ||
        !CU_add_test(s, "a block's copy of a collective: every field and step, 1-64 ranks", test_coll_load) ||
        !CU_add_test(s, "collectives on several blocks back to back: the next fetched ahead, exact",
                     test_look_ahead))
        return -1;
    return 0;
}
