/* pccl-ops-test: the daemon's arithmetic layer (lib/gpu/ops.cuh) against
 * plain twins, on every value where a type has at most 2^32:
 *   - half and bfloat16 <-> float (CUDA's conversions) against core.h's plain
 *     C ones (the host backend's): the 65,536 halves and bfloat16s to float,
 *     the 2^32 floats to each;
 *   - avg's division (a shift or a product with 1/n where the rank count n
 *     is a power of two) against a plain division as lib/host/reduce.c
 *     divides, for n = 2, 3, 4, 8 and 64: every value of the 8-, 16- and
 *     32-bit types, 2^30 bit patterns and the extremes of the 64-bit ones.
 * Bits must be equal, but where the input is a NaN: then both results must
 * be NaNs (the GPU's is its canonical one).
 * Exit: 0 all equal, 1 a difference (the first printed), 2 bad arguments,
 * 77 no GPU. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/core.h"
#include "../../lib/gpu/ops.cuh"

enum { HALF_IN, BF16_IN, HALF_OUT, BF16_OUT, NCONV };
static const char *const conv_name[NCONV] = {"half -> float", "bfloat16 -> float", "float -> half",
                                             "float -> bfloat16"};
static const int divisors[] = {2, 3, 4, 8, 64};
#define NDIV (int)(sizeof divisors / sizeof divisors[0])
#define NTYPE 10
#define NCHECK (NCONV + NTYPE * NDIV)
#define WIDE_RANDOM (1ull << 30) /* bit patterns of a 64-bit type, before its extremes */

struct tally {
    unsigned long long bad[NCHECK];
    unsigned long long first[NCHECK]; /* the least input index that differs */
};

__device__ void differs(tally *t, int c, unsigned long long in)
{
    atomicAdd(&t->bad[c], 1ull);
    atomicMin(&t->first[c], in);
}

__host__ __device__ bool nan16(uint16_t v, bool bf) { return (v & 0x7fff) > (bf ? 0x7f80 : 0x7c00); }
__host__ __device__ bool nan32(uint32_t u) { return (u & 0x7fffffff) > 0x7f800000u; }
__host__ __device__ bool nan64(uint64_t u) { return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }

/* ---- conversions --------------------------------------------------------- */

__global__ void from16(tally *t)
{
    const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v > 0xffff) return;
    const uint16_t h = (uint16_t)v;
    uint32_t hw = pccl_float_bits(pccl_gpu_half_to_float(h)), sw = pccl_float_bits(pccl_half_to_float(h));
    if (hw != sw && !(nan16(h, false) && nan32(hw) && nan32(sw))) differs(t, HALF_IN, v);
    hw = pccl_float_bits(pccl_gpu_bf16_to_float(h));
    sw = pccl_float_bits(pccl_bf16_to_float(h));
    if (hw != sw && !(nan16(h, true) && nan32(hw) && nan32(sw))) differs(t, BF16_IN, v);
}

/* Every float: each thread takes a strided share of the 2^32 bit patterns. */
__global__ void to16(tally *t)
{
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t u = blockIdx.x * blockDim.x + threadIdx.x; u <= 0xffffffffull; u += stride) {
        const float f = pccl_bits_float((uint32_t)u);
        const bool nan = nan32((uint32_t)u);
        uint16_t hw = pccl_gpu_float_to_half(f), sw = pccl_float_to_half(f);
        if (hw != sw && !(nan && nan16(hw, false) && nan16(sw, false))) differs(t, HALF_OUT, u);
        hw = pccl_gpu_float_to_bf16(f);
        sw = pccl_float_to_bf16(f);
        if (hw != sw && !(nan && nan16(hw, true) && nan16(sw, true))) differs(t, BF16_OUT, u);
    }
}

/* ---- avg's division ------------------------------------------------------- */

/* The twins: a plain division, as lib/host/reduce.c divides (integers in W,
 * half and bfloat16 in float through core.h's conversions); nan(): whether
 * a value is a NaN (never, for integers). */
template <typename T, typename W> struct int_twin {
    static __device__ T div(T x, int n) { return (T)((W)x / (W)n); }
    static __device__ bool nan(T) { return false; }
};
struct float_twin {
    static __device__ float div(float x, int n) { return x / (float)n; }
    static __device__ bool nan(float x) { return nan32(pccl_float_bits(x)); }
};
struct double_twin {
    static __device__ double div(double x, int n) { return x / (double)n; }
    static __device__ bool nan(double x)
    {
        uint64_t u;
        memcpy(&u, &x, 8);
        return nan64(u);
    }
};
template <int K> struct twin16 {
    static __device__ uint16_t div(uint16_t x, int n)
    {
        float f = (K ? pccl_bf16_to_float(x) : pccl_half_to_float(x)) / (float)n;
        return K ? pccl_float_to_bf16(f) : pccl_float_to_half(f);
    }
    static __device__ bool nan(uint16_t x) { return nan16(x, K); }
};

/* The i-th value tested: the bit pattern i where the type has at most 2^32
 * values; for 64-bit types a splitmix64 pattern, then the extremes. */
__device__ uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
__constant__ uint64_t wide_extremes[] = {
    0, 1, 2, 3, 63, 64, 65, ~0ull, ~0ull - 1, 0x8000000000000000ull, 0x8000000000000001ull,
    0x7fffffffffffffffull, 0x7ffffffffffffffeull,                       /* integers */
    0x8000000000000000ull, 0x0000000000000001ull, 0x000fffffffffffffull, /* -0, subnormals */
    0x0010000000000000ull, 0x7fefffffffffffffull, 0x7ff0000000000000ull, /* least normal, max, inf */
    0xfff0000000000000ull, 0x7ff8000000000000ull, 0x3ff0000000000000ull, /* -inf, NaN, 1 */
};
#define NWIDE_EXTREMES (sizeof wide_extremes / sizeof wide_extremes[0])

