/* Primitives layer: one block moves (and reduces) one chunk.
 *
 * Above it, lib/scheduler.h decides which primitive of which collective runs;
 * lib/prog.c says what each collective's primitives are (the algorithm); the
 * connectors' slot and flag protocol is Simple's (scheduler.h's pccl_ready
 * and pccl_post) or LL's (lib/proto_ll.h; its data movement in
 * proto_ll.cuh, chosen per step by pccl_gpu_exec).  Here only the data
 * moves: every mover thread takes a strided share of the elements.  Connector slots are written by a peer GPU, so they
 * are read around L1 (ld.global.cg): a line cached from an earlier use of the
 * slot must not be seen.  Arithmetic matches lib/host/reduce.c exactly
 * (integers wrap, half and bfloat16 are reduced in float and rounded to
 * nearest even: the host by core.h's functions, the GPU by CUDA's, which
 * agree on every value but a NaN's bits; ops.cuh). */
#ifndef PCCL_PRIMS_CUH
#define PCCL_PRIMS_CUH

#include "../scheduler.h"
#include "ops.cuh"

/* The block's first warp schedules; threads from here on move data (the
 * movers: daemon.cu's PCCL_MOVER), each a strided share of the elements. */
#define PCCL_CTRL_THREADS 32

template <typename T> __device__ __forceinline__ T pccl_ld_peer(const T *p) { return __ldcg(p); }
template <> __device__ __forceinline__ int8_t pccl_ld_peer(const int8_t *p)
{
    return (int8_t)__ldcg((const signed char *)p);
}
template <> __device__ __forceinline__ uint8_t pccl_ld_peer(const uint8_t *p)
{
    return (uint8_t)__ldcg((const unsigned char *)p);
}
template <> __device__ __forceinline__ uint64_t pccl_ld_peer(const uint64_t *p)
{
    return (uint64_t)__ldcg((const unsigned long long *)p);
}
template <> __device__ __forceinline__ int64_t pccl_ld_peer(const int64_t *p)
{
    return (int64_t)__ldcg((const long long *)p);
}

/* One element: reduce (or copy), divide, store; sw: op(y, x) (PCCL_SWAP). */
template <typename T, typename Ops>
__device__ __forceinline__ T pccl_elem(int op, int dv, bool has_a, bool has_b, bool sw, T x, T y)
{
    T v = has_a && has_b ? Ops::op(op, sw ? y : x, sw ? x : y) : has_a ? x : y;
    return dv ? Ops::div(v, dv) : v;
}

/* 16 bytes at a time where every buffer is 16-byte aligned (a slot always
 * is: chunks are multiples of 16 elements), one element at a time for the
 * rest: one thread's 16-byte access is a single NVLink transaction where four
 * 4-byte ones are four.  Each thread first loads U vectors, then reduces and
 * stores them: the loads of one batch are in flight together, where a
 * load-reduce-store loop waits out one memory latency per vector (the
 * stores may alias the next loads, so the compiler cannot overlap
 * iterations by itself).  OP, HA, HB (the operation, the operands present)
 * are fixed per instantiation: the batch holds only what it needs in
 * registers, and no switch is compiled into every element.
 * A copy (one operand) of two batches of PCCL_COPY_UNROLL per thread or
 * more goes that wide, in a frame of its own: on one H100 it took one
 * rank's 8 and 32 MiB all-reduce from 17.4-17.8 to 16.4-16.9 us and from
 * 48.2-48.5 to 44.5-45.6 back to back, and two ranks' 32 MiB on one GPU
 * from 182.5-185.1 to 174.6-178.5, smaller sizes unchanged.  Reductions stay at 4:
 * at 8, two operands spilled, and two ranks' 32 MiB took 210 us.  With
 * every copy 8 wide in one frame, small ones got slower (32 KiB one rank
 * back to back 4.4-4.8 against 4.0-4.3 us).
 * (results/hostpath/one-rank-blocks.md, "Wider copies".) */
