/* Whether a daemon relaunched by a launch queued ahead still lets the CUDA calls that wait for an
 * idle GPU through (issue 22).  pccl relaunches its daemon after the launch's end was seen and a
 * 20 us gap (the waiting call's turn): 30-60 us of GPU time with no block per slice.  Queued
 * ahead (the next launch on the daemon's stream while the current one runs) the GPU would go
 * from one launch to the next in a few microseconds, but is there still a turn for a waiting call?
 *
 * A stand-in daemon (64 blocks of 512 threads, each block spins to its start + SLICE) is kept on
 * the GPU by a poller thread in one of two modes:
 *   gap:SLICE_US:GAP_US  relaunch once the last block's end is seen in pinned memory, GAP later
 *   chain:SLICE_US       keep one launch queued: launch the next once the queued one has started
 *   late:SLICE_US:AHEAD_US  queue the next launch AHEAD before the running one's slice ends (seen
 *                        from the host: its start seen + SLICE - AHEAD); if the running one ends
 *                        first, relaunch as gap:SLICE_US:20
 * while the main thread makes the implicit-synchronization calls of pccl-share at random points.
 * Each call is made --reps times with no daemon first (its own time), then under each mode.
 * Per mode: each call's median and slowest, and the GPU time with no block between launches.
 * Build: nvcc -O2 -arch=sm_90 -std=c++17 -o probe probe.cu -lpthread */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utility>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)
#define CKD(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { fprintf(stderr, "%s:%d %s: %d\n", __FILE__, __LINE__, #x, (int)e_); exit(2); } } while (0)

#define NE 65536 /* per-launch stamps, by epoch modulo */
struct Hdr {
    volatile unsigned long long started, ended;
    volatile unsigned long long t_start[NE], t_end[NE];
};

__device__ __forceinline__ unsigned long long gt(void) { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }

__global__ void __launch_bounds__(512, 2) daemon_k(Hdr *h, unsigned long long *cnt, unsigned long long epoch, unsigned long long run_ns)
{
    if (threadIdx.x == 0) {
        unsigned long long t0 = gt();
        if (blockIdx.x == 0) {
            h->t_start[epoch % NE] = t0;
            __threadfence_system();
            h->started = epoch;
            __threadfence_system();
        }
        while (gt() < t0 + run_ns) {}
        __threadfence();
        unsigned long long n = atomicAdd(cnt, 1ull) + 1;
        if (n == epoch * gridDim.x) {
            h->t_end[epoch % NE] = gt();
            __threadfence_system();
            h->ended = epoch;
            __threadfence_system();
        }
    }
    __syncthreads();
}

#define NFRESH 128
typedef void (*kfn)(int *);
template <int N> __global__ void fresh_k(int *p) { atomicAdd(p, N + 1); }
template <int N> __global__ void fresh_store_k(int *p) { *(volatile int *)p = N + 1; }
static kfn fresh[NFRESH], fresh_store[NFRESH];
static int fresh_next, fresh_store_next;
template <int... I> static void fill(std::integer_sequence<int, I...>) { ((fresh[I] = fresh_k<I>), ...); ((fresh_store[I] = fresh_store_k<I>), ...); }
__global__ void warm_k(int *p) { atomicAdd(p, 1); }

static const char tiny_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                               ".visible .entry tiny(.param .u64 p)\n{\n"
                               " .reg .b64 %rd<3>;\n .reg .b32 %r<3>;\n"
                               " ld.param.u64 %rd1, [p];\n cvta.to.global.u64 %rd2, %rd1;\n"
                               " ld.global.u32 %r1, [%rd2];\n add.s32 %r2, %r1, 1;\n"
                               " st.global.u32 [%rd2], %r2;\n ret;\n}\n";
static CUresult (*p_load)(CUmodule *, const void *);
static CUresult (*p_getfn)(CUfunction *, CUmodule, const char *);
static CUresult (*p_launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
static CUresult (*p_unload)(CUmodule);
static void driver_fn(const char *name, void **fn)
{
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q) != cudaSuccess || !*fn) { fprintf(stderr, "no %s\n", name); exit(2); }
}

