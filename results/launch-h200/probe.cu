/* What a daemon relaunch's launch call costs, by launch path (issue 22: the
 * 11-17 us "launch call" in every relaunch's split).  A stand-in daemon,
 * shaped as pccl's (64 blocks of 512 threads, __launch_bounds__(512, 2), a
 * 344-byte __grid_constant__ parameter, dynamic shared memory), runs RUN_US,
 * then its last block writes its end (epoch and globaltimer) to pinned
 * memory, as pccl_end does.  The host, as the poller, spins on that word,
 * spins GAP us more, then relaunches by one path and times the call; the
 * next launch stamps its first block's start, so the GPU's dead time (end to
 * next start, GPU clock) comes too.  Paths:
 *   rt        the runtime's <<<>>> (pccl today)
 *   rt-ex     cudaLaunchKernelEx
 *   drv       cuLaunchKernel on the function's handle (cudaGetFuncBySymbol)
 *   small     <<<>>> with an 8-byte parameter (the struct left in device memory)
 *   graph     a graph of the kernel, its parameter node updated and launched
 *   graph-fix a graph launched as is (the epoch read from pinned memory)
 *   rt-1blk   <<<>>> on one block of 32 threads
 *   stack     <<<>>> of a kernel with 1.5 KB of local memory a thread (the daemon's stack)
 *   rt-setdev cudaSetDevice, <<<>>>, cudaGetLastError (pccl's g_launch)
 * With --busy, another thread queries another stream in a loop meanwhile.
 * Build: nvcc -O2 -arch=sm_90 -o probe probe.cu -lpthread */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

struct Hdr { volatile unsigned long long ended, t_end, t_start, epoch_in; };
struct P { Hdr *h; unsigned long long *cnt; unsigned long long epoch, run_ns; char pad[344 - 32]; };

__device__ __forceinline__ unsigned long long gt(void) { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }

__device__ void body(Hdr *h, unsigned long long *cnt, unsigned long long epoch, unsigned long long run_ns)
{
    extern __shared__ int sm[];
    if (threadIdx.x == 0) {
        unsigned long long t0 = gt();
        if (blockIdx.x == 0) h->t_start = t0; /* pinned, read by the host after the launch */
        sm[0] = 0;
        while (gt() < t0 + run_ns) {}
        __threadfence();
        unsigned long long n = atomicAdd(cnt, 1ull) + 1;
        if (n == epoch * gridDim.x) {
            h->t_end = gt();
            __threadfence_system();
            h->ended = epoch;
            __threadfence_system();
        }
    }
    __syncthreads();
}

__global__ void __launch_bounds__(512, 2) k_big(const __grid_constant__ P p) { body(p.h, p.cnt, p.epoch, p.run_ns); }
__global__ void __launch_bounds__(512, 2) k_stack(const __grid_constant__ P p)
{
    volatile unsigned long long loc[190]; /* local memory, as the daemon's 1488-byte stack */
    loc[threadIdx.x % 190] = p.epoch;
    if (loc[(threadIdx.x * 7) % 190] == 0xffffffffffffull) p.h->epoch_in = 1;
    body(p.h, p.cnt, p.epoch, p.run_ns);
}
__global__ void __launch_bounds__(512, 2) k_small(const P *p) { body(p->h, p->cnt, p->epoch, p->run_ns); }
__global__ void __launch_bounds__(512, 2) k_fix(Hdr *h, unsigned long long *cnt, unsigned long long run_ns)
{
    body(h, cnt, h->epoch_in, run_ns);
}

static uint64_t now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec; }
static volatile int busy_stop;
static void *busy_main(void *a)
{
    cudaStream_t s = *(cudaStream_t *)a;
    unsigned long long n = 0;
    while (!busy_stop) { cudaStreamQuery(s); n++; }
    return (void *)(uintptr_t)n;
}
static int cmp64(const void *a, const void *b) { uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b; return x < y ? -1 : x > y; }

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);