#ifndef PCCL_UNROLL
#define PCCL_UNROLL 4
#endif
#ifndef PCCL_COPY_UNROLL
#define PCCL_COPY_UNROLL 8
#endif
/* Only avg's last step divides (ops.cuh), in a primitive of its own: sum,
 * prod, max and min keep no divisor, and the dividing one reduces 2 vectors
 * a batch, where at 4 ptxas spilled 50-112 bytes a thread.  2 ranks sharing
 * one H200, 128 MiB back to back, against every reduction in one primitive
 * that divided where the job said so: avg 0.53-1.01x the time (bfloat16
 * 638 -> 341 us, int8 537 -> 407, int64 334 -> 337), the others 0.86-1.00x
 * (int8 sum 350 -> 309); at 4 vectors a batch the dividing one made avg
 * 3-11% slower than at 2 (results/half-h200, calls 5-6). */
#ifndef PCCL_DIV_UNROLL
#define PCCL_DIV_UNROLL 2
#endif

/* Whole batches of U vectors from vector i (this thread's first) on;
 * returns the thread's next vector. */
template <typename T, typename Ops, int OP, bool HA, bool HB, bool DV, int U>
__device__ __forceinline__ uint64_t pccl_vec_batches(const pccl_job *j, uint64_t i, uint64_t nv, uint64_t stride)
{
    constexpr int L = 16 / sizeof(T);
    union vec { uint4 u; T e[L]; };
    const uint4 *a = (const uint4 *)j->a, *b = (const uint4 *)j->b;
    uint4 *d0 = (uint4 *)j->d0, *d1 = (uint4 *)j->d1;
    const int dv = DV ? j->div : 0;
    const bool sw = j->swap;
    for (; i + (U - 1) * stride < nv; i += U * stride) {
        vec x[U], y[U];
#pragma unroll
        for (int k = 0; k < U; k++) {
            if (HA) x[k].u = __ldcg(a + i + k * stride);
            if (HB) y[k].u = b[i + k * stride];
        }
#pragma unroll
        for (int k = 0; k < U; k++) {
#pragma unroll
            for (int e = 0; e < L; e++) x[k].e[e] = pccl_elem<T, Ops>(OP, dv, HA, HB, sw, x[k].e[e], y[k].e[e]);
            if (d0) d0[i + k * stride] = x[k].u;
            if (d1) d1[i + k * stride] = x[k].u;
        }
    }
    return i;
}

/* A job's vectors: batches of U, then of PCCL_UNROLL, then one at a time.
 * Its own frame per U: the wider copy's registers do not crowd the
 * narrower one, which small jobs run as before.  DV: the job may divide
 * (avg's last step), by j->div; else nothing is divided. */
template <typename T, typename Ops, int OP, bool HA, bool HB, bool DV, int U>
__device__ __noinline__ uint64_t pccl_prim_vec(const pccl_job *j)
{
    constexpr int L = 16 / sizeof(T);
    const uint64_t nv = j->n / L, stride = blockDim.x - PCCL_CTRL_THREADS;
    uint64_t i = pccl_vec_batches<T, Ops, OP, HA, HB, DV, U>(j, threadIdx.x - PCCL_CTRL_THREADS, nv, stride);
    if (U > PCCL_UNROLL) i = pccl_vec_batches<T, Ops, OP, HA, HB, DV, PCCL_UNROLL>(j, i, nv, stride);
    pccl_vec_batches<T, Ops, OP, HA, HB, DV, 1>(j, i, nv, stride); /* the last, partial batch */
    return nv * L;
}

/* A copy (one operand) of at least two batches of PCCL_COPY_UNROLL per
 * thread goes that wide.  Only a copy that divides nothing: compiled in
 * beside the wide batch, the division (avg's last step) left ptxas too few
 * of the daemon's 64 registers a thread, and its spills in this frame moved
 * with unrelated changes to the scheduler (one rank's 128 MiB all-reduce,
 * 8 wide, 110 us with one allocation, 122-125 with others, on one H100). */
template <typename T, typename Ops, bool HA, bool HB> __device__ __forceinline__ uint64_t pccl_copy_vec(const pccl_job *j)
{
    const uint64_t nv = j->n / (16 / sizeof(T)), stride = blockDim.x - PCCL_CTRL_THREADS;
    if (j->div) return pccl_prim_vec<T, Ops, 0, HA, HB, true, PCCL_UNROLL>(j);
    if (nv >= 2 * PCCL_COPY_UNROLL * stride) return pccl_prim_vec<T, Ops, 0, HA, HB, false, PCCL_COPY_UNROLL>(j);
    return pccl_prim_vec<T, Ops, 0, HA, HB, false, PCCL_UNROLL>(j);
}

