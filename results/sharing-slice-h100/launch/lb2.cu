// Why a relaunch's launch call takes 20 us inside pccl and 3.6 us in lb.cu: the same "launch at the
// flag" case (the previous launch of the same kernel has just written its end to a pinned flag), with
// what pccl's daemon has and lb.cu's kernel had not: 2 KiB of dynamic shared memory (the task queue)
// and a stack (ptxas: 816 bytes of frame per thread).  Build: nvcc -O2 -arch=sm_90 -o lb2 lb2.cu
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
struct P { char b[304]; };
template <int STACK>
__global__ void __launch_bounds__(512, 2) k(const __grid_constant__ P p, volatile int *flag, int seq, long long ns)
{
    extern __shared__ int q[];
    volatile char a[STACK > 0 ? STACK : 1]; // indexed by a run-time value: it lives in local memory
    if (STACK > 0) a[(threadIdx.x * 7 + seq) % STACK] = (char)seq;
    long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    t = t0;
    while (t - t0 < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (threadIdx.x == 0) q[0] = seq;
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == 0 && seq > 0) {
        __threadfence_system();
        *flag = seq + (STACK > 0 ? a[seq % STACK] * 0 : 0) + q[0] * 0 + p.b[seq % 304] * 0;
    }
}
static double now_us() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <int STACK> static void run(const char *name, size_t smem, cudaStream_t s, int *dflag, volatile int *flag)
{
    P p = {};
    std::vector<double> t;
    int n = 300;
    k<STACK><<<64, 512, smem, s>>>(p, dflag, 0, 0);
    cudaStreamSynchronize(s);
    for (int i = 1; i <= n; i++) {
        *flag = 0;
        k<STACK><<<64, 512, smem, s>>>(p, dflag, i, 50000);
        while (*flag != i) {}
        double a = now_us();
        k<STACK><<<64, 512, smem, s>>>(p, dflag, -i, 0); // the relaunch
        t.push_back(now_us() - a);
        cudaStreamSynchronize(s);
    }
    std::sort(t.begin(), t.end());
    printf("%-48s median %6.2f us  p10 %6.2f  p90 %6.2f  (err %s)\n", name, t[n / 2], t[n / 10],
           t[n * 9 / 10], cudaGetErrorString(cudaGetLastError()));
}
int main()
{
    cudaSetDevice(0);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    int *flag, *dflag;
    cudaHostAlloc(&flag, 4, cudaHostAllocMapped);
    cudaHostGetDevicePointer(&dflag, flag, 0);
    run<0>("no stack, 256 B smem", 256, s, dflag, flag);
    run<0>("no stack, 2 KiB smem", 2048, s, dflag, flag);
    run<800>("800 B stack, 256 B smem", 256, s, dflag, flag);
    run<800>("800 B stack, 2 KiB smem", 2048, s, dflag, flag);
    run<0>("no stack, 2 KiB smem (again)", 2048, s, dflag, flag);
    return 0;
}
