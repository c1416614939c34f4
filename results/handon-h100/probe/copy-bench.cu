// Copy throughput probe: what 64 blocks of 512 threads (the daemon's most) can copy, by method.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)
#define CHUNK (1u << 20)

template <int U, bool CS>
__global__ void k_batch(const uint4 *a, uint4 *d, size_t nchunks)
{
    const int movers = blockDim.x - 32;
    if (threadIdx.x < 32) return;
    int t = threadIdx.x - 32;
    const size_t nv = CHUNK / 16;
    for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
        const uint4 *s = a + c * nv; uint4 *o = d + c * nv;
        size_t i = t;
        for (; i + (U - 1) * movers < nv; i += U * movers) {
            uint4 x[U];
#pragma unroll
            for (int k = 0; k < U; k++) x[k] = __ldcg(s + i + k * movers);
#pragma unroll
            for (int k = 0; k < U; k++) { if (CS) __stcs(o + i + k * movers, x[k]); else o[i + k * movers] = x[k]; }
        }
        for (; i < nv; i += movers) o[i] = __ldcg(s + i);
    }
}

// Software pipelined: the next batch's loads are issued before this batch's stores.
template <int U>
__global__ void k_pipe(const uint4 *a, uint4 *d, size_t nchunks)
{
    const int movers = blockDim.x - 32;
    if (threadIdx.x < 32) return;
    int t = threadIdx.x - 32;
    const size_t nv = CHUNK / 16;
    const size_t per = (size_t)U * movers;
    for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
        const uint4 *s = a + c * nv; uint4 *o = d + c * nv;
        size_t nb = nv / per;
        uint4 x[U], y[U];
#pragma unroll
        for (int k = 0; k < U; k++) x[k] = __ldcg(s + t + k * movers);
        for (size_t b = 0; b < nb; b++) {
            size_t i = b * per + t;
            if (b + 1 < nb) {
#pragma unroll
                for (int k = 0; k < U; k++) y[k] = __ldcg(s + i + per + k * movers);
            }
#pragma unroll
            for (int k = 0; k < U; k++) o[i + k * movers] = x[k];
#pragma unroll
            for (int k = 0; k < U; k++) x[k] = y[k];
        }
        for (size_t i = nb * per + t; i < nv; i += movers) o[i] = __ldcg(s + i);
    }
}

__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// TMA bulk copies: one thread of the block moves the block's chunks through K stages of SB bytes of shared memory.
template <int K, int SB>
__global__ void k_bulk(const char *a, char *d, size_t nchunks)
{
    extern __shared__ __align__(128) char buf[];
    __shared__ __align__(8) uint64_t bar[K];
    if (threadIdx.x != 32) return;
    for (int s = 0; s < K; s++) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bar[s])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    const size_t per_chunk = CHUNK / SB;
    size_t mine = 0;
    for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x) mine++;
    const size_t n = mine * per_chunk;
    auto src = [&](size_t i) { size_t c = blockIdx.x + (i / per_chunk) * gridDim.x; return (size_t)c * CHUNK + (i % per_chunk) * SB; };
    auto load = [&](size_t i) {
        int s = i % K;
        uint32_t b = smem_u32(&bar[s]);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(SB) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_u32(buf + s * SB)),
                     "l"(a + src(i)), "r"(SB), "r"(b) : "memory");
    };
    for (size_t i = 0; i < n && i < K; i++) load(i);
    for (size_t i = 0; i < n; i++) {
        int s = i % K;
        uint32_t b = smem_u32(&bar[s]), par = (i / K) & 1, ok = 0;
        while (!ok)
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "r"(b), "r"(par) : "memory");
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(d + src(i)), "r"(smem_u32(buf + s * SB)), "r"(SB) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        if (i + K < n) {
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
            load(i + K);
        }
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}


static int g_blocks = 64, g_threads = 512;
template <int U, bool CS> static void L_batch(const void *a, void *d, size_t b, cudaStream_t s) { k_batch<U, CS><<<g_blocks, g_threads, 0, s>>>((const uint4 *)a, (uint4 *)d, b / CHUNK); }
template <int U> static void L_pipe(const void *a, void *d, size_t b, cudaStream_t s) { k_pipe<U><<<g_blocks, g_threads, 0, s>>>((const uint4 *)a, (uint4 *)d, b / CHUNK); }
template <int K, int SB> static void L_bulk(const void *a, void *d, size_t b, cudaStream_t s) { k_bulk<K, SB><<<g_blocks, g_threads, K * SB, s>>>((const char *)a, (char *)d, b / CHUNK); }
static void L_memcpy(const void *a, void *d, size_t b, cudaStream_t s) { cudaMemcpyAsync(d, a, b, cudaMemcpyDeviceToDevice, s); }
typedef void (*launch_fn)(const void *, void *, size_t, cudaStream_t);

