// Hand-on microbench: one thread writes 63 entries into 63 per-block queues.
#include <cstdio>
#include <cstdint>
__device__ __forceinline__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
struct Sblk { uint64_t dtail[64]; uint32_t dslot[64]; };
template <int MODE>
__global__ void k(uint64_t *dsq, int depth, int reps, unsigned long long *out)
{
    __shared__ Sblk S;
    if (threadIdx.x < 64) { S.dtail[threadIdx.x] = 0; S.dslot[threadIdx.x] = 0; }
    __syncthreads();
    if (MODE == 5) { // warp-parallel
        if (threadIdx.x >= 32) return;
        unsigned long long t0 = gt();
        for (int r = 0; r < reps; r++) {
            for (int o = 1 + threadIdx.x; o < 64; o += 32) {
                uint64_t e = S.dtail[o]++; uint32_t s = S.dslot[o]; S.dslot[o] = s + 1 == (uint32_t)depth ? 0 : s + 1;
                uint64_t v = ((e + 1) & 0xffffffffull) << 32 | (uint32_t)o;
                asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(dsq + (size_t)o * depth + s), "l"(v) : "memory");
            }
            __syncwarp();
        }
        if (threadIdx.x == 0) out[0] = (gt() - t0) / reps;
        return;
    }
    if (threadIdx.x != 0) return;
    unsigned long long t0 = gt();
    for (int r = 0; r < reps; r++) {
        for (int o = 1; o < 64; o++) {
            uint64_t e; uint32_t s;
            if (MODE == 3) { e = (uint64_t)r; s = (uint32_t)(r % depth); }
            else { e = S.dtail[o]++; s = S.dslot[o]; S.dslot[o] = s + 1 == (uint32_t)depth ? 0 : s + 1; }
            uint64_t v = ((e + 1) & 0xffffffffull) << 32 | (uint32_t)o;
            uint64_t *p = dsq + (size_t)o * depth + s;
            if (MODE == 0 || MODE == 3) asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
            if (MODE == 1) asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(p), "l"(v));
            if (MODE == 2) *p = v;
            if (MODE == 4) asm volatile("st.volatile.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
            if (MODE == 6) asm volatile("st.release.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
            if (MODE == 7) asm volatile("st.global.relaxed.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
            if (MODE == 8) asm volatile("st.global.relaxed.gpu.u64 [%0], %1;" ::"l"(p), "l"(v));
        }
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
    out[MODE] = (gt() - t0) / reps;
}
// batched: 8 tails read into registers, then 8 stores
__global__ void kb(uint64_t *dsq, int depth, int reps, unsigned long long *out)
{
    __shared__ Sblk S;
    if (threadIdx.x < 64) { S.dtail[threadIdx.x] = 0; S.dslot[threadIdx.x] = 0; }
    __syncthreads();
    if (threadIdx.x != 0) return;
    unsigned long long t0 = gt();
    for (int r = 0; r < reps; r++) {
        for (int o0 = 1; o0 < 64; o0 += 8) {
            uint64_t e[8]; uint32_t s[8];
#pragma unroll
            for (int k = 0; k < 8; k++) if (o0 + k < 64) { e[k] = S.dtail[o0 + k]; s[k] = S.dslot[o0 + k]; }
#pragma unroll
            for (int k = 0; k < 8; k++) if (o0 + k < 64) {
                int o = o0 + k;
                S.dtail[o] = e[k] + 1; S.dslot[o] = s[k] + 1 == (uint32_t)depth ? 0 : s[k] + 1;
                uint64_t v = ((e[k] + 1) & 0xffffffffull) << 32 | (uint32_t)o;
                asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(dsq + (size_t)o * depth + s[k]), "l"(v) : "memory");
            }
        }
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
    out[0] = (gt() - t0) / reps;
}
int main()
{
    uint64_t *dsq; unsigned long long *out, h[8] = {0};
    int depth = 64;
    cudaMalloc(&dsq, 64 * depth * 8); cudaMalloc(&out, 128); cudaMemset(out, 0, 128);
    for (int pass = 0; pass < 2; pass++) {
        k<0><<<1, 512>>>(dsq, depth, 1000, out); k<1><<<1, 512>>>(dsq, depth, 1000, out); k<2><<<1, 512>>>(dsq, depth, 1000, out);
        k<3><<<1, 512>>>(dsq, depth, 1000, out); k<4><<<1, 512>>>(dsq, depth, 1000, out); k<6><<<1, 512>>>(dsq, depth, 1000, out);
        cudaDeviceSynchronize(); cudaMemcpy(h, out, 64, cudaMemcpyDeviceToHost);
        unsigned long long w; k<5><<<1, 512>>>(dsq, depth, 1000, out + 7); cudaDeviceSynchronize(); cudaMemcpy(&w, out + 7, 8, cudaMemcpyDeviceToHost);
        unsigned long long g[2]; k<7><<<1, 512>>>(dsq, depth, 1000, out); cudaDeviceSynchronize(); cudaMemcpy(g, out + 7, 8, cudaMemcpyDeviceToHost);
        k<8><<<1, 512>>>(dsq, depth, 1000, out); cudaDeviceSynchronize(); cudaMemcpy(g + 1, out + 8, 8, cudaMemcpyDeviceToHost);
        unsigned long long bb; kb<<<1, 512>>>(dsq, depth, 1000, out); cudaDeviceSynchronize(); cudaMemcpy(&bb, out, 8, cudaMemcpyDeviceToHost);
        printf("st.global.relaxed.gpu+clobber %llu, loose %llu, batched 8 %llu\n", g[0], g[1], bb);
        printf("ns per 63-entry hand-on: relaxed.gpu+clobber %llu, relaxed.gpu loose %llu, weak %llu, no shared %llu, volatile %llu, release.gpu %llu, warp-parallel %llu (%s)\n",
               h[0], h[1], h[2], h[3], h[4], h[6], w, cudaGetErrorString(cudaGetLastError()));
    }
    return 0;
}
