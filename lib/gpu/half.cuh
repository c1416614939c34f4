/* half and bfloat16 <-> float on the GPU: CUDA's conversions (cvt), which
 * round to nearest even as core.h's plain C ones do, for the daemon's
 * arithmetic (prims.cuh).  core.h's, a branch per class of value, compiled
 * into every half step made it 5x a bfloat16 step's code, and ptxas spent
 * most of the daemon's build on them.  tests/gpu/pccl_conv_test.cu checks
 * these against core.h's on every value: equal bits, but for a NaN, whose
 * bits here are the GPU's canonical ones (as its float arithmetic's are). */
#ifndef PCCL_HALF_CUH
#define PCCL_HALF_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

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

#endif