static void timeit(const char *name, size_t bytes, int iters, launch_fn f, const void *a, void *d, cudaStream_t st, unsigned char *host)
{
    cudaMemset(d, 0, bytes);
    f(a, d, bytes, st);
    cudaError_t e = cudaStreamSynchronize(st);
    if (!e) e = cudaGetLastError();
    if (e) { printf("%s: %s\n", name, cudaGetErrorString(e)); return; }
    cudaMemcpy(host, d, bytes, cudaMemcpyDeviceToHost);
    size_t bad = 0;
    for (size_t i = 0; i < bytes; i++) bad += host[i] != (unsigned char)(i * 7 + 3);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (int i = 0; i < 5; i++) f(a, d, bytes, st);
    cudaEventRecord(e0, st);
    for (int i = 0; i < iters; i++) f(a, d, bytes, st);
    cudaEventRecord(e1, st);
    cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    float us = ms * 1000 / iters;
    printf("%-30s blocks %3d %10zu B %9.2f us %8.1f GB/s copied %s\n", name, g_blocks, bytes, us, bytes / us / 1e3, bad ? "WRONG" : "ok");
}

int main()
{
    size_t maxb = 128u << 20;
    unsigned char *host = (unsigned char *)malloc(maxb);
    for (size_t i = 0; i < maxb; i++) host[i] = (unsigned char)(i * 7 + 3);
    void *a, *d; CK(cudaMalloc(&a, maxb)); CK(cudaMalloc(&d, maxb));
    CK(cudaMemcpy(a, host, maxb, cudaMemcpyHostToDevice));
    cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaFuncSetAttribute(k_bulk<4, 32768>, cudaFuncAttributeMaxDynamicSharedMemorySize, 4 * 32768));
    CK(cudaFuncSetAttribute(k_bulk<8, 16384>, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * 16384));
    CK(cudaFuncSetAttribute(k_bulk<6, 32768>, cudaFuncAttributeMaxDynamicSharedMemorySize, 6 * 32768));
    CK(cudaFuncSetAttribute(k_bulk<2, 32768>, cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * 32768));
    CK(cudaFuncSetAttribute(k_bulk<4, 8192>, cudaFuncAttributeMaxDynamicSharedMemorySize, 4 * 8192));
    size_t sizes[] = {16u << 20, 128u << 20};
    for (int rep = 0; rep < 2; rep++)
    for (size_t bytes : sizes) {
        int it = bytes > (32u << 20) ? 50 : 200;
        g_blocks = 64;
        timeit("memcpyAsync", bytes, it, L_memcpy, a, d, st, host);
        timeit("batch U8 (daemon today)", bytes, it, L_batch<8, false>, a, d, st, host);
        timeit("batch U8 st.cs", bytes, it, L_batch<8, true>, a, d, st, host);
        timeit("batch U16", bytes, it, L_batch<16, false>, a, d, st, host);
        timeit("pipe U4", bytes, it, L_pipe<4>, a, d, st, host);
        timeit("pipe U8", bytes, it, L_pipe<8>, a, d, st, host);
        timeit("bulk 2x32K", bytes, it, L_bulk<2, 32768>, a, d, st, host);
        timeit("bulk 4x8K", bytes, it, L_bulk<4, 8192>, a, d, st, host);
        timeit("bulk 4x32K", bytes, it, L_bulk<4, 32768>, a, d, st, host);
        timeit("bulk 8x16K", bytes, it, L_bulk<8, 16384>, a, d, st, host);
        timeit("bulk 6x32K", bytes, it, L_bulk<6, 32768>, a, d, st, host);
        g_blocks = 132;
        timeit("batch U8", bytes, it, L_batch<8, false>, a, d, st, host);
        timeit("bulk 4x32K", bytes, it, L_bulk<4, 32768>, a, d, st, host);
        g_blocks = 32;
        timeit("batch U8", bytes, it, L_batch<8, false>, a, d, st, host);
        timeit("bulk 4x32K", bytes, it, L_bulk<4, 32768>, a, d, st, host);
        timeit("bulk 6x32K", bytes, it, L_bulk<6, 32768>, a, d, st, host);
    }
    return 0;
}
