/* The SQ/CQ records of the scheduling core (core.h "SQ", scheduler.h),
 * unit by unit on the host (the GPU runs the same functions): block 0's
 * batched look at the SQ takes exactly the records that are there, in
 * order, and no record a word of which is still old; the completions a
 * block gathered go out on consecutive tickets, in order, each with its
 * completion flag.  End to end, every host suite runs them. */
#include <stdlib.h>
#include <string.h>

#include "../../lib/host/host.h"
#include "harness.h"

#define SQ_DEPTH 6

static char buf_a[64], buf_b[64], buf_c[64], buf_d[64];

/* Records seq first .. first+n-1 written as the host writes them. */
static void sq_fill(pccl_sqe *sq, uint64_t first, int n)
{
    char *bufs[4] = {buf_a, buf_b, buf_c, buf_d};
    for (int i = 0; i < n; i++) {
        uint64_t seq = first + (uint64_t)i;
        pccl_sq_write(&sq[(seq - 1) % SQ_DEPTH], seq, (uint32_t)(10 + i), bufs[i % 4], bufs[(i + 1) % 4]);
    }
}

/* The records out[0..n) name collectives 10.. with their buffers. */
static void sq_expect(uint64_t (*out)[3], uint64_t first, int n)
{
    char *bufs[4] = {buf_a, buf_b, buf_c, buf_d};
    for (int i = 0; i < n; i++) {
        PT_CHECK(out[i][0] == (((first + (uint64_t)i) & 0xffffffffull) << 32 | (uint64_t)(10 + i)),
                 "record %d entry %llx", i, (unsigned long long)out[i][0]);
        PT_CHECK(out[i][1] == (uint64_t)(uintptr_t)bufs[i % 4], "record %d sendbuf", i);
        PT_CHECK(out[i][2] == (uint64_t)(uintptr_t)bufs[(i + 1) % 4], "record %d recvbuf", i);
    }
}

static void test_sq_batch(void)
{
    pccl_sqe sq[SQ_DEPTH];
    uint64_t out[PCCL_SQ_BATCH][3];
    memset(sq, 0, sizeof sq);
    /* Empty: nothing there. */
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 0, PCCL_SQ_BATCH, out) == 0, "empty SQ");
    /* Seqs 1..5 consumed; 6, 7, 8 queued, wrapping past the ring's end
     * (slots 5, 0, 1); slot 2 still holds seq 3. */
    sq_fill(sq, 1, 5);
    sq_fill(sq, 6, 3);
    memset(out, 0, sizeof out);
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, PCCL_SQ_BATCH, out) == 3, "three queued, three taken");
    sq_expect(out, 6, 3);
    /* Only as many as the task queue has room for. */
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, 2, out) == 2, "room for two");
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, 0, out) == 0, "no room");
    /* A record whose entry is new but a buffer word still the old one's
     * (the host's stores seen out of order) is not there yet, nor is any
     * after it. */
    pccl_st_rlx(&sq[0].recv, PCCL_SQ_TAG(1) | (uint64_t)(uintptr_t)buf_d); /* seq 7's slot, seq 1's word */
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, PCCL_SQ_BATCH, out) == 1, "a stale word stops the batch");
    pccl_st_rlx(&sq[0].recv, PCCL_SQ_TAG(7) | (uint64_t)(uintptr_t)buf_b);
    pccl_st_rlx(&sq[0].send, PCCL_SQ_TAG(1) | (uint64_t)(uintptr_t)buf_b);
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 5, PCCL_SQ_BATCH, out) == 1, "a stale sendbuf word too");
    /* The seqs past 2^16 (the tags wrap) and 2^32 (the entry's seq wraps). */
    uint64_t firsts[] = {0xffffull - 1, 0x10000ull * SQ_DEPTH + 1, 0xffffffffull - 1};
    for (size_t f = 0; f < sizeof firsts / sizeof *firsts; f++) {
        memset(sq, 0, sizeof sq);
        sq_fill(sq, firsts[f] - SQ_DEPTH, SQ_DEPTH); /* the slots' previous occupants */
        sq_fill(sq, firsts[f], 4);
        memset(out, 0, sizeof out);
        PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, firsts[f] - 1, PCCL_SQ_BATCH, out) == 4, "seq %llx: four",
                 (unsigned long long)firsts[f]);
        sq_expect(out, firsts[f], 4);
        PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, firsts[f] + 3, PCCL_SQ_BATCH, out) == 0, "seq %llx: then none",
                 (unsigned long long)firsts[f]);
    }
    /* A pointer above 48 bits (an unused one is not checked) leaves the tag. */
    memset(sq, 0, sizeof sq);
    pccl_sq_write(&sq[0], 1, 3, (const void *)(uintptr_t)~(uintptr_t)0, buf_a);
    PT_CHECK(pccl_sq_read(sq, SQ_DEPTH, 0, PCCL_SQ_BATCH, out) == 1, "an unused wild pointer");
    PT_CHECK(out[0][1] == PCCL_SQ_PTR_MASK && out[0][2] == (uint64_t)(uintptr_t)buf_a, "its bits masked");
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
    pt_begin("sqcq: small collectives spread over the blocks", 60);
    if (pt_init(c, RANKS, &cfg)) { pt_end(); return; }
    pt_case cases[CASES];
    memset(cases, 0, sizeof cases);
    for (int i = 0; i < CASES; i++) /* 16 floats or fewer: one loop, one group */
        cases[i].c = (ck_coll){(pcclCollType_t)(i % 5), pcclFloat, pcclSum, i % RANKS, 2 + (size_t)i, RANKS};
    enum { ROUNDS = 3 };
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

int pt_register_sqcq(void)
{
    CU_pSuite s = CU_add_suite("sqcq", NULL, NULL);
    if (!s) return -1;
    if (!CU_add_test(s, "SQ: one look takes the records there, in order, none with an old word", test_sq_batch) ||
        !CU_add_test(s, "SQ: a buffer above 48 bits refused by name", test_sq_wild_pointer) ||
        !CU_add_test(s, "CQ: gathered completions on consecutive tickets, in order, with their flags",
                     test_cq_flush) ||
        !CU_add_test(s, "small collectives of different ids run on different blocks, exact", test_spread))
        return -1;
    return 0;
}
