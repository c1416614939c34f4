// probe.cu: which CUDA calls that wait for a busy GPU also hold up another thread's driver calls?
//
// While a kernel spins for SPIN_MS, a worker thread makes one call that waits for the GPU (as pccl-share's
// list), and a sentinel thread calls cudaStreamQuery on an idle stream of its own (pccl's poller's call)
// every ~20 us, timing each.  A call that holds the context lock while it waits makes the sentinel's query
// wait as long; one that waits without it leaves the queries at microseconds.  If the queries do wait, a
// thread of pccl's could see a waiting call without CUPTI (issue 22: a watch with no profiler conflict).
//
//   nvcc -O2 -arch=sm_90 -o probe probe.cu -lpthread && ./probe [reps]
// Prints, per call and rep: the call's time, the longest sentinel query that overlapped it, how many
// queries ran while it waited, and a verdict (HELD: the longest query >= half the call's time).
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SPIN_MS 20
#define WAIT_BEFORE_MS 3
#define MAXQ 200000
#define NFRESH 32

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

__global__ void spin_k(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}

// Kernels launched once each: under lazy loading their first launch loads them.
#define FRESH(n) \
    __global__ void fresh##n(int *p) { p[0] += n + 1; }
FRESH(0) FRESH(1) FRESH(2) FRESH(3) FRESH(4) FRESH(5) FRESH(6) FRESH(7) FRESH(8) FRESH(9) FRESH(10) FRESH(11)
FRESH(12) FRESH(13) FRESH(14) FRESH(15) FRESH(16) FRESH(17) FRESH(18) FRESH(19) FRESH(20) FRESH(21) FRESH(22)
FRESH(23) FRESH(24) FRESH(25) FRESH(26) FRESH(27) FRESH(28) FRESH(29) FRESH(30) FRESH(31)
static void (*fresh[NFRESH])(int *) = {fresh0,  fresh1,  fresh2,  fresh3,  fresh4,  fresh5,  fresh6,  fresh7,
                                       fresh8,  fresh9,  fresh10, fresh11, fresh12, fresh13, fresh14, fresh15,
                                       fresh16, fresh17, fresh18, fresh19, fresh20, fresh21, fresh22, fresh23,
                                       fresh24, fresh25, fresh26, fresh27, fresh28, fresh29, fresh30, fresh31};
__global__ void warm_k(int *p) { p[1] += 1; }

static const char tiny_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                               ".visible .entry tiny(.param .u64 p)\n{\n .reg .b64 %rd<3>;\n .reg .b32 %r<3>;\n"
                               " ld.param.u64 %rd1, [p];\n cvta.to.global.u64 %rd2, %rd1;\n"
                               " ld.global.u32 %r1, [%rd2];\n add.s32 %r2, %r1, 1;\n st.global.u32 [%rd2], %r2;\n"
                               " ret;\n}\n";

static CUresult (*p_load)(CUmodule *, const void *);
static CUresult (*p_getfn)(CUfunction *, CUmodule, const char *);
static CUresult (*p_launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            CUstream, void **, void **);
static CUresult (*p_unload)(CUmodule);

static void driver_fn(const char *name, void **fn)
{
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !*fn) {
        fprintf(stderr, "probe: driver function %s not found\n", name);
        exit(1);
    }
}

// The sentinel: a query every ~20 us, each one's start and length.
static struct {
    cudaStream_t s;
    volatile int stop;
    int n;
    double t0[MAXQ], dt[MAXQ];
} sen;

static void *sentinel(void *p)
{
    (void)p;
    while (!sen.stop && sen.n < MAXQ) {
        double a = now_us();
        cudaError_t e = cudaStreamQuery(sen.s);
        double b = now_us();
        if (e != cudaSuccess && e != cudaErrorNotReady) cudaGetLastError();
        sen.t0[sen.n] = a, sen.dt[sen.n] = b - a, sen.n++;
        usleep(20);
    }
    return NULL;
}

enum { OP_STREAMSYNC, OP_FRESH, OP_FREE, OP_MALLOC, OP_HREG, OP_HUNREG, OP_MEMCPY, OP_LEGACY, OP_DEVSYNC,
       OP_GRAPH, OP_MODLOAD, OP_MODUNLOAD, OP_N };
