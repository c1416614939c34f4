/* The tuner: which protocol a collective's connectors speak (and which
 * algorithm, on how few blocks), picked at registration from its size and
 * the rank count, as NCCL's tuner picks
 * protocol by message size (PCCL_PROTO=simple|ll overrides it).  Every rank
 * registers the same collective with the same size and count of ranks, so
 * every rank picks the same protocol, as its ring needs. */
#include "internal.h"

/* LL is picked up to this many bytes (the collective's largest buffer:
 * all-gather's output, reduce-scatter's input), per rank count; above it,
 * Simple.  LL moves half the data per slot byte and no fence per step:
 * it wins where a step's latency rules and loses where bandwidth does.  On
 * 4 H200s (results/round-trip, call 3: PCCL_PROTO=ll against the tuner's
 * Simple, three rounds), the all-reduce at 256 KiB took 42.1-43.8 us round
 * trip against 49.9-52.8 and 11.1-11.5 back to back against 12.6-13.6
 * (call 2, the build before: nccl-tests -t 4 11.6-11.8 back to back, the
 * tuner's Simple 13.6-14.0); at 512 KiB 42.0-43.0 against 53.7-56.0
 * round trip, but 18.2-20.8 against 13.5-14.3 back to back: Simple there.
 * Not yet timed on 5-8 ranks, whose ring has more hops: 128 KiB. */
static const struct {
    int max_ranks;  /* the row applies up to this many ranks */
    uint64_t ll_max; /* bytes */
} ll_table[] = {
    {4, 256u << 10},
    {8, 128u << 10},
    {PCCL_MAX_RANKS, 64u << 10},
};

int pccl_pick_proto(int knob, int type, uint64_t bytes, int nranks)
{
    (void)type; /* one threshold for all five collectives, until measured otherwise */
    if (knob != PCCL_PROTO_AUTO) return knob;
    if (nranks < 2) return PCCL_PROTO_SIMPLE; /* no connectors: nothing to speak */
    for (size_t i = 0; i < sizeof ll_table / sizeof ll_table[0]; i++)
        if (nranks <= ll_table[i].max_ranks) return bytes <= ll_table[i].ll_max ? PCCL_PROTO_LL : PCCL_PROTO_SIMPLE;
    return PCCL_PROTO_SIMPLE;
}

/* The direct all-reduce (prog.c) sends each rank's whole input around the
 * ring, n - 1 hops where the ring takes 2 (n - 1), and every rank reduces all
 * n inputs: (n - 1) x the bytes the ring moves in 2 (n - 1) / n x.  On 2
 * ranks that is as many bytes in one step where the ring takes two, and it is
 * picked up to DIRECT_MAX_2; above it, the ring (each rank then reduces the
 * whole buffer, where the ring reduces half).  On 2 H200s
 * (results/slice-x2, calls 9-10, three rounds each against the ring): round
 * trip at 512 KiB 23.9-24.6 us against 30.7-31.3 (nccl-tests -t 2
 * 26.1-31.0), at 1 MiB 27.8-28.7 against 31.5-32.0, at 2 MiB 35.9-38.3
 * against 37.9-40.6; back to back 6.1-6.3 against 7.9-8.1 at 512 KiB,
 * 7.4-7.6 against 8.2-8.4 at 1 MiB, 10.6-11.2 against 10.7-11.4 at 2 MiB;
 * from 4 MiB the ring wins (round trip 42.9-44.4 against 41.9-42.9, back to
 * back 15.5-15.9 against 14.2-14.5).  On 3 or more ranks, up to
 * DIRECT_MAX_N: on 4 H200s (results/direct-n, call 6), round trip at 8 B-2
 * KiB 26.3-28.0 us against the ring's 35.0-37.5, at 8 KiB 35.4-36.7 against
 * 35.9-36.7, at 32 KiB 39.5-41.1 against 41.6-42.6; back to back 7.1-8.5,
 * 9.4-9.7 and 9.6-9.9 against 9.8-10.7, 9.8-10.6 and 10.6-10.8.  Above, the
 * bytes rule: 4 ranks on 2 H200s (two on each GPU, every hop over NVLink;
 * calls 1 and 3), direct forced at 128 KiB took 69.9-74.1 us round trip
 * against 51.0-51.8.  It keeps a loop's n - 1 received slots until its last
 * step, so it applies where a ring's slots hold them. */
#define DIRECT_MAX_2 (2u << 20)
#define DIRECT_MAX_N (32u << 10)

int pccl_pick_algo(int knob, int type, uint64_t bytes, int nranks, int slots)
{
    /* The mesh's (one-shot, two-shot): forced only, until timed where it
     * should pay, on 3 or more GPUs (lib/README.md, "The mesh"). */
    if (pccl_mesh_algo(knob)) return type == 0 && pccl_mesh_fits(nranks) ? knob : PCCL_ALGO_RING;
    int applies = type == 0 && nranks >= 2 && nranks <= PCCL_DIRECT_MAX_RANKS && nranks - 1 <= slots;
    if (!applies) return PCCL_ALGO_RING;
    if (knob != PCCL_ALGO_AUTO) return knob;
    return bytes <= (nranks == 2 ? DIRECT_MAX_2 : DIRECT_MAX_N) ? PCCL_ALGO_DIRECT : PCCL_ALGO_RING;
}