template <typename T> __host__ __device__ uint64_t values_of(void)
{
    return sizeof(T) <= 4 ? 1ull << (8 * sizeof(T)) : WIDE_RANDOM + NWIDE_EXTREMES;
}

template <typename T> __device__ T value(uint64_t i)
{
    uint64_t bits = sizeof(T) <= 4 ? i : i < WIDE_RANDOM ? splitmix64(i) : wide_extremes[i - WIDE_RANDOM];
    T v;
    memcpy(&v, &bits, sizeof v); /* little endian: the low bytes */
    return v;
}

template <typename T> __device__ uint64_t bits_of(T v)
{
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}

template <typename T, typename Ops, typename Twin> __global__ void div_check(tally *t, int c, int n)
{
    const uint64_t count = values_of<T>(), stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const T x = value<T>(i), got = Ops::div(x, n), want = Twin::div(x, n);
        if (bits_of(got) != bits_of(want) && !(Twin::nan(x) && Twin::nan(got) && Twin::nan(want)))
            differs(t, c, i);
    }
}

struct type_case {
    const char *name;
    uint64_t values;
    void (*launch)(tally *t, int c, int n);
};

template <typename T, typename Ops, typename Twin> static void launch(tally *t, int c, int n)
{
    div_check<T, Ops, Twin><<<4096, 256>>>(t, c, n);
}

static const type_case types[NTYPE] = {
    {"int8", values_of<int8_t>(), launch<int8_t, pccl_int_ops<int8_t, uint8_t, int32_t>, int_twin<int8_t, int32_t> >},
    {"uint8", values_of<uint8_t>(),
     launch<uint8_t, pccl_int_ops<uint8_t, uint8_t, uint32_t>, int_twin<uint8_t, uint32_t> >},
    {"int32", values_of<int32_t>(),
     launch<int32_t, pccl_int_ops<int32_t, uint32_t, int32_t>, int_twin<int32_t, int32_t> >},
    {"uint32", values_of<uint32_t>(),
     launch<uint32_t, pccl_int_ops<uint32_t, uint32_t, uint32_t>, int_twin<uint32_t, uint32_t> >},
    {"int64", values_of<int64_t>(),
     launch<int64_t, pccl_int_ops<int64_t, uint64_t, int64_t>, int_twin<int64_t, int64_t> >},
    {"uint64", values_of<uint64_t>(),
     launch<uint64_t, pccl_int_ops<uint64_t, uint64_t, uint64_t>, int_twin<uint64_t, uint64_t> >},
    {"half", values_of<uint16_t>(), launch<uint16_t, pccl_16_ops<0>, twin16<0> >},
    {"float32", values_of<float>(), launch<float, pccl_float_ops<float>, float_twin>},
    {"float64", values_of<double>(), launch<double, pccl_float_ops<double>, double_twin>},
    {"bfloat16", values_of<uint16_t>(), launch<uint16_t, pccl_16_ops<1>, twin16<1> >},
};

static int cuda_ok(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 1;
    fprintf(stderr, "pccl-ops-test: %s: %s\n", what, cudaGetErrorString(e));
    return 0;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: pccl-ops-test\n"
                   "  The daemon's arithmetic layer (lib/gpu/ops.cuh) against plain twins: half and\n"
                   "  bfloat16 <-> float against lib/core.h's on every value (2^32 floats), avg's\n"
                   "  division by 2, 3, 4, 8 and 64 ranks against a plain division on every value of\n"
                   "  the 8- to 32-bit types, 2^30 patterns and the extremes of the 64-bit ones.\n"
                   "Exit: 0 all equal (NaN: both NaN), 1 a difference, 2 bad arguments, 77 no GPU.\n");
            return 0;
        }
        fprintf(stderr, "pccl-ops-test: unknown argument '%s' (see --help)\n", argv[i]);
        return 2;
    }
    int ngpu = 0;
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu == 0) {
        printf("pccl-ops-test: skipped: no GPU\n");
        return 77;
    }
    tally init, got, *d = NULL;
    for (int c = 0; c < NCHECK; c++) init.bad[c] = 0, init.first[c] = ~0ull;
    if (!cuda_ok(cudaMalloc((void **)&d, sizeof *d), "cudaMalloc") ||
        !cuda_ok(cudaMemcpy(d, &init, sizeof init, cudaMemcpyHostToDevice), "cudaMemcpy"))
        return 1;
    from16<<<256, 256>>>(d);
    to16<<<4096, 256>>>(d);
    for (int t = 0; t < NTYPE; t++)
        for (int k = 0; k < NDIV; k++) types[t].launch(d, NCONV + t * NDIV + k, divisors[k]);
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
    for (int t = 0; t < NTYPE; t++) {
        int bad = 0;
        for (int k = 0; k < NDIV; k++) {
            const int c = NCONV + t * NDIV + k;
            if (got.bad[c] == 0) continue;
            bad = rc = 1;
            printf("FAIL avg %-9s / %2d: %llu of %llu values differ, the first the value numbered %llu\n",
                   types[t].name, divisors[k], got.bad[c], (unsigned long long)types[t].values, got.first[c]);
        }
        if (!bad)
            printf("ok   avg %-9s / 2, 3, 4, 8, 64: %llu values each, every one equal\n", types[t].name,
                   (unsigned long long)types[t].values);
    }
    printf("RESULT pccl-ops-test outcome=%s\n", rc ? "DIFFER" : "EQUAL");
    cudaFree(d);
    return rc;
}
