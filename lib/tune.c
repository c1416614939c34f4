/* The tuner: which protocol a collective's connectors speak, picked at
 * registration from its size and the rank count, as NCCL's tuner picks
 * protocol by message size (PCCL_PROTO=simple|ll overrides it).  Every rank
 * registers the same collective with the same size and count of ranks, so
 * every rank picks the same protocol, as its ring needs. */
#include "internal.h"

/* LL is picked up to this many bytes (the collective's largest buffer:
 * all-gather's output, reduce-scatter's input), per rank count; above it,
 * Simple.  LL moves half the data per slot byte and no fence per step:
 * it wins where a step's latency rules and loses where bandwidth does. */
static const struct {
    int max_ranks;  /* the row applies up to this many ranks */
    uint64_t ll_max; /* bytes */
} ll_table[] = {
    {2, 256u << 10},
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

/* The direct all-reduce on 2 ranks (prog.c) moves as many bytes as the
 * ring (each rank sends its whole input once, where the ring sends two
 * halves) in one step where the ring takes two, so it is picked up to this
 * size; above it, the ring (each rank then reduces the whole buffer, where
 * the ring reduces half). */
#define DIRECT_MAX (256u << 10)

int pccl_pick_algo(int knob, int type, uint64_t bytes, int nranks)
{
    int applies = type == 0 && nranks == 2;
    if (!applies) return PCCL_ALGO_RING;
    if (knob != PCCL_ALGO_AUTO) return knob;
    return bytes <= DIRECT_MAX ? PCCL_ALGO_DIRECT : PCCL_ALGO_RING;
}
