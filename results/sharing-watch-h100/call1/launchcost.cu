// What the watch's CUPTI subscription costs the process's other CUDA calls:
// empty kernel launches, event records and small async memsets on a stream of
// the application's, timed with a pccl communicator alive (its watch on,
// unless PCCL_WATCH_US=0) and after it is destroyed (CUPTI unsubscribed).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <algorithm>
#include "pccl.h" /* nvcc -O2 -arch=sm_90 -Ilib -o launchcost THIS build/libpccl.a -lpthread */
static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
__global__ void emptyk() {}
static void bench(const char *label, cudaStream_t s, void *buf)
{
    const int N = 20000, R = 7;
    double l[R], e[R], m[R];
    cudaEvent_t ev; cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    for (int i = 0; i < 2000; i++) emptyk<<<1, 1, 0, s>>>();
    cudaStreamSynchronize(s);
    for (int r = 0; r < R; r++) {
        double a = now(); for (int i = 0; i < N; i++) emptyk<<<1, 1, 0, s>>>(); double b = now();
        cudaStreamSynchronize(s);
        double c = now(); for (int i = 0; i < N; i++) cudaEventRecord(ev, s); double d = now();
        cudaStreamSynchronize(s);
        double f = now(); for (int i = 0; i < N; i++) cudaMemsetAsync(buf, 0, 256, s); double g = now();
        cudaStreamSynchronize(s);
        l[r] = (b - a) / N * 1e9; e[r] = (d - c) / N * 1e9; m[r] = (g - f) / N * 1e9;
    }
    std::sort(l, l + R); std::sort(e, e + R); std::sort(m, m + R);
    printf("%-34s launch %5.0f ns (min %5.0f)  eventRecord %4.0f ns (min %4.0f)  memsetAsync %5.0f ns (min %5.0f)  [median of %d x %d]\n",
           label, l[R / 2], l[0], e[R / 2], e[0], m[R / 2], m[0], R, N);
    cudaEventDestroy(ev);
}
int main()
{
    cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    void *buf; cudaMalloc(&buf, 4096);
    bench("before pccl", s, buf);
    for (int round = 0; round < 2; round++) {
        pcclComm_t c;
        if (pcclCommInitAll(&c, 1, NULL)) { fprintf(stderr, "init: %s\n", pcclGetLastError(NULL)); return 1; }
        pcclSliceStats_t ss; pcclCommGetSliceStats(c, &ss);
        char lab[64]; snprintf(lab, sizeof lab, "pccl alive (watch %d)", ss.watch);
        bench(lab, s, buf);
        pcclCommDestroy(c);
        bench("pccl destroyed", s, buf);
    }
    return 0;
}
