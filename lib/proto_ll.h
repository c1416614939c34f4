/* The LL protocol: the flag travels with the data (NCCL's LL idea).
 *
 * The Simple protocol (scheduler.h: pccl_ready, pccl_post) sends a step as
 * data, then a release fence, then a tail counter the receiver polls: two
 * trips over the link and a fence that waits for every store of the block
 * to land.  LL instead writes each 4 data bytes together with a 4-byte flag
 * in one 8-byte store (a line), the flag being the slot's use number (the
 * sender's step counter), so a slot never needs resetting; the receiver
 * polls the lines themselves.  A unit is two lines, 8 data bytes in one
 * 16-byte store.  A slot holds half the data a Simple slot of the same size
 * would: LL is for the small and medium sizes where latency rules
 * (lib/tune.c picks it).
 *
 * Readiness stays a bounded, side-effect-free look, so every wait remains
 * preemptible: the leader sees a step's input as there once the slot's
 * first line carries the expected flag (pccl_ll_arrived).  The movers then
 * wait for each of their own lines without a bound, which ends in bounded
 * time: a line's flag is written by the sender's primitive for that step,
 * which the sender started only once its own first line had arrived (or had
 * no input), and a started primitive never waits for anything but lines of
 * an earlier-started one.  Only a peer that dies inside a primitive could
 * leave a line unwritten: the movers look at the abort flag every 1024 polls
 * and give up the data (the communicator is failed then, nothing is
 * delivered).
 *
 * The receiver still frees a slot with the head counter (posted after its
 * reads, with a fence, as in Simple): the sender may overwrite a slot only
 * once it is read.  That post lies off the receiver's critical path, and the
 * sender waits for it only when all slots are in flight.
 *
 * Plain C for the host backend and the daemon alike; the GPU's data movement
 * is lib/gpu/proto_ll.cuh, the host's lib/host/proto_ll.c.
 */
#ifndef PCCL_PROTO_LL_H
#define PCCL_PROTO_LL_H

#include "core.h"

/* The flag of a slot's use number u (a connector's send/recv step counter
 * before the step): never 0, the value of a fresh arena, and different from
 * the flag of the slot's previous uses (u - slots, u - 2 slots ... differ
 * from u by less than 2^32 - 2 for any realistic run). */
PCCL_FN uint32_t pccl_ll_flag(uint64_t u) { return 1u + (uint32_t)(u % 0xfffffffeull); }

/* Units (8 data bytes, 16 slot bytes) of a step of n elements of esize
 * bytes: at least one, so that an empty step still carries its flag. */
PCCL_FN uint64_t pccl_ll_units(uint64_t n, int esize)
{
    uint64_t b = n * (uint64_t)esize;
    return b ? (b + 7) / 8 : 1;
}

/* A line's load and store: single-copy atomic 8 bytes (the data is inside
 * the same word as its flag, so nothing else needs ordering).  On the host
 * an acquire load and a release store, as free as relaxed ones on x86, so
 * that what the receiver does after a line arrived happens after what the
 * sender did before (the data's causality on the GPU): with relaxed ones
 * ThreadSanitizer saw a test's read before rank 1 invoked race with a host
 * stream's write after the collective completed (tests/pccl/test_stream.c,
 * in 1 of 6 runs of the suite). */
#if defined(__CUDA_ARCH__)
PCCL_FN uint64_t pccl_ll_ld(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
#else
PCCL_FN uint64_t pccl_ll_ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
PCCL_FN void pccl_ll_st(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
#endif

PCCL_FN uint64_t pccl_ll_line(uint32_t data, uint32_t flag) { return (uint64_t)flag << 32 | data; }

/* The leader's look: has the sender begun the step whose slot this is? */
PCCL_FN int pccl_ll_arrived(const char *slot, uint64_t recv_step)
{
    return (uint32_t)(pccl_ll_ld((const uint64_t *)slot) >> 32) == pccl_ll_flag(recv_step);
}

#endif
