/* The arithmetic layer: each data type's reduction ops, avg's division and
 * half and bfloat16 <-> float, for the primitives (prims.cuh,
 * proto_ll.cuh).  Arithmetic matches lib/host/reduce.c's bit for bit but for
 * a NaN's bits (the GPU's are its canonical ones); tests/gpu/pccl_ops_test.cu
 * checks the conversions and the divisions against plain twins on every
 * value of the 32-bit and smaller types. */
#ifndef PCCL_OPS_CUH
#define PCCL_OPS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <type_traits>

/* half and bfloat16 <-> float by CUDA's conversions (cvt), which round to
 * nearest even as core.h's plain C ones do.  core.h's, a branch per class of
 * value, compiled into every half step made it 5x a bfloat16 step's code
 * (ptxas spent most of the daemon's build on them), and bound a half
 * reduction: 2 ranks sharing one H200, a 128 MiB all-reduce back to back
 * 594-605 us against float's 295-297 (results/half-h200). */
__device__ __forceinline__ float pccl_gpu_half_to_float(uint16_t v) { return __half2float(__ushort_as_half(v)); }
__device__ __forceinline__ uint16_t pccl_gpu_float_to_half(float f) { return __half_as_ushort(__float2half_rn(f)); }
__device__ __forceinline__ float pccl_gpu_bf16_to_float(uint16_t v)
{
    return __bfloat162float(__ushort_as_bfloat16(v));
}
__device__ __forceinline__ uint16_t pccl_gpu_float_to_bf16(float f)
{
    return __bfloat16_as_ushort(__float2bfloat16_rn(f));
}

/* avg's division by the rank count n.  Where n is a power of two, as most
 * rank counts are, it is a shift (integers; a negative one biased first, to
 * round toward zero as C's division does) or a product with 1/n, built from
 * its bits (floats: the exact quotient and the exact product are one real
 * number, rounded once, so the bits are equal); else the division itself.
 * A division per element bound avg: 2 ranks sharing one H200, 128 MiB back
 * to back, bfloat16 and half 640 us against sum's 328, float 439-497
 * against 326, int8 537 against 352 (results/half-h200, call 2; the
 * primitive that divides: prims.cuh, PCCL_DIV_UNROLL). */
__device__ __forceinline__ bool pccl_pow2(int n) { return (n & (n - 1)) == 0; }
__device__ __forceinline__ int pccl_log2(int n) { return __ffs(n) - 1; }
template <typename T> __device__ __forceinline__ T pccl_inv_pow2(int n);
template <> __device__ __forceinline__ float pccl_inv_pow2<float>(int n)
{
    return __int_as_float((127 - pccl_log2(n)) << 23);
}
template <> __device__ __forceinline__ double pccl_inv_pow2<double>(int n)
{
    return __longlong_as_double((long long)(1023 - pccl_log2(n)) << 52);
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
    static __device__ __forceinline__ T div(T x, int n)
    {
        if (!pccl_pow2(n)) return (T)((W)x / (W)n);
        W w = (W)x;
        if (std::is_signed<W>::value && w < 0) w += (W)(n - 1);
        return (T)(w >> pccl_log2(n));
    }
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
    static __device__ __forceinline__ T div(T x, int n)
    {
        return pccl_pow2(n) ? x * pccl_inv_pow2<T>(n) : x / (T)n;
    }
};

/* half (K=0) and bfloat16 (K=1) as 16-bit words, reduced in float. */
template <int K> struct pccl_16_ops {
    static __device__ __forceinline__ float in(uint16_t v)
    {
        return K ? pccl_gpu_bf16_to_float(v) : pccl_gpu_half_to_float(v);
    }
    static __device__ __forceinline__ uint16_t out(float v)
    {
        return K ? pccl_gpu_float_to_bf16(v) : pccl_gpu_float_to_half(v);
    }
    static __device__ __forceinline__ uint16_t op(int o, uint16_t x, uint16_t y)
    {
        return out(pccl_float_ops<float>::op(o, in(x), in(y)));
    }
    static __device__ __forceinline__ uint16_t div(uint16_t x, int n)
    {
        return out(pccl_float_ops<float>::div(in(x), n));
    }
};

#endif