/* Small collectives on one block.  A collective's blocks each fetch its SQ
 * entry (block 0 hands it on), run their share and count themselves done
 * before the last posts the completion: a few microseconds that a small
 * collective's data never pays back.  One H100 (results/hostpath/blocks.md):
 * one rank's all-reduce round trip from 128 B to 32 KiB took 11.4-12.5 us on
 * one block against 16.0-16.9 with 4 or more (8 B, one block anyway: 11.7-
 * 12.6); two ranks sharing the GPU (LL, direct), 17.1-19.0 us against
 * 20.8-22.7 from 128 B to 8 KiB, but 25.8 against 23.5 at 32 KiB and twice
 * the time from 128 KiB.  So one block up to 8 KiB, but for the direct
 * all-reduce on 3 ranks or more only up to 2 KiB: each of its n - 1 hops
 * carries a whole input (the ring's a piece of one) and its last step
 * reduces n of them, which one block does alone.  On 4 H200s
 * (results/tune-x4, calls 1-2, three rounds) it took 7.3-7.6 us back to back
 * at 4 KiB on 4 blocks against 8.4-8.7 on one, 29.5-30.4 round trip against
 * 30.6-31.5; at 8 KiB 7.3-7.8 against 9.6-10.1 and 29.5-30.4 against
 * 35.2-36.9 (nccl-tests -t 4 9.9-10.7 and 42.5-46.1); at 2 KiB one block
 * keeps the round trip 3-4 us shorter (25.6-26.9 against 29.0-31.7), the
 * same back to back.  The four ring collectives took 4 blocks at 4-8 KiB as a
 * loss: round trip all-gather and reduce-scatter 26.1-28.2 us against
 * 22.5-23.4, reduce and broadcast 15.3-16.1 against 12.3-14.6, back to back
 * the same or 0.3-0.7 us longer (results/x4-h200, call 16).  One rank moves
 * its data with one copy, no peer: one block up to 64 KiB
 * (ONE_BLOCK_MAX_1RANK).  On one H100 (results/hostpath/one-rank-blocks.md),
 * round trip 16-64 KiB 12.3-14.7 us on one block against 16.3-17.4 with 4
 * (nccl-tests 11.6-11.9), back to back 3.9-4.7 against 3.9-4.3 (nccl-tests
 * 4.9-5.7); from 128 KiB one block's copy takes the gain back (512 KiB: 21.6
 * against 19.7 round trip).  The host backend as before.  Which block: block 0
 * where no other invocation is in flight, else one the host names from the
 * id (PCCL_SPREAD=2, the default: run.c, place_group), id % blocks with
 * PCCL_SPREAD=1 (core.h, pccl_first_block), 0 with PCCL_SPREAD=0.
 *
 * Simple collectives on 3 or more ranks take 8 x 512 threads' worth at least
 * (one per PCCL_BYTES_PER_BLOCK, 512 KiB, gave 512 KiB-2 MiB the 4-block
 * minimum): each of the ring's 2 (n - 1) steps moves a smaller share per
 * block.  On 4 H200s (results/tune-x4, call 2) the all-reduce at 1 MiB took
 * 14.4-14.7 us back to back against 15.6-16.0 (nccl-tests -t 4 17.1-17.2)
 * and 55.7-57.1 round trip against 60.1-62.3; at 512 KiB 13.2-14.1 against
 * 13.6-14.2 back to back (nccl-tests 13.9-15.1), the round trip alike; at 2
 * MiB the same within the rounds' spread (18.0 against 17.6-17.9 back to
 * back).  The other four at 1-2 MiB alike or faster (broadcast's 2 MiB round
 * trip 22.3-22.8 against 27.4-27.8), but all-gather and reduce-scatter at 2
 * MiB back to back about 2% slower in one of two calls (results/x4-h200,
 * calls 16 and 18).  One per 64 KiB made 1-4 MiB's round trip 5-10 us
 * shorter, but their back to back 1.5-2x longer (25.3 us at 2 MiB): with
 * several invocations in flight fewer blocks each leave more groups to run
 * them side by side. */
#define ONE_BLOCK_MAX (8u << 10)
#define ONE_BLOCK_MAX_DIRECT_N (2u << 10)
#define ONE_BLOCK_MAX_1RANK (64u << 10)

uint64_t pccl_pick_min_blocks(uint64_t bytes, uint64_t threads, int nranks, int algo, int proto, int host)
{
    /* The host backend keeps several: its blocks are threads, the cost above
     * is the GPU's, and its tests' small collectives exercise the blocks'
     * hand-offs (a collective of 8 B has one loop, one block, anyway). */
    uint64_t one = nranks == 1 ? ONE_BLOCK_MAX_1RANK
                   : nranks >= 3 && algo == PCCL_ALGO_DIRECT ? ONE_BLOCK_MAX_DIRECT_N : ONE_BLOCK_MAX;
    if (!host && bytes <= one) return 1;
    uint64_t per512 = !host && nranks >= 3 && proto == PCCL_PROTO_SIMPLE ? 8 : 4;
    return (per512 * 512 + threads - 1) / threads; /* per512 x 512 threads' worth at least */
}
