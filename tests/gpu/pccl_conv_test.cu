/* pccl-conv-test: the daemon's half and bfloat16 conversions (CUDA's,
 * lib/gpu/half.cuh) against core.h's plain C ones (the host
 * backend's, and the twin written first), on every value: the 65,536 halves
 * and bfloat16s to float, every one of the 2^32 floats to half and to
 * bfloat16.  Bits must be equal, but where the input is a NaN: then both
 * results must be NaNs (the GPU's is its canonical one).
 * Exit: 0 all equal, 1 a difference (the first printed), 2 bad arguments,
 * 77 no GPU. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/core.h"
#include "../../lib/gpu/half.cuh"

enum { HALF_IN, BF16_IN, HALF_OUT, BF16_OUT, NCONV };
static const char *const conv_name[NCONV] = {"half -> float", "bfloat16 -> float", "float -> half",
                                             "float -> bfloat16"};

struct tally {
    unsigned long long bad[NCONV];
    unsigned long long first[NCONV]; /* the least input that differs */
};

__device__ bool is_nan16(uint16_t v, bool bf) { return bf ? (v & 0x7fff) > 0x7f80 : (v & 0x7fff) > 0x7c00; }
__device__ bool is_nan32(uint32_t u) { return (u & 0x7fffffff) > 0x7f800000u; }

__device__ void differs(tally *t, int c, unsigned long long in)
{
    atomicAdd(&t->bad[c], 1ull);
    atomicMin(&t->first[c], in);
}

__global__ void from16(tally *t)
{
    const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v > 0xffff) return;
    const uint16_t h = (uint16_t)v;
    uint32_t hw = pccl_float_bits(pccl_gpu_half_to_float(h));
    uint32_t sw = pccl_float_bits(pccl_half_to_float(h));
    if (hw != sw && !(is_nan16(h, false) && is_nan32(hw) && is_nan32(sw))) differs(t, HALF_IN, v);
    hw = pccl_float_bits(pccl_gpu_bf16_to_float(h));
    sw = pccl_float_bits(pccl_bf16_to_float(h));
    if (hw != sw && !(is_nan16(h, true) && is_nan32(hw) && is_nan32(sw))) differs(t, BF16_IN, v);
}

/* Every float: each thread takes a strided share of the 2^32 bit patterns. */
__global__ void to16(tally *t)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t u = blockIdx.x * blockDim.x + threadIdx.x; u <= 0xffffffffull; u += stride) {
        const float f = pccl_bits_float((uint32_t)u);
        const bool nan = is_nan32((uint32_t)u);
        uint16_t hw = pccl_gpu_float_to_half(f), sw = pccl_float_to_half(f);
        if (hw != sw && !(nan && is_nan16(hw, false) && is_nan16(sw, false))) differs(t, HALF_OUT, u);
        hw = pccl_gpu_float_to_bf16(f);
        sw = pccl_float_to_bf16(f);
        if (hw != sw && !(nan && is_nan16(hw, true) && is_nan16(sw, true))) differs(t, BF16_OUT, u);
    }
}

static int cuda_ok(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 1;
    fprintf(stderr, "pccl-conv-test: %s: %s\n", what, cudaGetErrorString(e));
    return 0;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: pccl-conv-test\n"
                   "  The daemon's half and bfloat16 conversions (CUDA's) against lib/core.h's on\n"
                   "  every value: 2^16 halves and bfloat16s to float, 2^32 floats to each.\n"
                   "Exit: 0 all equal (NaN: both NaN), 1 a difference, 2 bad arguments, 77 no GPU.\n");
            return 0;
        }
        fprintf(stderr, "pccl-conv-test: unknown argument '%s' (see --help)\n", argv[i]);
        return 2;
    }
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("pccl-conv-test: skipped: no GPU\n");
        return 77;
    }
    tally init, got, *d = NULL;
    for (int c = 0; c < NCONV; c++) init.bad[c] = 0, init.first[c] = ~0ull;
    if (!cuda_ok(cudaMalloc((void **)&d, sizeof *d), "cudaMalloc") ||
        !cuda_ok(cudaMemcpy(d, &init, sizeof init, cudaMemcpyHostToDevice), "cudaMemcpy"))
        return 1;
    from16<<<256, 256>>>(d);
    to16<<<4096, 256>>>(d);
    if (!cuda_ok(cudaGetLastError(), "launch") || !cuda_ok(cudaDeviceSynchronize(), "the kernels") ||
        !cuda_ok(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return 1;
    int rc = 0;
    for (int c = 0; c < NCONV; c++) {
        const unsigned long long values = c < HALF_OUT ? 1ull << 16 : 1ull << 32;
        if (got.bad[c] == 0) {
            printf("ok   %-18s %llu values, every one equal\n", conv_name[c], values);
            continue;
        }
        rc = 1;
        printf("FAIL %-18s %llu of %llu values differ, the first 0x%llx\n", conv_name[c], got.bad[c], values,
               got.first[c]);
    }
    printf("RESULT pccl-conv-test outcome=%s\n", rc ? "DIFFER" : "EQUAL");
    cudaFree(d);
    return rc;
}
