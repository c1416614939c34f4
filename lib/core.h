/* The scheduling core's data: what the host, the daemon and the peers share.
 *
 * Plain C, compiled three ways: by gcc into the API and the host backend, and
 * by nvcc into the GPU backend's host side and into the daemon kernel.  Every
 * structure here has the same layout in all three.  Ordering between agents is
 * explicit: acquire loads and release stores at system scope wherever two
 * agents meet (host <-> GPU through pinned memory, GPU <-> peer GPU through
 * NVLink peer memory; peer GPUs are not within one GPU's scope).
 */
#ifndef PCCL_CORE_H
#define PCCL_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define PCCL_HD __host__ __device__
#else
#define PCCL_HD
#endif
#define PCCL_FN static inline PCCL_HD
/* A rarely taken slow part, kept out of line so that its callers' hot code
 * stays small (on the GPU, registers: cut.h) */
#ifdef __CUDACC__
#define PCCL_COLD_FN static __noinline__ PCCL_HD
#else
#define PCCL_COLD_FN static __attribute__((noinline, unused))
#endif

#define PCCL_MAX_RANKS 64
#define PCCL_MAX_STEPS (2 * PCCL_MAX_RANKS - 1)
#define PCCL_MAX_BLOCKS 64
#define PCCL_FLAG_PAD 128 /* bytes between flags written by different agents */

/* ---- ordering primitives ------------------------------------------------ */