static const char *op_name[OP_N] = {
    "cudaStreamSynchronize on the kernel's stream (control)",
    "first launch of a never-launched kernel + its stream sync",
    "cudaFree (1 MiB)",
    "cudaMalloc (1 MiB)",
    "cudaHostRegister (1 MiB)",
    "cudaHostUnregister",
    "cudaMemcpy, synchronous (1 MiB host to device)",
    "cudaMemcpyAsync on the legacy default stream + its sync",
    "cudaDeviceSynchronize",
    "CUDA graph: capture, instantiate, launch on another stream, sync",
    "cuModuleLoadData (PTX) + first launch + sync",
    "cuModuleUnload",
};

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 4;
    if (reps < 1 || reps > 64) {
        fprintf(stderr, "usage: probe [reps 1..64]\n");
        return 2;
    }
    driver_fn("cuModuleLoadData", (void **)&p_load);
    driver_fn("cuModuleGetFunction", (void **)&p_getfn);
    driver_fn("cuLaunchKernel", (void **)&p_launch);
    driver_fn("cuModuleUnload", (void **)&p_unload);
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    cudaStream_t sk, sw;
    CK(cudaStreamCreateWithFlags(&sk, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&sw, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&sen.s, cudaStreamNonBlocking));
    int *flag;
    CK(cudaMalloc(&flag, 64));
    size_t bytes = 1 << 20;
    void *dcopy, *hbuf = malloc(bytes);
    CK(cudaMalloc(&dcopy, bytes));
    memset(hbuf, 1, bytes);
    spin_k<<<1, 1, 0, sk>>>(1000); // loaded here, not in a timed call
    warm_k<<<1, 1, 0, sw>>>(flag);
    CK(cudaDeviceSynchronize());
    int nfresh = 0;
    CUmodule mods[64];
    void *dbuf[64], *hreg[64];
    for (int r = 0; r < reps; r++) {
        CK(cudaMalloc(&dbuf[r], bytes));
        hreg[r] = malloc(bytes);
        memset(hreg[r], 0, bytes);
    }
    printf("%-66s %4s %10s %12s %8s  %s\n", "call", "rep", "call_us", "max_query_us", "queries", "verdict");
    for (int op = 0; op < OP_N; op++) {
        for (int r = 0; r < reps; r++) {
            spin_k<<<1, 1, 0, sk>>>((unsigned long long)SPIN_MS * 1000000ull);
            CK(cudaGetLastError());
            sen.stop = 0, sen.n = 0;
            pthread_t t;
            pthread_create(&t, NULL, sentinel, NULL);
            usleep(WAIT_BEFORE_MS * 1000);
            double a = now_us();
            switch (op) {
            case OP_STREAMSYNC: CK(cudaStreamSynchronize(sk)); break;
            case OP_FRESH: {
                void *args[] = {&flag};
                CK(cudaLaunchKernel((const void *)fresh[nfresh++ % NFRESH], 1, 1, args, 0, sw));
                CK(cudaStreamSynchronize(sw));
                break;
            }
            case OP_FREE: CK(cudaFree(dbuf[r])); break;
            case OP_MALLOC: CK(cudaMalloc(&dbuf[r], bytes)); break;
            case OP_HREG: CK(cudaHostRegister(hreg[r], bytes, cudaHostRegisterDefault)); break;
            case OP_HUNREG: CK(cudaHostUnregister(hreg[r])); break;
            case OP_MEMCPY: CK(cudaMemcpy(dcopy, hbuf, bytes, cudaMemcpyHostToDevice)); break;
            case OP_LEGACY:
                CK(cudaMemcpyAsync(dcopy, hbuf, 4096, cudaMemcpyHostToDevice, cudaStreamLegacy));
                CK(cudaStreamSynchronize(cudaStreamLegacy));
                break;
            case OP_DEVSYNC: CK(cudaDeviceSynchronize()); break;
            case OP_GRAPH: {
                cudaGraph_t g = NULL;
                cudaGraphExec_t ge = NULL;
                CK(cudaStreamBeginCapture(sw, cudaStreamCaptureModeThreadLocal));
                for (int i = 0; i < 4; i++) warm_k<<<1, 1, 0, sw>>>(flag);
                CK(cudaStreamEndCapture(sw, &g));
                CK(cudaGraphInstantiate(&ge, g, 0));
                CK(cudaGraphLaunch(ge, sw));
                CK(cudaStreamSynchronize(sw));
                cudaGraphExecDestroy(ge);
                cudaGraphDestroy(g);
                break;
            }
            case OP_MODLOAD: {
                CUfunction f;
                CUdeviceptr p = (CUdeviceptr)(uintptr_t)flag;
                void *args[] = {&p};
                if (p_load(&mods[r], tiny_ptx) || p_getfn(&f, mods[r], "tiny") ||
                    p_launch(f, 1, 1, 1, 1, 1, 1, 0, (CUstream)sw, args, NULL)) {
                    fprintf(stderr, "probe: module load or launch failed\n");
                    return 1;
                }
                CK(cudaStreamSynchronize(sw));
                break;
            }
            case OP_MODUNLOAD:
                if (p_unload(mods[r])) {
                    fprintf(stderr, "probe: cuModuleUnload failed\n");
                    return 1;
                }
                break;
            }
            double b = now_us();
            CK(cudaStreamSynchronize(sk));
            sen.stop = 1;
            pthread_join(t, NULL);
            double mx = 0;
            int inside = 0;
            for (int i = 0; i < sen.n; i++) {
                double qa = sen.t0[i], qb = qa + sen.dt[i];
                if (qb < a || qa > b) continue;
                inside++;
                if (sen.dt[i] > mx) mx = sen.dt[i];
            }
            const char *v = b - a < 1000 ? "no wait" : mx >= (b - a) / 2 ? "HELD" : "free";
            printf("%-66s %4d %10.0f %12.0f %8d  %s\n", op_name[op], r, b - a, mx, inside, v);
            fflush(stdout);
        }
    }
    return 0;
}
