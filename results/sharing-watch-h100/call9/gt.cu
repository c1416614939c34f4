// What one read of %globaltimer costs an SM thread, against clock64 (cycles), and the
// globaltimer's step (its resolution), on the GPU this runs on.
#include <cstdio>
__global__ void k(unsigned long long *out)
{
    unsigned long long t, s = 0, c0, c1, g0, g1, steps = 0, last;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(last));
    c0 = clock64();
    for (int i = 0; i < 10000; i++) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t != last) { steps++; last = t; }
        s += t;
    }
    c1 = clock64();
    out[0] = c1 - c0; out[1] = steps; out[2] = s;
    c0 = clock64();
    for (int i = 0; i < 10000; i++) { t = clock64(); s += t; }
    c1 = clock64();
    out[3] = c1 - c0; out[4] = s;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    c0 = clock64();
    while (clock64() - c0 < 20000000) {}
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    out[5] = g1 - g0;
}
int main()
{
    unsigned long long *d, h[6];
    cudaMalloc(&d, sizeof h);
    for (int r = 0; r < 3; r++) {
        k<<<1, 1>>>(d);
        cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
        double ghz = 20000000.0 / h[5];
        printf("globaltimer read: %.0f cycles (%.0f ns at %.2f GHz), %llu distinct values in 10000 reads; clock64 read: %.0f cycles\n",
               h[0] / 10000.0, h[0] / 10000.0 / ghz, ghz, h[1], h[3] / 10000.0);
    }
}