static double now_s(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

enum { OP_FRESH, OP_FRESH_POLL, OP_FREE, OP_MALLOC, OP_HREG, OP_HUNREG, OP_MEMCPY, OP_LEGACY, OP_DEVSYNC, OP_GRAPH, OP_MODLOAD, OP_MODUNLOAD, OP_N };
static const char *op_name[OP_N] = {"first launch + sync", "first launch, host polls", "cudaFree 1 MiB", "cudaMalloc 1 MiB",
                                    "cudaHostRegister", "cudaHostUnregister", "cudaMemcpy sync", "legacy stream copy+sync",
                                    "cudaDeviceSynchronize", "graph capture+launch", "cuModuleLoadData+launch", "cuModuleUnload"};
#define MAXREPS 32
static struct {
    cudaStream_t s;
    int *flag, *hflag, *hflag_dev;
    void *dbuf[MAXREPS], *hreg[MAXREPS], *hbuf, *dcopy;
    CUmodule mods[MAXREPS];
} X;
static const size_t BYTES = 1 << 20;

static double do_op(int op, int rep)
{
    double t0 = now_s();
    switch (op) {
    case OP_FRESH: { void *a[] = {&X.flag}; CK(cudaLaunchKernel((const void *)fresh[fresh_next++ % NFRESH], 1, 1, a, 0, X.s)); CK(cudaStreamSynchronize(X.s)); break; }
    case OP_FRESH_POLL: {
        *(volatile int *)X.hflag = 0;
        void *a[] = {&X.hflag_dev};
        CK(cudaLaunchKernel((const void *)fresh_store[fresh_store_next++ % NFRESH], 1, 1, a, 0, X.s));
        while (!*(volatile int *)X.hflag && now_s() - t0 < 30) {}
        CK(cudaStreamSynchronize(X.s));
        break;
    }
    case OP_FREE: CK(cudaFree(X.dbuf[rep])); X.dbuf[rep] = NULL; break;
    case OP_MALLOC: CK(cudaMalloc(&X.dbuf[rep], BYTES)); break;
    case OP_HREG: CK(cudaHostRegister(X.hreg[rep], BYTES, cudaHostRegisterDefault)); break;
    case OP_HUNREG: CK(cudaHostUnregister(X.hreg[rep])); break;
    case OP_MEMCPY: CK(cudaMemcpy(X.dcopy, X.hbuf, BYTES, cudaMemcpyHostToDevice)); break;
    case OP_LEGACY: CK(cudaMemcpyAsync(X.dcopy, X.hbuf, 4096, cudaMemcpyHostToDevice, cudaStreamLegacy)); CK(cudaStreamSynchronize(cudaStreamLegacy)); break;
    case OP_DEVSYNC: CK(cudaDeviceSynchronize()); break;
    case OP_GRAPH: {
        cudaGraph_t g; cudaGraphExec_t ge;
        CK(cudaStreamBeginCapture(X.s, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; i < 4; i++) warm_k<<<1, 1, 0, X.s>>>(X.flag);
        CK(cudaStreamEndCapture(X.s, &g));
        CK(cudaGraphInstantiate(&ge, g, 0));
        CK(cudaGraphLaunch(ge, X.s));
        CK(cudaStreamSynchronize(X.s));
        cudaGraphExecDestroy(ge); cudaGraphDestroy(g);
        break;
    }
    case OP_MODLOAD: {
        CUfunction f; CUdeviceptr p = (CUdeviceptr)(uintptr_t)X.flag; void *a[] = {&p};
        CKD(p_load(&X.mods[rep], tiny_ptx)); CKD(p_getfn(&f, X.mods[rep], "tiny"));
        CKD(p_launch(f, 1, 1, 1, 1, 1, 1, 0, (CUstream)X.s, a, NULL));
        CK(cudaStreamSynchronize(X.s));
        break;
    }
    case OP_MODUNLOAD: CKD(p_unload(X.mods[rep])); break;
    }
    return now_s() - t0;
}

/* ---- the poller ---- */
static Hdr *H;
static unsigned long long *CNT;
static cudaStream_t DS;
static volatile int stop;
static int chain, late;
static unsigned long long ahead_ns, fallbacks;
static unsigned long long slice_ns, gap_ns, launched;
static double launch_call_sum; /* host seconds in launch calls */
static double launch_call_max;

static void launch(unsigned long long e)
{
    double t0 = now_s();
    daemon_k<<<64, 512, 4096, DS>>>(H, CNT, e, slice_ns);
    double dt = now_s() - t0;
    launch_call_sum += dt;
    if (dt > launch_call_max) launch_call_max = dt;
    CK(cudaGetLastError());
    launched = e;
}

static void *poller(void *)
{
    launch(1);
    if (chain) launch(2);
    unsigned long long cur = 1;
    double seen = 0;
    while (!stop) {
        if (late) {
            double now = now_s();
            if (launched == cur) {
                if (!seen && H->started >= cur) seen = now;
                if (H->ended == cur) {
                    while (now_s() - now < 20e-6) {}
                    launch(cur + 1); cur++; seen = 0; fallbacks++;
                } else if (seen && now >= seen + (slice_ns - ahead_ns) * 1e-9)
                    launch(cur + 1);
            } else if (H->started >= launched) {
                cur = launched; seen = now;
            }
        } else if (chain) {
            if (H->started >= launched) launch(launched + 1);
        } else if (H->ended == launched) {
            double t = now_s();
            while (now_s() - t < gap_ns * 1e-9) {}
            launch(launched + 1);
        }
    }
    while (H->ended != launched) {}
    return NULL;
}

static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static int cmpu(const void *a, const void *b) { unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv)
{
    int reps = 12;
    const char *modes[8]; int nm = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (nm < 8) modes[nm++] = argv[i];
    }
    if (reps < 1 || reps > MAXREPS || nm == 0) { fprintf(stderr, "usage: probe [--reps N<=%d] gap:SLICE_US:GAP_US|chain:SLICE_US|late:SLICE_US:AHEAD_US ...\n", MAXREPS); return 2; }
    fill(std::make_integer_sequence<int, NFRESH>{});
    driver_fn("cuModuleLoadData", (void **)&p_load); driver_fn("cuModuleGetFunction", (void **)&p_getfn);
    driver_fn("cuLaunchKernel", (void **)&p_launch); driver_fn("cuModuleUnload", (void **)&p_unload);
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&DS, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&X.s, cudaStreamNonBlocking));
    CK(cudaHostAlloc((void **)&H, sizeof *H, cudaHostAllocMapped)); memset((void *)H, 0, sizeof *H);
    CK(cudaMalloc(&CNT, 8));
    CK(cudaMalloc(&X.flag, 4)); CK(cudaMalloc(&X.dcopy, BYTES));
    CK(cudaHostAlloc((void **)&X.hflag, 4, cudaHostAllocMapped)); CK(cudaHostGetDevicePointer((void **)&X.hflag_dev, X.hflag, 0));
    X.hbuf = malloc(BYTES); memset(X.hbuf, 1, BYTES);
    for (int r = 0; r < MAXREPS; r++) { X.hreg[r] = aligned_alloc(4096, BYTES); memset(X.hreg[r], 0, BYTES); }
    warm_k<<<1, 1, 0, X.s>>>(X.flag); CK(cudaDeviceSynchronize());
    srand(1);
    double *t = (double *)malloc(sizeof(double) * reps);
    double idle_max[OP_N];
    printf("# probe, %d calls of each kind a mode; times in ms (median / slowest)\n", reps);
    for (int m = -1; m < nm; m++) {
        const char *mode = m < 0 ? "idle" : modes[m];
        unsigned su = 0, gu = 0;
        if (m >= 0) {
            unsigned au = 0;
            chain = late = 0;
            if (sscanf(mode, "gap:%u:%u", &su, &gu) == 2) {}
            else if (sscanf(mode, "chain:%u", &su) == 1) chain = 1;
            else if (sscanf(mode, "late:%u:%u", &su, &au) == 2 && au < su) { late = 1; ahead_ns = au * 1000ull; }
            else { fprintf(stderr, "bad mode %s\n", mode); return 2; }
        }
        slice_ns = su * 1000ull; gap_ns = gu * 1000ull;
        CK(cudaMemset(CNT, 0, 8)); CK(cudaDeviceSynchronize());
        H->started = H->ended = 0; launched = 0; stop = 0; launch_call_sum = launch_call_max = 0; fallbacks = 0;
        pthread_t pt;
        double w0 = now_s();
        if (m >= 0) { pthread_create(&pt, NULL, poller, NULL); usleep(20000); }
        printf("## %s\n", mode);
        for (int op = 0; op < OP_N; op++) {
            for (int r = 0; r < reps; r++) {
                if (op == OP_FREE && !X.dbuf[r]) CK(cudaMalloc(&X.dbuf[r], BYTES));
                if (op == OP_HUNREG && m < 0) {} /* registered by OP_HREG of the same mode */
                if (m >= 0) usleep(rand() % (su + 1));
                t[r] = do_op(op, r) * 1e3;
            }
            qsort(t, reps, sizeof *t, cmpd);
            if (m < 0) idle_max[op] = t[reps - 1];
            printf("  %-26s %7.3f / %7.3f ms", op_name[op], t[reps / 2], t[reps - 1]);
            if (m >= 0) printf("   slowest less its own idle slowest: %.2f slices", (t[reps - 1] - idle_max[op]) / (su * 1e-3));
            printf("\n");
            fflush(stdout);
        }
        if (m >= 0) {
            stop = 1; pthread_join(pt, NULL);
            double wall = now_s() - w0;
            unsigned long long n = launched, k = 0;
            unsigned long long *dead = (unsigned long long *)malloc(sizeof(unsigned long long) * n);
            for (unsigned long long e = 1; e < n && e < NE; e++) {
                unsigned long long a = H->t_end[e % NE], b = H->t_start[(e + 1) % NE];
                dead[k++] = b > a ? b - a : 0;
            }
            qsort(dead, k, sizeof *dead, cmpu);
            if (k) printf("  launches %llu in %.2f s; GPU time with no block between launches (us): p10 %.1f, median %.1f, p90 %.1f, max %.1f; launch call mean %.1f us, max %.1f us; relaunches after an end seen %llu\n",
                   n, wall, dead[k / 10] / 1e3, dead[k / 2] / 1e3, dead[k * 9 / 10] / 1e3, dead[k - 1] / 1e3, launch_call_sum / n * 1e6, launch_call_max * 1e6, fallbacks);
            free(dead);
        }
    }
    return 0;
}