int main(int argc, char **argv)
{
    int iters = 300, run_us = 200, busy = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--busy")) busy = 1;
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else { fprintf(stderr, "usage: probe [--busy] [--iters N]\n"); return 2; }
    }
    CK(cudaSetDevice(0));
    cudaStream_t st, other;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    Hdr *h; CK(cudaHostAlloc(&h, sizeof *h, cudaHostAllocMapped)); memset((void *)h, 0, sizeof *h);
    unsigned long long *cnt; CK(cudaMalloc(&cnt, 8));
    P *dp; CK(cudaMalloc(&dp, sizeof(P)));
    launch_fn cu_launch = NULL; cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", (void **)&cu_launch, 12000, cudaEnableDefault, &q));
    cudaFunction_t fbig; CK(cudaGetFuncBySymbol(&fbig, (const void *)k_big));
    pthread_t bt; if (busy) pthread_create(&bt, NULL, busy_main, &other);
    const char *paths[] = {"rt", "rt-ex", "drv", "small", "graph", "graph-fix", "rt-1blk", "stack", "rt-setdev"};
    const int gaps[] = {0, 20};
    int blocks = 64, threads = 512; size_t smem = 4 * 1024;
    uint64_t *lc = (uint64_t *)malloc(sizeof(uint64_t) * iters), *dead = (uint64_t *)malloc(sizeof(uint64_t) * iters);
    printf("# probe%s: %d launches a row, stand-in daemon runs %d us; launch call on the host clock, dead = end -> next start on the GPU clock (us)\n",
           busy ? " --busy" : "", iters, run_us);
    printf("%-10s %4s | %8s %8s %8s | %8s %8s %8s\n", "path", "gap", "call p10", "median", "p90", "dead p10", "median", "p90");
    for (int pi = 0; pi < 9; pi++)
        for (int gi = 0; gi < 2; gi++) {
            unsigned long long epoch = 0;
            CK(cudaMemset(cnt, 0, 8)); CK(cudaDeviceSynchronize());
            h->ended = 0;
            P p; memset(&p, 0, sizeof p); p.h = h; p.cnt = cnt; p.run_ns = (unsigned long long)run_us * 1000;
            int nb = pi == 6 ? 1 : blocks, nt = pi == 6 ? 32 : threads;
            cudaGraph_t g = NULL; cudaGraphExec_t ge = NULL; cudaGraphNode_t node = NULL;
            cudaKernelNodeParams kp; void *kargs[1]; void *fargs[3]; unsigned long long run_ns = p.run_ns; Hdr *hh = h;
            if (pi == 4 || pi == 5) {
                CK(cudaGraphCreate(&g, 0));
                memset(&kp, 0, sizeof kp);
                kp.gridDim = dim3(nb); kp.blockDim = dim3(nt); kp.sharedMemBytes = (unsigned)smem;
                if (pi == 4) { kp.func = (void *)k_big; p.epoch = 1; kargs[0] = &p; kp.kernelParams = kargs; }
                else { kp.func = (void *)k_fix; fargs[0] = &hh; fargs[1] = &cnt; fargs[2] = &run_ns; kp.kernelParams = fargs; }
                CK(cudaGraphAddKernelNode(&node, g, NULL, 0, &kp));
                CK(cudaGraphInstantiate(&ge, g, 0));
            }
            uint64_t prev_end_gpu = 0;
            int n = 0;
            for (int it = -5; it < iters; it++) {
                /* the previous launch's end, as the poller sees it */
                while (epoch && h->ended != epoch) {}
                uint64_t end_gpu = h->t_end;
                uint64_t seen = now_ns();
                while (now_ns() < seen + (uint64_t)gaps[gi] * 1000) {}
                epoch++;
                p.epoch = epoch;
                uint64_t t0 = now_ns();
                switch (pi) {
                case 0: k_big<<<nb, nt, smem, st>>>(p); break;
                case 1: {
                    cudaLaunchConfig_t cfg; memset(&cfg, 0, sizeof cfg);
                    cfg.gridDim = dim3(nb); cfg.blockDim = dim3(nt); cfg.dynamicSmemBytes = smem; cfg.stream = st;
                    CK(cudaLaunchKernelEx(&cfg, k_big, p));
                    break;
                }
                case 2: { void *a[1] = {&p}; if (cu_launch((CUfunction)fbig, nb, 1, 1, nt, 1, 1, (unsigned)smem, (CUstream)st, a, NULL) != CUDA_SUCCESS) { fprintf(stderr, "cuLaunchKernel failed\n"); return 2; } break; }
                case 3: CK(cudaMemcpyAsync(dp, &p, sizeof p, cudaMemcpyHostToDevice, st)); k_small<<<nb, nt, smem, st>>>(dp); break;
                case 4: kargs[0] = &p; CK(cudaGraphExecKernelNodeSetParams(ge, node, &kp)); CK(cudaGraphLaunch(ge, st)); break;
                case 5: h->epoch_in = epoch; CK(cudaGraphLaunch(ge, st)); break;
                case 6: k_big<<<nb, nt, smem, st>>>(p); break;
                case 7: k_stack<<<nb, nt, smem, st>>>(p); break;
                case 8: cudaSetDevice(0); k_big<<<nb, nt, smem, st>>>(p); cudaGetLastError(); break;
                }
                uint64_t t1 = now_ns();
                CK(cudaGetLastError());
                if (it >= 0) {
                    lc[n] = t1 - t0;
                    /* this launch's start, published once it ended (its block 0 wrote it first) */
                    while (h->ended != epoch) {}
                    dead[n] = h->t_start > prev_end_gpu ? h->t_start - prev_end_gpu : 0;
                    n++;
                }
                prev_end_gpu = end_gpu;
                (void)end_gpu;
                /* the end of this launch becomes prev for the next dead time */
                if (it >= 0 || 1) { while (h->ended != epoch) {} prev_end_gpu = h->t_end; }
            }
            if (pi == 3) {} /* the memcpy path above counts the copy's call too */
            qsort(lc, n, 8, cmp64); qsort(dead, n, 8, cmp64);
            printf("%-10s %4d | %8.2f %8.2f %8.2f | %8.2f %8.2f %8.2f\n", paths[pi], gaps[gi], lc[n / 10] / 1e3, lc[n / 2] / 1e3,
                   lc[n * 9 / 10] / 1e3, dead[n / 10] / 1e3, dead[n / 2] / 1e3, dead[n * 9 / 10] / 1e3);
            fflush(stdout);
            if (ge) { cudaGraphExecDestroy(ge); cudaGraphDestroy(g); }
            CK(cudaDeviceSynchronize());
        }
    if (busy) { busy_stop = 1; void *r; pthread_join(bt, &r); printf("# busy thread: %llu stream queries\n", (unsigned long long)(uintptr_t)r); }
    return 0;
}
