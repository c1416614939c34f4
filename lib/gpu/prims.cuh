/* Primitives layer: one block moves (and reduces) one chunk.
 *
 * Above it, lib/scheduler.h decides which primitive of which collective runs;
 * lib/prog.c says what each collective's primitives are (the algorithm); the
 * connectors' slot and flag protocol (Simple) is in scheduler.h's wait and
 * commit.  Here only the data moves: every thread of the block takes a strided
 * share of the elements.  Connector slots are written by a peer GPU, so they
 * are read around L1 (ld.global.cg): a line cached from an earlier use of the
 * slot must not be seen.  Arithmetic matches lib/host/reduce.c exactly
 * (integers wrap, half and bfloat16 are reduced in float and rounded to
 * nearest even by the same functions). */
#ifndef PCCL_PRIMS_CUH
#define PCCL_PRIMS_CUH

#include "../scheduler.h"

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

/* Plain types: W is the type to compare and divide in, U the unsigned twin
 * for wrapping sum and product. */
template <typename T, typename U, typename W> struct pccl_int_ops {
    static __device__ __forceinline__ T op(int o, T x, T y)
    {
        switch (o) {
        case 1: return (T)(U)((U)x * (U)y);
        case 2: return (W)x > (W)y ? x : y;
        case 3: return (W)x < (W)y ? x : y;
        default: return (T)(U)((U)x + (U)y);
        }
    }
    static __device__ __forceinline__ T div(T x, int n) { return (T)((W)x / (W)n); }
};

template <typename T> struct pccl_float_ops {
    static __device__ __forceinline__ T op(int o, T x, T y)
    {
        switch (o) {
        case 1: return x * y;
        case 2: return x > y ? x : y;
        case 3: return x < y ? x : y;
        default: return x + y;
        }
    }
    static __device__ __forceinline__ T div(T x, int n) { return x / (T)n; }
};

/* half (K=0) and bfloat16 (K=1) as 16-bit words. */
template <int K> struct pccl_16_ops {
    static __device__ __forceinline__ float in(uint16_t v) { return K ? pccl_bf16_to_float(v) : pccl_half_to_float(v); }
    static __device__ __forceinline__ uint16_t out(float v) { return K ? pccl_float_to_bf16(v) : pccl_float_to_half(v); }
    static __device__ __forceinline__ uint16_t op(int o, uint16_t x, uint16_t y)
    {
        return out(pccl_float_ops<float>::op(o, in(x), in(y)));
    }
    static __device__ __forceinline__ uint16_t div(uint16_t x, int n) { return out(in(x) / (float)n); }
};

template <typename T, typename Ops> __device__ void pccl_prim(const pccl_job *j)
{
    const T *a = (const T *)j->a, *b = (const T *)j->b;
    T *d0 = (T *)j->d0, *d1 = (T *)j->d1;
    const uint64_t n = j->n;
    const int op = j->op, dv = j->div;
    for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) {
        T v;
        if (a && b) v = Ops::op(op, pccl_ld_peer(a + i), b[i]);
        else v = a ? pccl_ld_peer(a + i) : b[i];
        if (dv) v = Ops::div(v, dv);
        if (d0) d0[i] = v;
        if (d1) d1[i] = v;
    }
}

__device__ __forceinline__ void pccl_gpu_exec(const pccl_job *j)
{
    switch (j->dtype) {
    case 0: pccl_prim<int8_t, pccl_int_ops<int8_t, uint8_t, int32_t> >(j); break;
    case 1: pccl_prim<uint8_t, pccl_int_ops<uint8_t, uint8_t, uint32_t> >(j); break;
    case 2: pccl_prim<int32_t, pccl_int_ops<int32_t, uint32_t, int32_t> >(j); break;
    case 3: pccl_prim<uint32_t, pccl_int_ops<uint32_t, uint32_t, uint32_t> >(j); break;
    case 4: pccl_prim<int64_t, pccl_int_ops<int64_t, uint64_t, int64_t> >(j); break;
    case 5: pccl_prim<uint64_t, pccl_int_ops<uint64_t, uint64_t, uint64_t> >(j); break;
    case 6: pccl_prim<uint16_t, pccl_16_ops<0> >(j); break;
    case 7: pccl_prim<float, pccl_float_ops<float> >(j); break;
    case 8: pccl_prim<double, pccl_float_ops<double> >(j); break;
    case 9: pccl_prim<uint16_t, pccl_16_ops<1> >(j); break;
    }
}

#endif