template <typename T, typename Ops> __device__ void pccl_prim(const pccl_job *j)
{
    const T *a = (const T *)j->a, *b = (const T *)j->b;
    T *d0 = (T *)j->d0, *d1 = (T *)j->d1;
    const uint64_t n = j->n;
    const int op = j->op, dv = j->div;
    uint64_t done = 0;
    if ((((uintptr_t)a | (uintptr_t)b | (uintptr_t)d0 | (uintptr_t)d1) & 15) == 0) {
        constexpr int U = PCCL_UNROLL;
        if (!a) done = pccl_copy_vec<T, Ops, false, true>(j); /* a copy: the op does not matter */
        else if (!b) done = pccl_copy_vec<T, Ops, true, false>(j);
        else switch (op) {
        case 1: done = pccl_prim_vec<T, Ops, 1, true, true, false, U>(j); break;
        case 2: done = pccl_prim_vec<T, Ops, 2, true, true, false, U>(j); break;
        case 3: done = pccl_prim_vec<T, Ops, 3, true, true, false, U>(j); break;
        default: /* sum, and avg's sum */
            done = j->div ? pccl_prim_vec<T, Ops, 0, true, true, true, PCCL_DIV_UNROLL>(j)
                          : pccl_prim_vec<T, Ops, 0, true, true, false, U>(j);
            break;
        }
    }
    for (uint64_t i = done + threadIdx.x - PCCL_CTRL_THREADS; i < n; i += blockDim.x - PCCL_CTRL_THREADS) {
        T x = a ? pccl_ld_peer(a + i) : T(), y = b ? b[i] : T();
        T v = pccl_elem<T, Ops>(op, dv, a != NULL, b != NULL, j->swap, x, y);
        if (d0) d0[i] = v;
        if (d1) d1[i] = v;
    }
}

#include "proto_ll.cuh"
#include "multi.cuh"

/* The step's primitive for its data type, in its protocol's layout. */
template <typename T, typename Ops> __device__ __forceinline__ void pccl_prim_proto(const pccl_job *j)
{
    /* PCCL_GATHER (multi.cuh) as before the mesh, and the mesh's steps only
     * in its daemon (PCCL_MESH_ON): in the other, in its place or beside
     * it, they made ptxas spill more in the daemon's loop (-Xptxas -v),
     * and cost the direct all-reduce 1.2 us on 4 ranks (results/mesh-x2/,
     * call 4) */
    if (j->g_n) pccl_gather_prim<T, Ops>(j);
#if PCCL_MESH_ON
    else if (j->m_kind) pccl_multi_prim<T, Ops>(j);
#endif
    else if (j->ll) pccl_ll_prim<T, Ops>(j);
    else pccl_prim<T, Ops>(j);
}

__device__ __forceinline__ void pccl_gpu_exec(const pccl_job *j)
{
    switch (j->dtype) {
    case 0: pccl_prim_proto<int8_t, pccl_int_ops<int8_t, uint8_t, int32_t> >(j); break;
    case 1: pccl_prim_proto<uint8_t, pccl_int_ops<uint8_t, uint8_t, uint32_t> >(j); break;
    case 2: pccl_prim_proto<int32_t, pccl_int_ops<int32_t, uint32_t, int32_t> >(j); break;
    case 3: pccl_prim_proto<uint32_t, pccl_int_ops<uint32_t, uint32_t, uint32_t> >(j); break;
    case 4: pccl_prim_proto<int64_t, pccl_int_ops<int64_t, uint64_t, int64_t> >(j); break;
    case 5: pccl_prim_proto<uint64_t, pccl_int_ops<uint64_t, uint64_t, uint64_t> >(j); break;
    case 6: pccl_prim_proto<uint16_t, pccl_16_ops<0> >(j); break;
    case 7: pccl_prim_proto<float, pccl_float_ops<float> >(j); break;
    case 8: pccl_prim_proto<double, pccl_float_ops<double> >(j); break;
    case 9: pccl_prim_proto<uint16_t, pccl_16_ops<1> >(j); break;
    }
}

#endif