#if defined(__CUDA_ARCH__)
PCCL_FN uint64_t pccl_ld_acq(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
PCCL_FN void pccl_st_rel(uint64_t *p, uint64_t v)
{
    asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
PCCL_FN uint32_t pccl_ld_acq32(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
/* A word whose value is all that is read (a peer's wait: pccl_peer_waits) */
PCCL_FN uint64_t pccl_ld_rlx(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
PCCL_FN void pccl_st_rlx(uint64_t *p, uint64_t v)
{
    asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
PCCL_FN void pccl_st_rel32(uint32_t *p, uint32_t v)
{
    asm volatile("st.release.sys.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
PCCL_FN void pccl_fence(void) { __threadfence_system(); }
/* A release fence: every write (and read) of the block that precedes it, the
 * other threads' included through the barrier before it, is ordered before
 * the relaxed stores that follow.  One acq_rel fence and relaxed counter
 * stores cost one membar where a full fence plus a release store per counter
 * cost three (NCCL's Simple protocol posts its steps the same way). */
PCCL_FN void pccl_fence_rel(void) { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
PCCL_FN void pccl_st_post(uint64_t *p, uint64_t v) { pccl_st_rlx(p, v); }
/* Reads of the host's writes (the SQ, pccl_sq_read): the head record by an
 * acquire load, so that what the host wrote before the record it released
 * is seen after it; the records of a batch behind it by relaxed loads, each
 * issued before the first is waited for, then one acquire fence for them
 * (PTX's fence-acquire pattern).  An SQ record's two words come in one
 * 16-byte load (each word carries its own tag: no atomicity across them is
 * needed).  The acquire load costs what a relaxed one does; the acquire
 * fence after it, which the head record had before, waits for the thread's
 * earlier writes and added 0.65 us to every round trip (one H100,
 * results/hostpath/rtprobe.md). */
PCCL_FN void pccl_ld_pair(const uint64_t *p, uint64_t w[2])
{
    asm volatile("ld.relaxed.sys.global.v2.u64 {%0, %1}, [%2];" : "=l"(w[0]), "=l"(w[1]) : "l"(p) : "memory");
}
PCCL_FN void pccl_ld_pair_acq(const uint64_t *p, uint64_t w[2])
{
    asm volatile("ld.acquire.sys.global.v2.u64 {%0, %1}, [%2];" : "=l"(w[0]), "=l"(w[1]) : "l"(p) : "memory");
}
PCCL_FN void pccl_fence_acq(void) { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
/* Blocks of one GPU meet on its own memory: GPU scope suffices.  A release
 * fence then relaxed stores publish what came before (block 0 handing SQ
 * entries on); the readers' acquire loads may be at system scope. */
PCCL_FN void pccl_fence_rel_gpu(void) { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
PCCL_FN void pccl_st_post_gpu(uint64_t *p, uint64_t v)
{
    asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
PCCL_FN void pccl_red_gpu(uint64_t *p, uint64_t v)
{
    asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
PCCL_FN uint64_t pccl_ld_gpu(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
PCCL_FN uint64_t pccl_add_gpu(uint64_t *p, uint64_t v)
{
    uint64_t old;
    asm volatile("atom.acq_rel.gpu.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
}
/* A count whose value is all that is needed (the CQ ticket): no ordering,
 * where an acq_rel atomic first waits for the thread's writes and then
 * empties the L1 (0.6 us of every small collective's completion on one
 * H100, rtprobe.md). */
PCCL_FN uint64_t pccl_add_rlx_gpu(uint64_t *p, uint64_t v)
{
    uint64_t old;
    asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
}
#else
PCCL_FN uint64_t pccl_ld_acq(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
PCCL_FN void pccl_st_rel(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
PCCL_FN uint32_t pccl_ld_acq32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
PCCL_FN uint64_t pccl_ld_rlx(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
PCCL_FN void pccl_st_rlx(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
PCCL_FN void pccl_st_rel32(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
/* On the host every publication is a release store, which orders what came
 * before it; the GPU needs the fence because other threads of the block wrote
 * the data. */
PCCL_FN void pccl_fence(void) {}
/* On the host the counter store itself releases (ThreadSanitizer does not
 * model standalone fences); the fence is then redundant, and free on x86. */
#if defined(__SANITIZE_THREAD__)
PCCL_FN void pccl_fence_rel(void) {} /* not modelled, and not needed: see above */
#else
PCCL_FN void pccl_fence_rel(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }
#endif
PCCL_FN void pccl_st_post(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
/* On the host each load acquires (free on x86; ThreadSanitizer does not
 * model the fence the GPU uses instead). */
PCCL_FN void pccl_ld_pair(const uint64_t *p, uint64_t w[2])
{
    w[0] = __atomic_load_n(&p[0], __ATOMIC_ACQUIRE);
    w[1] = __atomic_load_n(&p[1], __ATOMIC_ACQUIRE);
}
PCCL_FN void pccl_ld_pair_acq(const uint64_t *p, uint64_t w[2]) { pccl_ld_pair(p, w); }
PCCL_FN void pccl_fence_acq(void) {}
PCCL_FN void pccl_fence_rel_gpu(void) { pccl_fence_rel(); }
PCCL_FN void pccl_st_post_gpu(uint64_t *p, uint64_t v) { pccl_st_post(p, v); }
PCCL_FN uint64_t pccl_add_gpu(uint64_t *p, uint64_t v) { return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); }
PCCL_FN void pccl_red_gpu(uint64_t *p, uint64_t v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
PCCL_FN uint64_t pccl_add_rlx_gpu(uint64_t *p, uint64_t v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
PCCL_FN uint64_t pccl_ld_gpu(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
#endif

/* ---- programs of primitives --------------------------------------------- */

/* A step is one primitive: where its operand comes from (the recv connector,
 * the input buffer, or both, reduced), where the result goes (the send
 * connector, the output buffer, or both), and which chunk it works on.  NCCL's
 * fused primitives are combinations: recvReduceSend = RECV|IN|SEND,
 * recvReduceCopySend = RECV|IN|OUT|SEND, recvCopySend = RECV|OUT|SEND ... */
enum {
    PCCL_RECV = 1,    /* operand from the recv connector's next slot    */
    PCCL_IN = 2,      /* operand from the input buffer (reduced if RECV) */
    PCCL_SEND = 4,    /* result into the send connector's next slot     */
    PCCL_OUT = 8,     /* result into the output buffer                  */
    PCCL_POSTDIV = 16, /* the reduction is complete here: apply avg's /n */
    PCCL_LL = 32,      /* the step's connectors speak LL (lib/proto_ll.h), not Simple */
    PCCL_SWAP = 64,    /* reduce as op(input, received), not op(received, input): ranks
                          that reduce the same operands then agree to the bit (direct) */
    PCCL_KEEP = 128,   /* the received slot stays unfreed (no head posted) for a later
                          PCCL_GATHER step of the same loop */
    PCCL_GATHER = 256, /* the result is every rank's operand reduced in rank order: ours
                          (IN) and the n - 1 slots received by this loop's steps, kept
                          (the direct all-reduce on 3 or more ranks: pccl_job, prog.c) */
    PCCL_MESH = 512    /* RECV and SEND reach every peer, each over a connector of its own
                          (the mesh: ONESHOT, TWOSHOT), not the ring's neighbours.  RECV
                          with IN: every rank's operand reduced in rank order, ours from
                          the input; RECV without: each peer's slot to its own place in
                          the output; SEND: the step's result to every peer, or, with
                          chunk PCCL_CHUNK_PEER, the input's chunk q to peer q */
};
/* A mesh step's chunk that names, for each peer q, q's own chunk */
#define PCCL_CHUNK_PEER 63
/* Protocols: how a step's data and its readiness travel (pccl_coll.proto,
 * PCCL_PROTO: lib/tune.c picks one per collective where it is AUTO).  The
 * same values as pccl.h's, for the code that does not include it. */
#ifndef PCCL_PROTO_AUTO
#define PCCL_PROTO_AUTO 0
#define PCCL_PROTO_SIMPLE 1
#define PCCL_PROTO_LL 2
#endif
#ifndef PCCL_ALGO_AUTO
/* Algorithms (pccl_coll.algo, PCCL_ALGO): ring, or direct (all-reduce: each
 * rank's whole input reaches every other rank, around the ring, and each
 * reduces all n in rank order: n - 1 hops where the ring takes 2 (n - 1)). */
#define PCCL_ALGO_AUTO 0
#define PCCL_ALGO_RING 1
#define PCCL_ALGO_DIRECT 2
#define PCCL_ALGO_ONESHOT 3
#define PCCL_ALGO_TWOSHOT 4
#endif
/* The mesh (ONESHOT, TWOSHOT: lib/prog.c) runs on at most this many ranks:
 * each maps every peer's arena and keeps n - 1 connectors a lane (the
 * ring's for offset k = 1, and one for each offset k = 2 .. n - 1, lane by
 * lane: pccl_mesh_conn). */
#define PCCL_MESH_MAX_RANKS 8
/* The direct all-reduce runs on at most this many ranks (lib/tune.c): each
 * receives n - 1 whole inputs, and keeps them in n - 1 slots of its ring. */
#define PCCL_DIRECT_MAX_RANKS 8
/* A step's code: its flags in the low 10 bits, its chunk (< PCCL_MAX_RANKS)
 * in the high 6. */
#define PCCL_STEP(flags, chunk) ((uint16_t)((flags) | ((chunk) << 10)))
#define PCCL_STEP_FLAGS(s) ((s) & 0x3ff)
#define PCCL_STEP_CHUNK(s) ((s) >> 10)

/* ---- a collective's static context (one per registered collective) ------- */

typedef struct {
    uint8_t type, dtype, op, esize;
    uint8_t nranks, rank, root, nsteps;
    int32_t priority;
    uint32_t used;        /* blocks with loops of it: 0 .. used-1 run it     */
    uint32_t ilv;         /* loops per group, run together step by step (interleave) */
    uint8_t dyn;          /* groups past the first `used` are claimed at run time */
    uint8_t claimer;      /* this rank claims them for every rank (see pccl_claim) */
    uint8_t proto;        /* PCCL_PROTO_SIMPLE or _LL: the layout of its connectors' slots */
    uint8_t algo;         /* PCCL_ALGO_RING, _DIRECT, _ONESHOT or _TWOSHOT (lib/prog.c) */
    uint8_t first;        /* the first block that runs it: first .. first+used-1 (pccl_first_block) */
    uint8_t placed;       /* PCCL_SPREAD=2: each invocation placed on a group of blocks (scheduler.h, pccl_hand_on) */
    uint8_t pad[2];
    uint64_t count;       /* AR/Reduce/Bcast: elements; AG: per-rank send; RS: per-rank recv */
    uint64_t chunk_elems; /* elements per connector slot                    */
    uint64_t ngroups;     /* groups of ilv loops over the data              */
    uint64_t conn_off;    /* this collective's connectors, same offset in every arena */
    /* Derived at registration (pccl_coll_derive), so that a step divides
     * nothing: 64-bit divisions are subroutines on the GPU, run by the
     * leader alone while the block waits for its job. */
    uint64_t loops;       /* pccl_total_loops                               */
    uint64_t slot;        /* pccl_slot_bytes: one connector slot            */
    uint64_t stride;      /* one lane's connectors: pccl_conn_stride, x (n - 1) on the mesh (a connector per peer) */
    uint16_t steps[PCCL_MAX_STEPS + 1];
} pccl_coll;
/* pccl_coll_load copies it in 8-byte words */
#ifdef __cplusplus
static_assert(offsetof(pccl_coll, steps) % 8 == 0 && sizeof(pccl_coll) % 8 == 0, "pccl_coll's words");
#else
_Static_assert(offsetof(pccl_coll, steps) % 8 == 0 && sizeof(pccl_coll) % 8 == 0, "pccl_coll's words");
#endif

/* Dynamic context of one collective on one block: where it stopped.  The
 * connector step counters live on across invocations (the rings are the
 * collective's own, so they never mix with another collective's data). */
typedef struct {
    uint64_t send_step, recv_step; /* slots sent / received so far, ever */
    uint64_t group;                /* the group of loops being run       */
    uint64_t next;                 /* the block's next group: 0 not known yet, else
                                      PCCL_GROUP_NONE or 1 + the group (pccl_claim) */
    uint64_t inv;                  /* invocations fetched, ever          */
    uint32_t step;                 /* primitive within the program       */
    uint32_t loop;                 /* loop within the group              */
    const void *sendbuf;           /* this invocation's buffers          */
    void *recvbuf;
    uint64_t t_fetch;              /* PCCL_PROFILE: when its SQ entry was read */
    uint64_t gated;                /* 1 until the first primitive: wait for its gate (below) */
} pccl_ctx;

/* The arena's first lines: block b's, at b * PCCL_FLAG_PAD, holds what that
 * block waits for (written by its leader, read by its ring neighbours' block
 * b: scheduler.h, pccl_peer_waits, and by the hang report): 1 + the
 * collective, 0 while it waits for none, in bits 0-23; 1 + a collective a
 * neighbour waits for that this block cannot run yet, or 0, in bits 24-47;
 * the low 16 bits of the waited invocation's number (pccl_ctx.inv) in bits
 * 48-63.  Ids fit (PCCL_MAX_COLLS is 2^20 at most); invocations in flight are
 * far fewer than 2^15 apart, so their numbers compare modulo 2^16.
 * Connectors begin after them. */
#define PCCL_ARENA_HDR ((size_t)PCCL_MAX_BLOCKS * PCCL_FLAG_PAD)
#define PCCL_WAIT_WORD(id1, lacks1, inv) \
    ((uint64_t)(id1) | (uint64_t)(lacks1) << 24 | ((uint64_t)(inv) & 0xffff) << 48)
#define PCCL_WAIT_ID1(w) ((w) & 0xffffffull)
#define PCCL_WAIT_LACKS1(w) ((w) >> 24 & 0xffffffull)
#define PCCL_WAIT_INV(w) ((uint16_t)((w) >> 48))
/* Invocation a's number less b's, modulo 2^16 (negative: a is the older) */
PCCL_FN int16_t pccl_inv_diff(uint16_t a, uint16_t b) { return (int16_t)(uint16_t)(a - b); }
PCCL_FN uint64_t *pccl_waits_word(char *arena, int b) { return (uint64_t *)(arena + (size_t)b * PCCL_FLAG_PAD); }

/* A collective's connectors on one block, at conn_off + block * stride in
 * every rank's arena.  tail is written by the previous rank (it sent that many
 * slots into my ring); head by the next rank (it consumed that many of the
 * slots I sent into its ring). */
#define PCCL_CONN_TAIL 0
#define PCCL_CONN_HEAD PCCL_FLAG_PAD
/* then a word per slot, written by the previous rank with the slot: the
 * block's next group as the sender knew it (pccl_claim), then the slots */
#define PCCL_CONN_HDR (2 * PCCL_FLAG_PAD)
#define PCCL_GROUP_NONE UINT64_MAX
PCCL_FN size_t pccl_conn_ring(int slots)
{
    return PCCL_CONN_HDR + (((size_t)slots * 8 + PCCL_FLAG_PAD - 1) & ~(size_t)(PCCL_FLAG_PAD - 1));
}

/* ---- host <-> daemon queues (pinned host memory) ------------------------ */

/* An SQ entry's low word ("raw"): the collective's id (bits 0-19:
 * PCCL_MAX_COLLS allows 20), the group of blocks the host placed a
 * collective of several blocks on (bits 20-24: scheduler.h, pccl_hand_on),
 * and PCCL_SQ_GATED for a stream-ordered invocation (lib/stream.c), which
 * may start only once its stream wrote its gate.  Bits 25-30 carry a lane
 * where block 0 hands the entry on (PCCL_TASK, below). */
#define PCCL_SQ_GATED 0x80000000u
#define PCCL_SQ_ID_MASK 0xfffffu
#define PCCL_SQ_GROUP_SHIFT 20
#define PCCL_SQ_GROUP(raw) ((uint32_t)(raw) >> PCCL_SQ_GROUP_SHIFT & 31u)
/* SQ: a ring of records in pinned memory, one per invocation, each in a
 * line of its own (PCCL_SQ_STRIDE): two words, read with one 16-byte load.
 * The first holds the collective's id (low 12 bits), PCCL_SQ_GATED and the
 * sendbuf, the second the id's high 8 bits, the group and the recvbuf
 * (pointers fit in 48 bits: pcclRun checks), and each its
 * record's lap tag: entry t of a ring of depth d has tag (t / d + 1) mod 8
 * (pccl_sq_tag), which the slot's previous occupant (lap t / d - 1) and
 * never-written memory (0) do not have (the host is never a lap ahead: at
 * most depth invocations are outstanding).  Every word is valid on its own:
 * a word read with the expected tag holds that invocation's value, whatever
 * order the host's stores arrive in (the LL protocol's idea).  So the
 * reader needs no second, dependent read: before, block 0 read an entry,
 * then its collective's buffers, two PCIe round trips per invocation (3.2-
 * 3.5 us back to back, results/hostpath/b2b-split.md).  The host writes the
 * second word, then the first (release); a record read with one word still
 * old is taken as not there yet.  The host writes one record, into block
 * 0's SQ, whichever blocks run the collective (first .. first+used-1:
 * pccl_first_block); block 0 hands it on to those blocks through their SQs
 * in device memory (dsq, dargs: the same protocol at GPU scope), and takes
 * it itself where it is one of them.  Only one block per GPU then reads
 * pinned memory: with every block polling it, the six commit fences of an
 * 8-byte all-reduce on 4 H200s took 61.1 us where they take 7.0
 * (results/README.md, "pccl-perf").
 * CQ: one ring per GPU, slots taken by an atomic ticket on the GPU, the
 * entry (ticket+1) << 32 | collId published with one release fence for all
 * the entries a block posts together (pccl_flush_done); the poller accepts
 * the entry whose ticket is the one it expects, so an entry is never
 * dropped or read twice. */
#define PCCL_SQ_STRIDE 128
typedef struct {
    uint64_t w[2]; /* [tag 3 | gated 1 | id bits 0-11 | sendbuf 48], [tag 3 | group 5 | id bits 12-19 | recvbuf 48] */
    char pad[PCCL_SQ_STRIDE - 16];
} pccl_sqe;
#define PCCL_SQ_PTR_BITS 48
#define PCCL_SQ_PTR_MASK ((1ull << PCCL_SQ_PTR_BITS) - 1)
#define PCCL_SQ_TAG_MASK (7ull << 61)
PCCL_FN uint64_t pccl_sq_tag(uint64_t t, uint64_t depth) { return ((t / depth + 1) & 7) << 61; }
/* The host writes entry t (0, 1, ...) into its record.  Pointers are
 * masked: one the collective does not use (a broadcast's sendbuff off the
 * root) is not checked, and must not spoil the tag. */
PCCL_FN void pccl_sq_write(pccl_sqe *q, uint64_t t, uint64_t depth, uint32_t raw, const void *send, const void *recv)
{
    uint64_t tag = pccl_sq_tag(t, depth), id = raw & PCCL_SQ_ID_MASK, gated = (raw & PCCL_SQ_GATED) != 0;
    uint64_t group = PCCL_SQ_GROUP(raw);
    pccl_st_rlx(&q->w[1], tag | group << 56 | (id >> 12 & 0xff) << 48 | ((uint64_t)(uintptr_t)recv & PCCL_SQ_PTR_MASK));
    pccl_st_rel(&q->w[0], tag | gated << 60 | (id & 0xfff) << 48 | ((uint64_t)(uintptr_t)send & PCCL_SQ_PTR_MASK));
}
/* Entry t as read (w): its low SQ word (id, group, PCCL_SQ_GATED), sendbuf and
 * recvbuf into out; 0 where it is not there yet (a word with another tag). */
PCCL_FN int pccl_sq_decode(const uint64_t w[2], uint64_t t, uint64_t depth, uint64_t out[3])
{
    uint64_t tag = pccl_sq_tag(t, depth);
    if ((w[0] & PCCL_SQ_TAG_MASK) != tag || (w[1] & PCCL_SQ_TAG_MASK) != tag) return 0;
    out[0] = (w[0] >> 48 & 0xfff) | (w[1] >> 48 & 0xff) << 12 | (w[1] >> 56 & 31) << PCCL_SQ_GROUP_SHIFT |
             (w[0] >> 60 & 1) << 31;
    out[1] = w[0] & PCCL_SQ_PTR_MASK;
    out[2] = w[1] & PCCL_SQ_PTR_MASK;
    return 1;
}
/* Gates per collective: invocation n's is gate[id * PCCL_GATE_SLOTS + n %
 * PCCL_GATE_SLOTS], so that streams of later invocations never overwrite the
 * gate of an earlier one that has not started (at most this many invocations
 * of one collective may be outstanding: lib/stream.c). */
#define PCCL_GATE_SLOTS 8 /* = PCCL_MAX_PENDING (pccl.h) */
#ifdef __cplusplus
#define PCCL_ALIGN16 alignas(16)
#else
#define PCCL_ALIGN16 _Alignas(16)
#endif
/* An invocation's buffers (block 0 -> the other blocks: dargs; a stream's
 * pending invocations); 16-byte aligned: one load reads both. */
typedef struct {
    PCCL_ALIGN16 const void *sendbuf;
    void *recvbuf;
} pccl_args;

/* A block's running totals; the time figures (ns) only with PCCL_PROFILE.
 * The block keeps them in device memory across launches (pccl_blk_saved)
 * and publishes them to pinned memory, where the host reads any time. */
typedef struct {
    uint64_t preemptions, primitives, quits, completions;
    uint64_t ns_sq;     /* passes that found SQ entries: reading the SQ     */
    uint64_t ns_wait;   /* polling connector flags (peers, free slots)      */
    uint64_t ns_exec;   /* primitives: moving and reducing data, barriers,
                           the previous step's post overlapping them        */
    uint64_t ns_commit; /* posting a step (fence, flag stores) when the
                           block waits for it (the next step was not ready) */
    uint64_t ns_cq;     /* completing: the blocks' count and the CQ entry   */
    uint64_t ns_life;   /* SQ read to completion, summed over invocations  */
    uint64_t sm;        /* 1 + the SM the block runs on (its latest launch); 0: not known */
    uint64_t slices;    /* quits because the time slice ran out (PCCL_SLICE_US) */
    uint64_t crossed;   /* preemptions before the threshold: a ring neighbour's
                           posted wait showed it waits for us (pccl_peer_waits) */
    uint64_t ahead;     /* block 0: invocations fetched while it ran a collective
                           on several blocks (pccl_look_ahead) */
    uint64_t wait_fetches; /* block 0: invocations fetched while a collective of its
                           own waited for a peer (pccl_fetch_waiting) */
    /* The latest launch, on the daemon's clock (PCCL_NOW_NS), for the
     * relaunch's cost split (lib/slice.c): its start, the slice's cut (0:
     * none), its first collective picked and its first step (0: none), its
     * end; the first pass that found work queued (restored or fetched; 0:
     * none), and the end of its first pass's plan (fetch included). */
    uint64_t t_begin, t_cut, t_pick, t_first, t_end, t_work, t_plan;
} pccl_blk_stats;

#define PCCL_CTL_ABORT 1u
#define PCCL_CTL_CUT 2u
#define PCCL_HOLD_SET 8 /* held collectives the daemon can check itself */
#define PCCL_HOLD_MANY 0xffffffffu
typedef struct {
    /* host -> daemon: PCCL_CTL_ABORT, quit now, for good; PCCL_CTL_CUT, end
     * this launch at the next decision, as the slice would (a call of the
     * process waits for the GPU: watch.c); the host clears CUT before each
     * launch.  One word, so that block 0's periodic look reads both. */
    uint32_t ctl;
    /* daemon -> host: the launch (the low 32 bits of its epoch) whose block
     * 0 ended it because its time slice ran out while work progressed
     * (pccl_end): the poller relaunches at once after such a launch
     * (poller.c).  An epoch, not a flag the host clears before each launch:
     * a launch queued ahead (PCCL_SLICE_AHEAD_US) is made while the one
     * before still runs and may still set it. */
    uint32_t sliced;
    /* host -> daemon: a stream waits for an invocation of this GPU's that is
     * not complete (lib/stream.c): the launch stays (pccl_may_quit) */
    uint32_t hold;
    /* daemon -> host: the launch (its epoch's low 32 bits) whose block 0
     * decided to end it (cut.h, pccl_may_quit): a stream's hold made then
     * waits for its end and relaunches (lib/stream.c) */
    uint32_t quitting;
    /* daemon -> host: the latest launch (the low 32 bits of its epoch) whose
     * every block has ended, written by the last block out (G->exits): the
     * poller sees a launch end with a load of host memory, where a stream
     * query is a driver call (poller.c, daemon_ended) */
    uint32_t ended;
    uint32_t unused; /* the header stays 128 bytes (hold_seq below) */
    /* host -> daemon: which invocations the streams wait for (lib/stream.c),
     * so that a held launch may still end once the daemon itself completed
     * them all (pccl_hold_done), without waiting for the host to see the
     * completions; a seqlock (hold_seq odd while the host rewrites it), and
     * hold_n = PCCL_HOLD_MANY where the set does not fit (then the host's
     * release alone ends the hold) */
    uint64_t hold_tk[PCCL_HOLD_SET]; /* invocation hold_tk[i] of collective hold_id[i] */
    uint32_t hold_id[PCCL_HOLD_SET];
    uint32_t hold_seq, hold_n; /* the header stays 128 bytes */
    /* followed, in the same allocation, by: */
    /* uint64_t cq[depth]; pccl_sqe sq[depth]; pccl_blk_stats stats[blocks] */
} pccl_pinned_hdr;

/* Daemon state that must survive a voluntary quit: the task queue, the pass
 * position and the SQ read position of each block (device memory). */
typedef struct {
    uint64_t sq_head;
    uint32_t tq_len;
    uint32_t pos; /* where a launch cut by its slice stopped its pass: the next one resumes there */
    int64_t waited; /* the polls the collective there had waited when the cut came (scheduler.h, pccl_wait) */
    pccl_blk_stats st;
} pccl_blk_saved;

/* Knobs the daemon reads (resolved by the host from config, env, defaults). */
typedef struct {
    int32_t blocks, threads, slots, depth, max_colls, order, chaos, sticky;
    int32_t profile, interleave;
    int32_t dynamic;
    int32_t trace;    /* PCCL_TRACE_LAT: the completing block stamps fetch and completion (lib/trace.c) */
    int64_t spin_head, spin_base, spin_min, quit_ns;
    uint64_t chaos_seed;
    int64_t slice_ns; /* a launch ends this long after it began, work or not (0: never) */
    int64_t slice_early_ns; /* ... or up to this long before, at a pass that finds the block idle */
    int32_t watch;    /* the host may ask for a cut (PCCL_CTL_CUT): block 0 looks with the abort flag (cut.h) */
    int64_t cross_polls; /* a wait reads its neighbours' posted waits from this many polls on (0: never; scheduler.h) */
} pccl_knobs;

/* Everything one GPU's daemon needs, by value (a kernel parameter). */
typedef struct {
    pccl_knobs k;
    int32_t rank, nranks;
    uint64_t epoch;          /* this launch's number (the host's count, set before each launch) */
    /* where this launch's slice ends on the daemon's clock (PCCL_SLICE_ALIGN:
     * a point of the host's grid, which all ranks share; 0: a slice after
     * each block's start), set before each launch: a parameter, which every block reads
     * for free, where a pinned word cost block 0 a PCIe read per launch and
     * left the others to guess block 0's deadline */
    uint64_t deadline;
    /* device memory of this GPU */
    pccl_coll *colls;        /* [max_colls]                         */
    pccl_ctx *ctx;           /* [max_colls][blocks]                 */
    uint64_t *done;          /* [max_colls] blocks finished, per invocation */
    uint64_t *cq_ticket;     /* CQ slot counter                     */
    uint64_t *progress;      /* steps committed by any block, ever  */
    uint64_t *quit;          /* the launch (its epoch) whose block 0 decided to end it: the others follow */
    uint64_t *exits;         /* blocks that ended a launch, ever (the last of a launch writes hdr->ended) */
    uint64_t *looked;        /* [blocks] the last launch (epoch) in which block b looked at its work (cut.h) */
    pccl_blk_saved *saved;   /* [blocks]                            */
    uint64_t *dsq;           /* [blocks][depth] block 0 -> the others' SQs */
    uint64_t *dsq_tail;      /* [blocks][2] entries block 0 wrote into each, and the next one's slot */
    pccl_args *dargs;        /* [max_colls] the buffers, for the others */
    uint64_t *claims;        /* [max_colls] groups claimed, ever (claimer rank) */
    uint64_t *gate;          /* [max_colls][PCCL_GATE_SLOTS] written by streams: invocation n may start once its slot >= n */
    uint64_t *fin;           /* [max_colls] written by the daemon: invocation n completed */
    int32_t *saved_tq;       /* [blocks][depth]                     */
    char *arena;             /* my connectors                       */
    char *next_arena;        /* the next rank's, mapped (peer memory) */
    char *prev_arena;        /* the previous rank's, mapped         */
    /* rank + k's at peer[k - 1], k = 1 .. n - 1, where the mesh is mapped
     * (else NULL); with mesh, 64 bytes: the host's fields after G keep
     * their places within cache lines */
    char *peer[PCCL_MESH_MAX_RANKS - 1];
    int32_t mesh;            /* the peers are mapped for the mesh: the GPU runs the daemon with its steps (scheduler.h) */
    int32_t unused_mesh_pad;
    /* pinned host memory */
    pccl_pinned_hdr *hdr;
    uint64_t *cq;            /* [depth]                             */
    pccl_sqe *sq;            /* [depth] block 0's SQ                */
    pccl_blk_stats *stats;   /* [blocks]                            */
    uint64_t *hgate;         /* [max_colls][PCCL_GATE_SLOTS] the gates again, for the poller (lib/stream.c) */
    uint64_t *tstamp;        /* [max_colls][2] PCCL_TRACE_LAT: SQ read and completion, daemon clock */
} pccl_gpu;

/* The pinned memory: header, CQ, SQ (a line per record), stats, hgate, tstamp. */
PCCL_FN size_t pccl_pinned_sq_off(const pccl_knobs *k)
{
    return (sizeof(pccl_pinned_hdr) + sizeof(uint64_t) * (size_t)k->depth + PCCL_SQ_STRIDE - 1) &
           ~(size_t)(PCCL_SQ_STRIDE - 1);
}
PCCL_FN size_t pccl_pinned_bytes(const pccl_knobs *k)
{
    return pccl_pinned_sq_off(k) + sizeof(pccl_sqe) * (size_t)k->depth + sizeof(pccl_blk_stats) * (size_t)k->blocks +
           sizeof(uint64_t) * (size_t)k->max_colls * (PCCL_GATE_SLOTS + 2);
}

/* The daemon's device memory, one allocation carved into its arrays; both
 * backends use this layout.  With base NULL, only returns the size. */
PCCL_FN size_t pccl_carve_device(pccl_gpu *G, char *base)
{
#define PCCL_NEXT(off, n) ((((off) + (n)) + 255) & ~(size_t)255)
    size_t mc = (size_t)G->k.max_colls, nb = (size_t)G->k.blocks, d = (size_t)G->k.depth;
    size_t o_ctx = PCCL_NEXT(0, mc * sizeof(pccl_coll)), o_done = PCCL_NEXT(o_ctx, mc * nb * sizeof(pccl_ctx)),
           o_tick = PCCL_NEXT(o_done, mc * sizeof(uint64_t)), o_saved = PCCL_NEXT(o_tick, 4 * PCCL_FLAG_PAD),
           o_stq = PCCL_NEXT(o_saved, nb * sizeof(pccl_blk_saved)), o_dsq = PCCL_NEXT(o_stq, nb * d * sizeof(int32_t)),
           o_dtail = PCCL_NEXT(o_dsq, nb * d * sizeof(uint64_t)), o_dargs = PCCL_NEXT(o_dtail, nb * 2 * sizeof(uint64_t)),
           o_claims = PCCL_NEXT(o_dargs, mc * sizeof(pccl_args)), o_gate = PCCL_NEXT(o_claims, mc * sizeof(uint64_t)),
           o_fin = PCCL_NEXT(o_gate, mc * PCCL_GATE_SLOTS * sizeof(uint64_t)), o_looked = PCCL_NEXT(o_fin, mc * sizeof(uint64_t)),
           total = PCCL_NEXT(o_looked, nb * sizeof(uint64_t));
#undef PCCL_NEXT
    if (base) {
        G->colls = (pccl_coll *)base;
        G->ctx = (pccl_ctx *)(base + o_ctx);
        G->done = (uint64_t *)(base + o_done);
        G->cq_ticket = (uint64_t *)(base + o_tick);
        G->progress = (uint64_t *)(base + o_tick + PCCL_FLAG_PAD);
        G->quit = (uint64_t *)(base + o_tick + 2 * PCCL_FLAG_PAD);
        G->exits = (uint64_t *)(base + o_tick + 3 * PCCL_FLAG_PAD);
        G->saved = (pccl_blk_saved *)(base + o_saved);
        G->saved_tq = (int32_t *)(base + o_stq);
        G->dsq = (uint64_t *)(base + o_dsq);
        G->dsq_tail = (uint64_t *)(base + o_dtail);
        G->dargs = (pccl_args *)(base + o_dargs);
        G->claims = (uint64_t *)(base + o_claims);
        G->gate = (uint64_t *)(base + o_gate);
        G->fin = (uint64_t *)(base + o_fin);
        G->looked = (uint64_t *)(base + o_looked);
    }
    return total;
}

/* The pinned host memory (pccl_pinned_bytes of it), carved likewise. */
PCCL_FN void pccl_carve_pinned(pccl_gpu *G, char *p)
{
    G->hdr = (pccl_pinned_hdr *)p;
    G->cq = (uint64_t *)(p + sizeof(pccl_pinned_hdr));
    G->sq = (pccl_sqe *)(p + pccl_pinned_sq_off(&G->k));
    G->stats = (pccl_blk_stats *)(G->sq + G->k.depth);
    G->hgate = (uint64_t *)(G->stats + G->k.blocks);
    G->tstamp = G->hgate + (size_t)G->k.max_colls * PCCL_GATE_SLOTS;
}

/* ---- data types --------------------------------------------------------- */

PCCL_FN int pccl_type_size(int t)
{
    static const uint8_t sz[10] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
    return (t >= 0 && t < 10) ? sz[t] : 0;
}

/* IEEE half and bfloat16 <-> float, round to nearest even (host side; the
 * daemon kernel uses CUDA's intrinsics, which round the same way on every
 * value but a NaN's bits: gpu/ops.cuh, tests/gpu/pccl_ops_test.cu). */
PCCL_FN float pccl_bits_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
PCCL_FN uint32_t pccl_float_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

PCCL_FN float pccl_half_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f) return pccl_bits_float(s | 0x7f800000u | (m << 13));
    if (e == 0) { /* subnormal or zero: m * 2^-24 */
        float f = (float)m * (1.0f / 16777216.0f);
        return s ? -f : f;
    }
    return pccl_bits_float(s | ((e + 112) << 23) | (m << 13));
}

PCCL_FN uint16_t pccl_float_to_half(float f)
{
    uint32_t u = pccl_float_bits(f), s = (u >> 16) & 0x8000, a = u & 0x7fffffff;
    if (a >= 0x7f800000u) return (uint16_t)(s | 0x7c00 | (a > 0x7f800000u ? 0x200 : 0));
    if (a >= 0x477ff000u) return (uint16_t)(s | 0x7c00);  /* rounds past 65504: inf */
    if (a < 0x38800000u) {                              /* subnormal half */
        float af = pccl_bits_float(a) * 16777216.0f;     /* exact scaling by 2^24 */
        uint32_t m = (uint32_t)af; float r = af - (float)m;
        if (r > 0.5f || (r == 0.5f && (m & 1))) m++;
        return (uint16_t)(s | m);
    }
    uint32_t e = (a >> 23) - 112, m = a & 0x7fffff, h = (e << 10) | (m >> 13), rest = m & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
    return (uint16_t)(s | h);
}

PCCL_FN float pccl_bf16_to_float(uint16_t b) { return pccl_bits_float((uint32_t)b << 16); }
PCCL_FN uint16_t pccl_float_to_bf16(float f)
{
    uint32_t u = pccl_float_bits(f);
    if ((u & 0x7fffffff) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

/* ---- geometry: which elements a step of a loop touches ------------------- */

/* The per-rank index space N (see count) is cut into loops of
 * pccl_loop_span elements, and the loops into groups of ilv consecutive ones
 * (a block runs a group's loops step by step together).  Block b runs group
 * b first, as NCCL deals chunks to channels, so all blocks start within
 * blocks x ilv x span elements of each other: the GPU's TLB and DRAM-page
 * working set stays small, where contiguous slices per block put them a
 * gigabyte apart.  Later groups: b + used, b + 2 used ... (static), or
 * claimed at run time (dyn, pccl_claim).  Spans are multiples of 16 elements
 * (chunk_elems is), so every loop starts aligned for wide loads. */
/* The ring all-reduce cuts each loop into nranks chunks; every other
 * collective and algorithm moves a loop as one chunk. */
PCCL_FN int pccl_split_loop(const pccl_coll *c)
{
    return c->type == 0 && (c->algo == PCCL_ALGO_RING || c->algo == PCCL_ALGO_TWOSHOT);
}
/* Whether algorithm a is the mesh's, and whether the mesh applies on n
 * ranks (the knob, the tuner and the communicator's mapping ask alike) */
PCCL_FN int pccl_mesh_algo(int a) { return a == PCCL_ALGO_ONESHOT || a == PCCL_ALGO_TWOSHOT; }
PCCL_FN int pccl_mesh_fits(int n) { return n >= 2 && n <= PCCL_MESH_MAX_RANKS; }
/* Whether its connectors reach every peer (the mesh) */
PCCL_FN int pccl_mesh(const pccl_coll *c) { return pccl_mesh_algo(c->algo); }

PCCL_FN uint64_t pccl_loop_span(const pccl_coll *c)
{
    return pccl_split_loop(c) ? c->chunk_elems * c->nranks : c->chunk_elems;
}

PCCL_FN uint64_t pccl_total_loops(const pccl_coll *c)
{
    uint64_t span = pccl_loop_span(c);
    return (c->count + span - 1) / span;
}

/* Groups of ilv loops; a count of 0 still runs one (empty) loop. */
PCCL_FN uint64_t pccl_groups(const pccl_coll *c)
{
    uint64_t l = pccl_total_loops(c);
    return l ? (l + c->ilv - 1) / c->ilv : 1;
}

/* The blocks that take part: those with a group.  Only they get the
 * collective's SQ entries and count towards its completion; the others never
 * see it (the same on every rank, so the rings stay in step). */
PCCL_FN uint32_t pccl_used_blocks(const pccl_coll *c, int blocks)
{
    uint64_t g = c->ngroups;
    return g < (uint64_t)blocks ? (uint32_t)g : (uint32_t)blocks;
}

/* The block a collective's blocks start at, with PCCL_SPREAD=1 (register.c;
 * else 0).  A collective on one block (every small one: lib/tune.c) runs
 * on block id % blocks, so that small
 * collectives of different ids run on different blocks, side by side: on
 * block 0 alone, back to back, each waited for the ones before it, its
 * fetch, its run and its completion (results/hostpath/b2b-split.md).  Block
 * 0 still reads every SQ entry and hands it on.  The same on every rank
 * (ids and PCCL_BLOCKS agree), so block b's ring still meets block b. */
PCCL_FN uint32_t pccl_first_block(const pccl_coll *c, int32_t id, int blocks)
{
    return c->used == 1 ? (uint32_t)id % (uint32_t)blocks : 0;
}

/* Lanes: a collective on `used` blocks runs on lanes 0 .. used-1, each
 * with its own connectors, context and share of the groups; lane l's ring
 * meets lane l of every rank.  Blocks first .. first+used-1 run them, or,
 * for a placed collective (PCCL_SPREAD=2), whichever group of `used`
 * blocks block 0 hands the invocation to (scheduler.h, pccl_hand_on): only
 * one group runs a collective at a time, since one invocation of it is on
 * the GPU at a time, and the step counters it continues are its lanes'.
 * Lane l's context is G->ctx[id * blocks + first + l]. */
PCCL_FN size_t pccl_ctx_slot(const pccl_coll *c, int32_t id, int blocks, uint32_t lane)
{
    return (size_t)id * (size_t)blocks + c->first + lane;
}
/* A task-queue entry: the collective's id and the lane the block runs it
 * as (in the SQ entries block 0 hands on, the same bits of the low word). */
#define PCCL_LANE_SHIFT 25
#define PCCL_LANE_MASK (63u << PCCL_LANE_SHIFT)
#define PCCL_TASK(id, lane) ((int32_t)((uint32_t)(id) | (uint32_t)(lane) << PCCL_LANE_SHIFT))
#define PCCL_TASK_ID(t) ((int32_t)((uint32_t)(t) & PCCL_SQ_ID_MASK))
#define PCCL_TASK_LANE(t) (((uint32_t)(t) & PCCL_LANE_MASK) >> PCCL_LANE_SHIFT)

/* Loops in a group (the last one may have fewer; an empty collective's one). */
PCCL_FN uint32_t pccl_group_loops(const pccl_coll *c, uint64_t group)
{
    uint64_t l = c->loops, first = group * c->ilv;
    if (l <= first) return 1;
    return l - first < c->ilv ? (uint32_t)(l - first) : c->ilv;
}

/* Input and output element offsets and the element count of (global loop,
 * chunk). */
PCCL_FN void pccl_chunk(const pccl_coll *c, uint64_t loop, int chunk, uint64_t *in_off, uint64_t *out_off,
                        uint64_t *cnt)
{
    uint64_t n = c->count, span = pccl_loop_span(c);
    uint64_t o = loop * span < n ? loop * span : n, hi = o + span < n ? o + span : n, end;
    if (pccl_split_loop(c)) { /* ring all-reduce: the loop's span is cut into nranks chunks */
        /* A whole loop's chunks are chunk_elems (a multiple of 16): only the
         * last, short loop divides. */
        uint64_t cs = c->chunk_elems;
        if (hi - o != span) cs = ((hi - o + c->nranks - 1) / c->nranks + 15) & ~(uint64_t)15;
        uint64_t s = o + cs * chunk < hi ? o + cs * chunk : hi;
        end = s + cs < hi ? s + cs : hi;
        *in_off = *out_off = s;
        *cnt = end - s;
        return;
    }
    *cnt = hi - o;
    *in_off = *out_off = o;
    if (c->type == 1) *out_off += (uint64_t)chunk * c->count;     /* all-gather */
    if (c->type == 2) *in_off += (uint64_t)chunk * c->count;      /* reduce-scatter */
}

/* Bytes of one block's connectors for a collective: two flags, each on its
 * own line, then the ring of slots (16-byte aligned for wide accesses). */
PCCL_FN size_t pccl_slot_bytes(const pccl_coll *c)
{
    size_t b = ((size_t)c->chunk_elems * c->esize + 15) & ~(size_t)15;
    /* LL: every 4 data bytes travel with a 4-byte flag (lib/proto_ll.h) */
    return c->proto == PCCL_PROTO_LL ? 2 * b : b;
}
PCCL_FN size_t pccl_conn_stride(const pccl_coll *c, int slots)
{
    size_t s = pccl_conn_ring(slots) + (size_t)slots * pccl_slot_bytes(c);
    return (s + 255) & ~(size_t)255;
}
/* The fields a step would otherwise compute (register.c, once the chunk,
 * the groups and the protocol are set). */
PCCL_FN void pccl_coll_derive(pccl_coll *c, int slots)
{
    c->loops = pccl_total_loops(c);
    c->slot = pccl_slot_bytes(c);
    c->stride = pccl_conn_stride(c, slots) * (pccl_mesh(c) ? (uint64_t)c->nranks - 1 : 1);
}
/* A collective's static context into a block's copy (scheduler.h,
 * pccl_pick): its fields and its first 16 steps' codes (every program of up
 * to 8 ranks) staged through registers, so that the loads go out together
 * (one L2 round trip; copied word by word, a shared store between each two
 * loads, they need not); the rest of the program only where it is longer. */
#define PCCL_COLL_HEAD_WORDS (offsetof(pccl_coll, steps) / 8 + 4)
PCCL_FN void pccl_coll_load(pccl_coll *d, const pccl_coll *s)
{
    const uint64_t *a = (const uint64_t *)s;
    uint64_t *b = (uint64_t *)d, w[PCCL_COLL_HEAD_WORDS];
    for (size_t i = 0; i < PCCL_COLL_HEAD_WORDS; i++) w[i] = a[i];
    for (size_t i = 0; i < PCCL_COLL_HEAD_WORDS; i++) b[i] = w[i];
    if (d->nsteps > 16)
        for (size_t i = PCCL_COLL_HEAD_WORDS; i < sizeof *s / 8; i++) b[i] = a[i];
}
/* The end of a launch's slice for a block that began at `now`: the host's
 * deadline d (aligned, the same for all ranks) where it lies within one
 * slice s, or within s + early (PCCL_SLICE_EARLY_US: a launch that ended
 * early served the grid point it ended before, and its relaunch takes the
 * next one, pccl_slice_plan_locked); a point already past (a launch late
 * past it: a launch queued ahead, planned from the host's estimate of when
 * the one before would end, began after its point) gives way to the grid's
 * next (the grid's points are d + k s); one too far ahead (a wrong clock
 * estimate) to a slice from the start; and half a slice at least: a launch
 * that began just before a grid point and was cut after its first step
 * left its relaunch nothing to do until the peers came; that one quit idle
 * and the restart delay held the collective (the stream suite's opening
 * gate waited 200 ms).  UINT64_MAX: no slice.  The daemon takes it at each
 * block's start (scheduler.h, pccl_begin); the host's relaunch split
 * (slice.c) measures the cut against it. */
PCCL_FN uint64_t pccl_slice_deadline(uint64_t now, uint64_t d, uint64_t s, uint64_t early)
{
    if (!s) return UINT64_MAX;
    if (d && d <= now) d += ((now - d) / s + 1) * s;
    uint64_t e = d > now && d <= now + s + early ? d : now + s;
    return e < now + s / 2 ? now + s / 2 : e;
}

/* Step t's slot in a ring of `slots`: a mask where slots is a power of two
 * (the default), rather than a 64-bit remainder. */
PCCL_FN uint64_t pccl_slot_of(uint64_t t, int slots)
{
    uint64_t s = (uint64_t)slots;
    return (s & (s - 1)) == 0 ? t & (s - 1) : t % s;
}

/* Host-side helpers (lib/prog.c). */
#ifndef __CUDA_ARCH__
#ifdef __cplusplus
extern "C" {
#endif
/* Builds the ring program of a collective for this rank; returns the number
 * of steps. */
int pccl_build_program(pccl_coll *c);
/* The protocol of a collective of `bytes` (its largest buffer) on `nranks`
 * ranks, by the measured table (lib/tune.c); knob: PCCL_PROTO_AUTO picks,
 * _SIMPLE or _LL forces. */
int pccl_pick_proto(int knob, int type, uint64_t bytes, int nranks);
/* The algorithm, likewise: PCCL_ALGO_DIRECT only where it applies
 * (all-reduce on 2 to PCCL_DIRECT_MAX_RANKS ranks whose rings of `slots`
 * hold a loop's n - 1 received slots), else the ring. */
int pccl_pick_algo(int knob, int type, uint64_t bytes, int nranks, int slots);
/* The fewest blocks a collective of `bytes` on `nranks` runs on (blocks of
 * `threads`; host: the host backend), by the measured table (lib/tune.c). */
uint64_t pccl_pick_min_blocks(uint64_t bytes, uint64_t threads, int nranks, int algo, int proto, int host);
#ifdef __cplusplus
}
#endif
#endif

#endif
