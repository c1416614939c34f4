/* What a read of each clock costs the daemon's leader thread (cut.h, "The check's clock"):
 * one thread per block reads %globaltimer, or the SM's cycle counter, N times in a row, each
 * read's value folded into the next iteration's so none is dropped; blocks 1 and 132 (one per SM
 * of an H200) at once.  Prints ns per read (globaltimer's own elapsed time over N).
 * Build: nvcc -O2 -arch=sm_90 -o clockread clockread.cu */
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned long long gt(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <int KIND>
__global__ void reads(int n, unsigned long long *out)
{
    unsigned long long acc = 0, t0 = gt();
    for (int i = 0; i < n; i++) {
        unsigned long long v = KIND == 0 ? gt() : (unsigned long long)clock64();
        acc += v & 1;
        if (v == 42) n++; /* a compare and branch, as a check makes */
    }
    unsigned long long t1 = gt();
    if (threadIdx.x == 0) out[2 * blockIdx.x] = t1 - t0, out[2 * blockIdx.x + 1] = acc;
}

int main(void)
{
    const int n = 1 << 20;
    unsigned long long *d, h[2 * 132];
    cudaMalloc(&d, sizeof h);
    for (int rep = 0; rep < 3; rep++)
        for (int blocks = 1; blocks <= 132; blocks += 131)
            for (int kind = 0; kind < 2; kind++) {
                if (kind == 0) reads<0><<<blocks, 1>>>(n, d);
                else reads<1><<<blocks, 1>>>(n, d);
                if (cudaDeviceSynchronize() != cudaSuccess) { printf("kernel failed\n"); return 1; }
                cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
                double worst = 0;
                for (int b = 0; b < blocks; b++) worst = h[2 * b] > worst ? h[2 * b] : worst;
                printf("round %d, %3d blocks, %-11s %.2f ns per read (slowest block)\n", rep, blocks,
                       kind == 0 ? "globaltimer" : "clock64", worst / n);
            }
    return 0;
}
