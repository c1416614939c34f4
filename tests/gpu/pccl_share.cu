/* pccl_share.cu: the CUDA calls that wait for the GPU, timed on one thread
 * while another thread streams collectives (issue 22), on pccl and on NCCL in
 * the same program.
 *
 * One GPU, one rank: a second thread issues 1 MiB float all-reduces back to
 * back, out of place (pccl: pcclRun + pcclWait; NCCL: ncclAllReduce + stream
 * sync; in place neither library gives the GPU any work: one rank's in-place
 * collective moves nothing, and both complete it on the host), and
 * the main thread times, --reps times each: the first launch of a kernel
 * never launched before (its module loaded lazily, CUDA's default) and its
 * stream sync, cudaFree, cudaMalloc, cudaHostRegister, cudaHostUnregister, a
 * synchronous cudaMemcpy, a cudaMemcpyAsync on the legacy default stream and
 * its sync, cudaDeviceSynchronize, a CUDA graph captured (thread-local mode,
 * as another thread works meanwhile) and launched on another stream,
 * cuModuleLoadData of a small PTX module with its first launch, and cuModuleUnload.  Also the
 * first launch with the library idle, and a first launch whose store into
 * mapped host memory the host polls with no CUDA call (what the GPU alone
 * waits).  A call is "within the bound" when its slowest time is at most
 * NCCL's slowest plus twice a wait's bound plus --grace-ms: with pccl's
 * watch (lib/README.md, "The watch") PCCL_WATCH_US + 0.5 ms, without it
 * PCCL_SLICE_US (the daemon ends its launch at the slice); twice, as a call
 * that waits for the GPU twice (cuModuleUnload was seen to) meets the next
 * launch too.  What the call costs by itself, NCCL's column shows; with
 * --lib pccl alone, where there is no NCCL column, the same call made with
 * pccl idle (its daemon quit) is the reference in its place.
 *
 * With --cap-s S, a call that has waited S seconds makes the streaming thread
 * pause until it returns (so a run without the slice, PCCL_SLICE_US=0,
 * finishes: its rows then read ">= S").
 *
 *   pccl-share [--reps N] [--count N] [--grace-ms MS] [--cap-s S] [--lib pccl|nccl|both]
 * Exit: 0 every pccl row within the bound, 1 one is not (or a call failed),
 * 2 bad arguments, 77 no GPU.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <utility>
#include <vector>
#include <algorithm>

#include "../../lib/pccl.h"
#include "procs.h"
#include "schedule.h"

#define NFRESH 256 /* --gpus: each rank's compute thread meets hundreds */
#define MAXREPS 64

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int failures;
#define CK(call)                                                                                     \
    do {                                                                                             \
        cudaError_t e_ = (call);                                                                     \
        if (e_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));   \
            __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);                                      \
        }                                                                                            \
    } while (0)
#define CKD(call)                                                                                    \
    do {                                                                                             \
        CUresult e_ = (call);                                                                        \
        if (e_ != CUDA_SUCCESS) {                                                                    \
            fprintf(stderr, "%s:%d: %s: CUresult %d\n", __FILE__, __LINE__, #call, (int)e_);          \
            __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);                                      \
        }                                                                                            \
    } while (0)

/* Kernels never launched before: each a function of its own, loaded on its
 * first launch under lazy loading. */
template <int N> __global__ void fresh_k(int *p) { atomicAdd(p, N + 1); }
typedef void (*kfn)(int *);
static kfn fresh[NFRESH];
static int fresh_next;
template <int... I> static void fill_fresh(std::integer_sequence<int, I...>) { ((fresh[I] = fresh_k<I>), ...); }
/* The same, storing into mapped host memory, which the host polls without a
 * CUDA call: what a first launch waits for on the GPU alone. */
#define NSTORE (2 * MAXREPS)
template <int N> __global__ void fresh_store_k(int *p) { *(volatile int *)p = N + 1; }
static kfn fresh_store[NSTORE];
static int fresh_store_next;
template <int... I> static void fill_fresh_store(std::integer_sequence<int, I...>)
{
    ((fresh_store[I] = fresh_store_k<I>), ...);
}

__global__ void warm_k(int *p) { atomicAdd(p, 1); }

/* Another process's GPU work for --procs' reference: spins ns on the GPU's clock. */
__global__ void busy_k(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}

/* A module loaded at run time (cuModuleLoadData): PTX, JIT-compiled. */
static const char tiny_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                               ".visible .entry tiny(.param .u64 p)\n{\n"
                               " .reg .b64 %rd<3>;\n .reg .b32 %r<3>;\n"
                               " ld.param.u64 %rd1, [p];\n cvta.to.global.u64 %rd2, %rd1;\n"
                               " ld.global.u32 %r1, [%rd2];\n add.s32 %r2, %r1, 1;\n"
                               " st.global.u32 [%rd2], %r2;\n ret;\n}\n";

/* The driver API's module calls, found through the runtime (as
 * lib/gpu/backend.cu does), so that the program needs no link to libcuda. */
static CUresult (*p_load)(CUmodule *, const void *);
static CUresult (*p_getfn)(CUfunction *, CUmodule, const char *);
static CUresult (*p_launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            CUstream, void **, void **);
static CUresult (*p_unload)(CUmodule);

static int driver_fn(const char *name, void **fn)
{
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !*fn) {
        fprintf(stderr, "pccl-share: driver function %s not found\n", name);
        return -1;
    }
    return 0;
}

/* ---- the two libraries, streaming ------------------------------------------ */

typedef struct {
    int is_pccl;
    size_t count;
    float *buf, *out;
    pcclComm_t pc;
    int pid;
    ncclComm_t nc;
    cudaStream_t ns;
    int stop, bad;
    unsigned long done;
    unsigned long long op_start_us; /* 0: no call in progress */
    double cap_s;
} lib_t;

static int one_collective(lib_t *L)
{
    if (L->is_pccl) return pcclRun(L->pc, L->pid, L->buf, L->out, NULL, NULL) || pcclWait(L->pc, L->pid);
    if (ncclAllReduce(L->buf, L->out, L->count, ncclFloat, ncclSum, L->nc, L->ns) != ncclSuccess) return 1;
    return cudaStreamSynchronize(L->ns) != cudaSuccess;
}

static void *stream_main(void *arg)
{
    lib_t *L = (lib_t *)arg;
    CK(cudaSetDevice(0));
    while (!__atomic_load_n(&L->stop, __ATOMIC_ACQUIRE)) {
        unsigned long long t0 = __atomic_load_n(&L->op_start_us, __ATOMIC_ACQUIRE);
        if (L->cap_s > 0 && t0 > 0 && now_s() - (double)t0 * 1e-6 > L->cap_s) { /* let the stalled call through */
            usleep(200);
            continue;
        }
        if (one_collective(L)) {
            if (L->bad++ < 3) fprintf(stderr, "streaming: a collective failed\n");
        }
        __atomic_add_fetch(&L->done, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static int lib_open(lib_t *L)
{
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&L->buf, L->count * sizeof(float)));
    CK(cudaMemset(L->buf, 0, L->count * sizeof(float)));
    CK(cudaMalloc(&L->out, L->count * sizeof(float)));
    if (L->is_pccl) {
        if (pcclCommInitAll(&L->pc, 1, NULL) || pcclRegisterAllReduce(L->pc, L->count, pcclFloat, pcclSum, 0, &L->pid)) {
            fprintf(stderr, "pccl: %s\n", pcclGetLastError(NULL));
            return -1;
        }
    } else {
        int dev = 0;
        CK(cudaStreamCreateWithFlags(&L->ns, cudaStreamNonBlocking));
        if (ncclCommInitAll(&L->nc, 1, &dev) != ncclSuccess) { fprintf(stderr, "ncclCommInitAll failed\n"); return -1; }
    }
    for (int i = 0; i < 20; i++) /* warm up: the library's own kernels loaded */
        if (one_collective(L)) return -1;
    return 0;
}

static void lib_close(lib_t *L)
{
    if (L->is_pccl) pcclCommDestroy(L->pc);
    else {
        ncclCommDestroy(L->nc);
        cudaStreamDestroy(L->ns);
    }
    cudaFree(L->buf);
    cudaFree(L->out);
}


/* pccl's counters and where its relaunches after a slice went (lib/slice.c). */
static void print_slices(pcclComm_t c, int rank)
{
    pcclStats_t st;
    pcclSliceStats_t ss;
    if (pcclCommGetStats(c, &st) || pcclCommGetSliceStats(c, &ss)) return;
    double k = ss.relaunches ? (double)ss.relaunches * 1e3 : 1;
    printf("# pccl rank %d: %lu completed, %lu launches, %lu cut (%lu asked by the watch%s), %lu preemptions; %lu "
           "relaunches measured, per relaunch (us): late %.1f, drain %.1f, block idle %.1f, dead %.1f, start spread "
           "%.1f, refill %.1f (first pick %.1f), host gap %.1f, launch call %.1f; %lu on the grid; clock offset %.3f "
           "ms\n",
           rank, (unsigned long)st.completed, (unsigned long)st.launches, (unsigned long)st.slices,
           (unsigned long)ss.watchAsks, ss.watch == 1 ? ", CUPTI" : ss.watch ? "" : ": off",
           (unsigned long)st.preemptions, (unsigned long)ss.relaunches, ss.lateNs / k, ss.drainNs / k,
           ss.blockIdleNs / k, ss.deadNs / k, ss.startNs / k, ss.refillNs / k, ss.pickNs / k, ss.gapNs / k, ss.launchNs / k,
           (unsigned long)ss.aligned, ss.clockOffsetNs / 1e6);
}

/* ---- the calls ---------------------------------------------------------------- */

typedef struct {
    int *flag;       /* device counter the small kernels add to */
    int *hflag, *hflag_dev; /* mapped host memory (host and device addresses) for OP_FRESH_POLL */
    cudaStream_t s;  /* the main thread's own stream */
    void *dbuf[MAXREPS]; /* for cudaFree */
    void *hbuf;      /* pageable host memory for copies */
    void *hreg[MAXREPS]; /* pageable host memory, one per call, to register */
    void *dcopy;
    size_t bytes;
} ctx_t;

enum { OP_FRESH, OP_FRESH_POLL, OP_FREE, OP_MALLOC, OP_HREG, OP_HUNREG, OP_MEMCPY, OP_LEGACY, OP_DEVSYNC, OP_GRAPH,
       OP_MODLOAD, OP_MODUNLOAD, OP_N };
static const char *op_name[OP_N] = {
    "first launch of a never-launched kernel + its stream sync",
    "first launch of a never-launched kernel, the host polling its store (no CUDA call while it waits)",
    "cudaFree (1 MiB)",
    "cudaMalloc (1 MiB)",
    "cudaHostRegister (1 MiB)",
    "cudaHostUnregister",
    "cudaMemcpy, synchronous (1 MiB host to device)",
    "cudaMemcpyAsync on the legacy default stream + its sync",
    "cudaDeviceSynchronize",
    "CUDA graph: capture (thread-local mode), instantiate, launch on another stream, sync",
    "cuModuleLoadData (PTX) + first launch + sync",
    "cuModuleUnload",
};

static CUmodule mods[MAXREPS];

/* One call; returns its time in seconds. */
static double do_op(int op, int rep, ctx_t *X, lib_t *L)
{
    double t0 = now_s();
    if (L) __atomic_store_n(&L->op_start_us, (unsigned long long)(t0 * 1e6), __ATOMIC_RELEASE);
    switch (op) {
    case OP_FRESH: {
        void *args[] = {&X->flag};
        int k = __atomic_fetch_add(&fresh_next, 1, __ATOMIC_RELAXED); /* fresh on this device while k < NFRESH */
        CK(cudaLaunchKernel((const void *)fresh[k % NFRESH], 1, 1, args, 0, X->s));
        CK(cudaStreamSynchronize(X->s));
        break;
    }
    case OP_FRESH_POLL: {
        volatile int *h = X->hflag;
        *h = 0;
        void *args[] = {&X->hflag_dev};
        int k = __atomic_fetch_add(&fresh_store_next, 1, __ATOMIC_RELAXED);
        CK(cudaLaunchKernel((const void *)fresh_store[k % NSTORE], 1, 1, args, 0, X->s));
        while (!*h && now_s() - t0 < 30) {}
        CK(cudaStreamSynchronize(X->s)); /* done: returns at once */
        break;
    }
    case OP_FREE: CK(cudaFree(X->dbuf[rep])); X->dbuf[rep] = NULL; break;
    case OP_MALLOC: CK(cudaMalloc(&X->dbuf[rep], X->bytes)); break;
    case OP_HREG: CK(cudaHostRegister(X->hreg[rep], X->bytes, cudaHostRegisterDefault)); break;
    case OP_HUNREG: CK(cudaHostUnregister(X->hreg[rep])); break;
    case OP_MEMCPY: CK(cudaMemcpy(X->dcopy, X->hbuf, X->bytes, cudaMemcpyHostToDevice)); break;
    case OP_LEGACY:
        CK(cudaMemcpyAsync(X->dcopy, X->hbuf, 4096, cudaMemcpyHostToDevice, cudaStreamLegacy));
        CK(cudaStreamSynchronize(cudaStreamLegacy));
        break;
    case OP_DEVSYNC: CK(cudaDeviceSynchronize()); break;
    case OP_GRAPH: {
        cudaGraph_t g = NULL;
        cudaGraphExec_t ge = NULL;
        CK(cudaStreamBeginCapture(X->s, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; i < 4; i++) warm_k<<<1, 1, 0, X->s>>>(X->flag);
        CK(cudaStreamEndCapture(X->s, &g));
        if (g) CK(cudaGraphInstantiate(&ge, g, 0));
        if (ge) CK(cudaGraphLaunch(ge, X->s));
        CK(cudaStreamSynchronize(X->s));
        if (ge) cudaGraphExecDestroy(ge);
        if (g) cudaGraphDestroy(g);
        break;
    }
    case OP_MODLOAD: {
        CUfunction f;
        CUdeviceptr p = (CUdeviceptr)(uintptr_t)X->flag;
        void *args[] = {&p};
        CKD(p_load(&mods[rep], tiny_ptx));
        CKD(p_getfn(&f, mods[rep], "tiny"));
        CKD(p_launch(f, 1, 1, 1, 1, 1, 1, 0, (CUstream)X->s, args, NULL));
        CK(cudaStreamSynchronize(X->s));
        break;
    }
    case OP_MODUNLOAD: CKD(p_unload(mods[rep])); break;
    }
    double dt = now_s() - t0;
    if (L) __atomic_store_n(&L->op_start_us, 0ull, __ATOMIC_RELEASE);
    return dt;
}

typedef struct {
    double idle_fresh[MAXREPS];
    double idle[OP_N][MAXREPS]; /* --lib pccl alone: each call with pccl idle (the reference) */
    double t[OP_N][MAXREPS];
    double per_op_colls[OP_N]; /* collectives completed while the op's calls ran, per call */
    int ran;
    int watch; /* pccl: pcclSliceStats_t.watch */
} result_t;

/* What a call waits per wait for the GPU, at most: with the watch, its
 * threshold and a cut (block 0's look, the step in flight, the gap: under
 * half a millisecond); else the slice. */
#define WATCH_CUT_S 0.5e-3

/* The slice pccl runs with here: PCCL_SLICE_US, else its GPU default. */
static long slice_us_env(void)
{
    const char *sl = getenv("PCCL_SLICE_US");
    return sl && *sl ? atol(sl) : PCCL_SLICE_US_DEFAULT;
}

static double wait_bound_s(int watch, long slice_us)
{
    const char *w = getenv("PCCL_WATCH_US");
    return watch ? (w && *w ? atol(w) : 100) * 1e-6 + WATCH_CUT_S : slice_us * 1e-6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void stats(const double *v, int n, double *mn, double *med, double *mx)
{
    double s[MAXREPS];
    memcpy(s, v, sizeof *v * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_d);
    *mn = s[0];
    *med = s[n / 2];
    *mx = s[n - 1];
}

/* Each call --reps times with the library idle: what it costs by itself,
 * the reference of --lib pccl, where no NCCL column gives one.  The calls
 * pair up as in the streamed run (cudaFree frees a buffer allocated before,
 * cudaMalloc allocates the next run's, each registration is undone, each
 * module unloaded). */
/* cudaFree's buffers, one per rep, where none is allocated (the idle run's
 * cudaMalloc leaves its own for the streamed run's cudaFree). */
static void free_targets(int reps, ctx_t *X)
{
    for (int r = 0; r < reps; r++)
        if (!X->dbuf[r]) CK(cudaMalloc(&X->dbuf[r], X->bytes));
}

static void run_idle(int reps, ctx_t *X, result_t *R)
{
    free_targets(reps, X);
    for (int op = 0; op < OP_N; op++)
        for (int r = 0; r < reps; r++) {
            usleep(2000);
            R->idle[op][r] = do_op(op, r, X, NULL);
        }
}

static int run_lib(int is_pccl, size_t count, int reps, double cap_s, int idle_ref, ctx_t *X, result_t *R)
{
    lib_t L;
    memset(&L, 0, sizeof L);
    L.is_pccl = is_pccl;
    L.count = count;
    L.cap_s = cap_s;
    if (lib_open(&L)) return -1;
    /* idle: the library has nothing in flight (pccl's daemon has quit) */
    usleep(50000);
    for (int r = 0; r < reps; r++) {
        R->idle_fresh[r] = do_op(OP_FRESH, r, X, NULL);
        usleep(20000);
    }
    if (idle_ref) run_idle(reps, X, R);
    free_targets(reps, X);
    pthread_t t;
    pthread_create(&t, NULL, stream_main, &L);
    usleep(100000);
    for (int op = 0; op < OP_N; op++) {
        unsigned long d0 = __atomic_load_n(&L.done, __ATOMIC_ACQUIRE);
        for (int r = 0; r < reps; r++) {
            /* the stream goes on between calls, for a random while: a fixed
             * pause would put every call at the same phase of pccl's slice */
            usleep(2000 + (useconds_t)(rand() % 6000));
            R->t[op][r] = do_op(op, r, X, &L);
        }
        R->per_op_colls[op] = (double)(__atomic_load_n(&L.done, __ATOMIC_ACQUIRE) - d0) / reps;
    }
    __atomic_store_n(&L.stop, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    for (int r = 0; r < reps; r++)
        if (X->dbuf[r]) { cudaFree(X->dbuf[r]); X->dbuf[r] = NULL; }
    if (is_pccl) {
        pcclSliceStats_t ss;
        if (!pcclCommGetSliceStats(L.pc, &ss)) R->watch = ss.watch;
        print_slices(L.pc, 0);
        printf("# pccl: %d failed\n", L.bad);
    } else {
        printf("# NCCL: %lu collectives streamed, %d failed\n", L.done, L.bad);
    }
    int bad = L.bad;
    lib_close(&L);
    R->ran = 1;
    return bad ? -1 : 0;
}

static void fmt_ms(char *b, size_t n, const double *v, int reps, double cap_s)
{
    double mn, med, mx;
    stats(v, reps, &mn, &med, &mx);
    const char *ge = cap_s > 0 && mx >= cap_s ? ">= " : "";
    snprintf(b, n, "%s%.3f / %.3f / %.3f", ge, mn * 1e3, med * 1e3, mx * 1e3);
}

static double max_of(const double *v, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++) m = v[i] > m ? v[i] : m;
    return m;
}


/* ---- --gpus N: the cross-rank version (issue 22, item 3) -----------------------
 *
 * N ranks (pcclCommInitAll, one thread each), and beside each a compute
 * thread on the same GPU that makes the calls above at random points (a
 * pause of 0-4 ms between them, in random order; cudaMalloc is followed by
 * its cudaFree, cudaHostRegister by its cudaHostUnregister, cuModuleLoadData
 * by its cuModuleUnload), while the rank's communication thread runs the
 * paper's random-order test (tests/gpu/schedule.h: 8 all-reduces of 256 B
 * to 1 MiB, each rank in its own order, a new order every iteration) for
 * --seeds seeds x --iters iterations, every output poisoned before and
 * checked after each iteration, and for --secs seconds at least.  NCCL
 * first, for --secs seconds, beside
 * the same compute threads, its ranks issuing the 8 all-reduces in ONE
 * order (in random orders it would hang): what each call costs with
 * collectives streaming on every GPU.  A pccl call is within the bound when
 * it took at most NCCL's slowest + 2 x PCCL_SLICE_US + --grace-ms; a
 * watchdog declares a hang when no iteration completed for --timeout s. */

typedef struct {
    int is_pccl, rank, nranks, dev;
    pcclComm_t pc;
    ncclComm_t nc;
    cudaStream_t cs;              /* the communication thread's stream (NCCL's collectives, poison, copies) */
    float *send[DL_SCHED_NCOLL], *recv[DL_SCHED_NCOLL];
    int ids[DL_SCHED_NCOLL];
    std::vector<double> t[OP_N];  /* the compute thread's calls */
    unsigned long iters_done, wrong, fresh;
    int *stop;                    /* the communication threads are done (or hung) */
    double end_s;                 /* run until then, and (pccl) seeds x iters iterations */
    uint64_t seed0;
    int seeds, iters;
    int *stop_at;                 /* the iteration no rank starts (rank 0 sets it) */
} xrank_t;

static int x_check(xrank_t *R, float *host)
{
    int bad = 0;
    for (int c = 0; c < DL_SCHED_NCOLL; c++) {
        size_t n = dl_sched_count(c);
        CK(cudaMemcpyAsync(host, R->recv[c], n * sizeof(float), cudaMemcpyDeviceToHost, R->cs));
        CK(cudaStreamSynchronize(R->cs));
        for (size_t e = 0; e < n; e++) bad += host[e] != dl_sched_expected(R->nranks, e, c);
    }
    return bad;
}

static void x_poison(xrank_t *R)
{
    for (int c = 0; c < DL_SCHED_NCOLL; c++)
        CK(cudaMemsetAsync(R->recv[c], 0xff, dl_sched_bytes[c], R->cs)); /* NaN: never a sum */
    CK(cudaStreamSynchronize(R->cs));
}

#define PC_X(call)                                                                                     \
    do {                                                                                               \
        pcclResult_t r_ = (call);                                                                      \
        if (r_) {                                                                                      \
            fprintf(stderr, "rank %d: %s: %s (%s)\n", R->rank, #call, pcclGetErrorString(r_), pcclGetLastError(R->pc)); \
            __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);                                        \
            return NULL;                                                                               \
        }                                                                                              \
    } while (0)

static void *x_comm_main(void *arg)
{
    xrank_t *R = (xrank_t *)arg;
    CK(cudaSetDevice(R->dev));
    float *host = (float *)malloc(dl_sched_bytes[DL_SCHED_NCOLL - 1]);
    int order[DL_SCHED_NCOLL];
    for (int it = 0;; it++) {
        /* Every rank must run the same iterations, or its peers' last one
         * waits forever.  Rank 0 decides at the start of an iteration that
         * it is the last: no rank can have started the next one yet (that
         * needs rank 0's part of this one), and each reads stop_at before it
         * starts an iteration. */
        if (R->rank == 0 && now_s() >= R->end_s && it >= (R->is_pccl ? R->seeds * R->iters : 1) &&
            __atomic_load_n(R->stop_at, __ATOMIC_ACQUIRE) == INT32_MAX)
            __atomic_store_n(R->stop_at, it + 1, __ATOMIC_RELEASE);
        if (it >= __atomic_load_n(R->stop_at, __ATOMIC_ACQUIRE)) break;
        x_poison(R);
        if (R->is_pccl) {
            dl_sched_order(R->seed0 + (uint64_t)(it / R->iters), it % R->iters, R->rank, DL_SCHED_NCOLL, order);
            for (int k = 0; k < DL_SCHED_NCOLL; k++)
                PC_X(pcclRun(R->pc, R->ids[order[k]], R->send[order[k]], R->recv[order[k]], NULL, NULL));
            PC_X(pcclWaitAll(R->pc));
        } else {
            for (int c = 0; c < DL_SCHED_NCOLL; c++) /* one order: in random orders NCCL hangs */
                if (ncclAllReduce(R->send[c], R->recv[c], dl_sched_count(c), ncclFloat, ncclSum, R->nc, R->cs) !=
                    ncclSuccess) {
                    fprintf(stderr, "rank %d: ncclAllReduce failed\n", R->rank);
                    __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
                    free(host);
                    return NULL;
                }
            CK(cudaStreamSynchronize(R->cs));
        }
        R->wrong += (unsigned long)x_check(R, host);
        __atomic_store_n(&R->iters_done, (unsigned long)it + 1, __ATOMIC_RELEASE);
    }
    free(host);
    return NULL;
}

/* The calls that come in pairs: the second follows the first. */
static int x_follow(int op) { return op == OP_MALLOC ? OP_FREE : op == OP_HREG ? OP_HUNREG : op == OP_MODLOAD ? OP_MODUNLOAD : -1; }

static void *x_compute_main(void *arg)
{
    xrank_t *R = (xrank_t *)arg;
    CK(cudaSetDevice(R->dev));
    ctx_t X;
    memset(&X, 0, sizeof X);
    X.bytes = 1 << 20;
    CK(cudaMalloc(&X.flag, 4096));
    CK(cudaMalloc(&X.dcopy, X.bytes));
    CK(cudaStreamCreateWithFlags(&X.s, cudaStreamNonBlocking));
    X.hbuf = calloc(1, X.bytes);
    X.hreg[R->rank] = aligned_alloc(4096, X.bytes);
    uint64_t rng = dl_sched_mix(R->seed0 ^ ((uint64_t)R->rank << 48) ^ (uint64_t)R->is_pccl << 40);
    static const int firsts[] = {OP_FRESH, OP_MALLOC, OP_HREG, OP_MEMCPY, OP_LEGACY, OP_DEVSYNC, OP_GRAPH, OP_MODLOAD};
    while (!__atomic_load_n(R->stop, __ATOMIC_ACQUIRE)) {
        int first = firsts[dl_sched_next(&rng) % 8];
        /* each rank of each library gets its share of the fresh kernels: a
         * first launch stays a first launch (a module load) */
        if (first == OP_FRESH && R->fresh >= (unsigned long)(NFRESH / (2 * R->nranks))) continue;
        for (int op = first; op >= 0; op = x_follow(op)) {
            usleep((useconds_t)(dl_sched_next(&rng) % 4000));
            if (op == OP_FRESH) R->fresh++;
            R->t[op].push_back(do_op(op, R->rank, &X, NULL));
        }
    }
    cudaStreamDestroy(X.s);
    cudaFree(X.flag);
    cudaFree(X.dcopy);
    free(X.hbuf);
    free(X.hreg[R->rank]);
    return NULL;
}

/* One rank's buffers, inputs and registrations (its communicator made). */
static int x_buffers(xrank_t *R, float *tmp)
{
    CK(cudaSetDevice(R->dev));
    CK(cudaStreamCreateWithFlags(&R->cs, cudaStreamNonBlocking));
    for (int c = 0; c < DL_SCHED_NCOLL; c++) {
        size_t cnt = dl_sched_count(c);
        CK(cudaMalloc(&R->send[c], dl_sched_bytes[c]));
        CK(cudaMalloc(&R->recv[c], dl_sched_bytes[c]));
        for (size_t e = 0; e < cnt; e++) tmp[e] = dl_sched_input(R->rank, e, c);
        CK(cudaMemcpy(R->send[c], tmp, dl_sched_bytes[c], cudaMemcpyHostToDevice));
        if (R->is_pccl && pcclRegisterAllReduce(R->pc, cnt, pcclFloat, pcclSum, 0, &R->ids[c])) {
            fprintf(stderr, "pcclRegisterAllReduce: %s\n", pcclGetLastError(R->pc));
            return -1;
        }
    }
    return 0;
}

static int x_open(xrank_t *Rs, int n, int is_pccl)
{
    pcclComm_t pcs[64];
    ncclComm_t ncs[64];
    if (is_pccl && pcclCommInitAll(pcs, n, NULL)) { fprintf(stderr, "pcclCommInitAll: %s\n", pcclGetLastError(NULL)); return -1; }
    if (!is_pccl && ncclCommInitAll(ncs, n, NULL) != ncclSuccess) { fprintf(stderr, "ncclCommInitAll failed\n"); return -1; }
    float *tmp = (float *)malloc(dl_sched_bytes[DL_SCHED_NCOLL - 1]);
    for (int r = 0; r < n; r++) {
        xrank_t *R = &Rs[r];
        R->is_pccl = is_pccl;
        R->rank = r;
        R->dev = r;
        R->nranks = n;
        if (is_pccl) R->pc = pcs[r]; else R->nc = ncs[r];
        if (x_buffers(R, tmp)) { free(tmp); return -1; }
    }
    free(tmp);
    return 0;
}

static void x_close(xrank_t *Rs, int n)
{
    for (int r = 0; r < n; r++) {
        xrank_t *R = &Rs[r];
        CK(cudaSetDevice(R->dev));
        if (R->is_pccl) pcclCommDestroy(R->pc); else ncclCommDestroy(R->nc);
        for (int c = 0; c < DL_SCHED_NCOLL; c++) { cudaFree(R->send[c]); cudaFree(R->recv[c]); }
        cudaStreamDestroy(R->cs);
    }
}

/* One library's run; returns 3 on a hang (the threads are then left). */
static int x_run(xrank_t *Rs, int n, int is_pccl, int timeout_s)
{
    int stop = 0;
    pthread_t tc[64], tx[64];
    for (int r = 0; r < n; r++) Rs[r].stop = &stop;
    for (int r = 0; r < n; r++) {
        pthread_create(&tx[r], NULL, x_compute_main, &Rs[r]);
        pthread_create(&tc[r], NULL, x_comm_main, &Rs[r]);
    }
    double t0 = now_s(), last = t0;
    unsigned long seen = 0;
    int joined[64] = {0}, done = 0;
    while (done < n) { /* watchdog: every rank's iterations */
        usleep(20000);
        unsigned long sum = 0;
        for (int r = 0; r < n; r++) {
            sum += __atomic_load_n(&Rs[r].iters_done, __ATOMIC_ACQUIRE);
            if (!joined[r] && pthread_tryjoin_np(tc[r], NULL) == 0) { joined[r] = 1; done++; }
        }
        if (sum != seen) { seen = sum; last = now_s(); }
        if (done < n && now_s() - last > timeout_s) {
            printf("RESULT pccl-share --gpus %d: HANG (%s): no iteration completed for %d s\n", n,
                   is_pccl ? "pccl" : "NCCL", timeout_s);
            fflush(stdout);
            return 3;
        }
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int r = 0; r < n; r++) { /* a compute call that never returns is a hang too */
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += timeout_s;
        if (pthread_timedjoin_np(tx[r], NULL, &dl)) {
            printf("RESULT pccl-share --gpus %d: HANG (%s): rank %d's compute thread did not return from a call "
                   "within %d s\n", n, is_pccl ? "pccl" : "NCCL", r, timeout_s);
            fflush(stdout);
            return 3;
        }
    }
    printf("# %s: %.1f s\n", is_pccl ? "pccl" : "NCCL", now_s() - t0);
    return 0;
}

static void x_stats(xrank_t *Rs, int n, int op, char *b, size_t len, double *mx, size_t *cnt)
{
    std::vector<double> v;
    for (int r = 0; r < n; r++) v.insert(v.end(), Rs[r].t[op].begin(), Rs[r].t[op].end());
    *cnt = v.size();
    *mx = 0;
    if (v.empty()) { snprintf(b, len, "-"); return; }
    std::sort(v.begin(), v.end());
    *mx = v.back();
    snprintf(b, len, "%zu: %.3f / %.3f / %.3f", v.size(), v[0] * 1e3, v[v.size() / 2] * 1e3, v.back() * 1e3);
}

/* Per device: the graph's kernel loaded, the PTX JIT-compiled once (NCCL's
 * first cuModuleLoadData took 65 ms: the compile, not the sharing). */
static void x_prewarm(int d)
{
    CK(cudaSetDevice(d));
    int *f;
    CK(cudaMalloc(&f, 4096));
    warm_k<<<1, 1>>>(f);
    CUmodule m;
    CKD(p_load(&m, tiny_ptx));
    CKD(p_unload(m));
    CK(cudaDeviceSynchronize());
    CK(cudaFree(f));
}

/* The table: each call's times, the reference's (nc, may be NULL: NCCL's,
 * or with --procs the same calls with pccl idle) beside pccl's (pc); a pccl
 * call is within the bound when it took at most the reference's slowest of
 * it + 2 slices + grace.  Returns 1 if every pccl call was. */
static int x_table(xrank_t *nc, const char *ref, xrank_t *pc, int n, long slice_us, double grace_ms)
{
    printf("\n| compute thread's call, while every rank's communication thread streams | %s calls: min / median / "
           "max ms | pccl calls: min / median / max ms | pccl within bound |\n|---|---|---|---|\n", ref);
    int within = 1;
    for (int op = 0; op < OP_N; op++) {
        char a[96] = "-", b[96] = "-", vb[64] = "-";
        double mxa = 0, mxb = 0;
        size_t na = 0, nb = 0;
        if (nc) x_stats(nc, n, op, a, sizeof a, &mxa, &na);
        if (pc) x_stats(pc, n, op, b, sizeof b, &mxb, &nb);
        if (!na && !nb) continue; /* a call the compute threads do not make */
        if (pc) {
            double bound = mxa + 2 * slice_us * 1e-6 + grace_ms * 1e-3;
            int ok = mxb <= bound;
            within &= ok;
            snprintf(vb, sizeof vb, "%s (<= %.2f ms)", nb ? (ok ? "yes" : "NO") : "not met", bound * 1e3);
        }
        printf("| %s | %s | %s | %s |\n", op_name[op], a, b, vb);
    }
    return within;
}

static int cross_main(int n, int seeds, int iters, uint64_t seed, double secs, int timeout_s, double grace_ms,
                      int do_pccl, int do_nccl)
{
    int have = 0;
    if (cudaGetDeviceCount(&have) != cudaSuccess || have < n) {
        printf("pccl-share: skipped: --gpus %d needs %d GPUs, found %d\n", n, n, have);
        return 77;
    }
    for (int d = 0; d < n; d++) x_prewarm(d);
    long slice_us = slice_us_env();
    printf("# cross-rank: %d GPUs, each library at least %.1f s; pccl: at least %d seeds x %d iterations of the "
           "random-order test (seed %llu on); NCCL: one order; PCCL_SLICE_US=%ld\n", n, secs, seeds, iters,
           (unsigned long long)seed, slice_us);
    static xrank_t X[2][64]; /* 0 NCCL, 1 pccl */
    static int stop_at[2] = {INT32_MAX, INT32_MAX};
    int rc = 0;
    for (int lib = 0; lib < 2; lib++) {
        if (lib == 0 ? !do_nccl : !do_pccl) continue;
        xrank_t *Rs = X[lib];
        for (int r = 0; r < n; r++) {
            Rs[r].seed0 = seed;
            Rs[r].seeds = seeds;
            Rs[r].iters = iters;
            Rs[r].stop_at = &stop_at[lib];
        }
        if (x_open(Rs, n, lib)) return 1;
        for (int r = 0; r < n; r++) Rs[r].end_s = now_s() + secs;
        int h = x_run(Rs, n, lib, timeout_s);
        if (h) _exit(h); /* threads stuck: do not wait for them */
        unsigned long it = 0, wrong = 0, fr = 0;
        for (int r = 0; r < n; r++) { it += Rs[r].iters_done; wrong += Rs[r].wrong; fr += Rs[r].fresh; }
        printf("# %s: %lu iterations over %d ranks (%lu each: %s), %lu wrong elements, %lu fresh-kernel first "
               "launches\n", lib ? "pccl" : "NCCL", it, n, Rs[0].iters_done,
               lib ? "random orders, a new seed every --iters" : "one order", wrong, fr);
        if (wrong) rc = 4;
        if (lib) {
            for (int r = 0; r < n; r++) print_slices(Rs[r].pc, r);
        }
        x_close(Rs, n);
    }
    int within = x_table(do_nccl ? X[0] : NULL, "NCCL", do_pccl ? X[1] : NULL, n, slice_us, grace_ms);
    if (!rc && (!within || failures)) rc = 1;
    printf("\nRESULT pccl-share --gpus %d: %s; %d failed calls; %s\n", n,
           !do_pccl ? "pccl not run" : rc == 4 ? "WRONG data" : within ? "every pccl call within the bound, no hang, exact"
                                                                : "a pccl call past the bound",
           failures, rc ? "FAILED" : "ok");
    return rc;
}

/* --procs N: the same with one process per rank (pcclCommInitRank), so that
 * ranks may share a GPU (rank r on device r mod the GPUs, or as
 * PCCL_DEVICE_OF_RANK says): each process a communication and a compute
 * thread as above, pccl only (NCCL refuses two ranks on one GPU).  Processes
 * that share a GPU are time-sliced by it, and a call waits for the others'
 * slices of GPU time too, with or without pccl (a cuModuleLoadData with
 * first launch took 14 ms against 2 slices + 5 ms with pccl's bound alone).
 * So first, before any communicator exists, each rank in turn makes the
 * calls for secs / 2 while the other ranks keep their GPUs busy with plain
 * kernels (the reference, beside pccl's column), and a pccl call is within
 * the bound when it took at most the reference's slowest + 2 slices +
 * --grace-ms.  Forked before the parent touches CUDA. */
typedef struct {
    int stop_at;   /* the iteration no rank starts (rank 0 sets it) */
    int arrived;   /* ranks at the reference's start */
    int turn_done; /* the reference's turns completed */
} procs_shared;

/* Rank r's turn of the reference: its compute thread for secs; the other
 * turns: plain kernels back to back on its GPU (200 us each, a few queued)
 * until that turn is done.  Returns 0, or 1 when the ranks never met or a
 * turn never ended (its rank died: a minute past its time). */
static int x_reference(xrank_t *REF, procs_shared *sh, double secs)
{
    int r = REF->rank, n = REF->nranks;
    __atomic_add_fetch(&sh->arrived, 1, __ATOMIC_ACQ_REL);
    for (double t0 = now_s(); __atomic_load_n(&sh->arrived, __ATOMIC_ACQUIRE) < n; usleep(1000))
        if (now_s() - t0 > 60) { fprintf(stderr, "rank %d: the other ranks never came to the reference\n", r); return 1; }
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int turn = 0; turn < n; turn++) {
        if (turn == r) {
            int stop = 0;
            REF->stop = &stop;
            pthread_t th;
            if (pthread_create(&th, NULL, x_compute_main, REF)) { fprintf(stderr, "rank %d: pthread_create\n", r); return 1; }
            usleep((useconds_t)(secs * 1e6));
            __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
            pthread_join(th, NULL);
            REF->stop = NULL;
            __atomic_store_n(&sh->turn_done, turn + 1, __ATOMIC_RELEASE);
            continue;
        }
        double t1 = now_s();
        for (int k = 0; __atomic_load_n(&sh->turn_done, __ATOMIC_ACQUIRE) <= turn; k++) {
            busy_k<<<32, 256, 0, s>>>(200000ull);
            if (k % 4 == 3) CK(cudaStreamSynchronize(s));
            if (now_s() - t1 > secs + 60) { fprintf(stderr, "rank %d: rank %d's turn of the reference never ended\n", r, turn); return 1; }
        }
        CK(cudaStreamSynchronize(s));
    }
    CK(cudaStreamDestroy(s));
    return 0;
}

static int x_proc_rank(int r, int n, int dev, pcclUniqueId id, procs_shared *sh, int seeds, int iters, uint64_t seed,
                       double secs, int timeout_s, double grace_ms)
{
    if (driver_fn("cuModuleLoadData", (void **)&p_load) || driver_fn("cuModuleGetFunction", (void **)&p_getfn) ||
        driver_fn("cuLaunchKernel", (void **)&p_launch) || driver_fn("cuModuleUnload", (void **)&p_unload))
        return 1;
    x_prewarm(dev);
    static xrank_t REF; /* the reference: the calls with pccl idle, the other ranks' kernels running */
    REF.rank = r;
    REF.nranks = n;
    REF.dev = dev;
    REF.seed0 = seed;
    if (x_reference(&REF, sh, secs / 2)) return 1;
    static xrank_t R; /* static: its vectors outlive an _exit on a hang */
    R.is_pccl = 1;
    R.rank = r;
    R.nranks = n;
    R.dev = dev;
    R.seed0 = seed;
    R.seeds = seeds;
    R.iters = iters;
    R.stop_at = &sh->stop_at;
    if (pcclCommInitRank(&R.pc, n, id, r)) {
        fprintf(stderr, "rank %d: pcclCommInitRank: %s\n", r, pcclGetLastError(NULL));
        return 1;
    }
    float *tmp = (float *)malloc(dl_sched_bytes[DL_SCHED_NCOLL - 1]);
    int bad = x_buffers(&R, tmp);
    free(tmp);
    if (bad) return 1;
    R.end_s = now_s() + secs;
    int h = x_run(&R, 1, 1, timeout_s);
    if (h) _exit(h);
    long slice_us = slice_us_env();
    printf("# rank %d (pid %d, GPU %d): %lu iterations, %lu wrong elements, %lu fresh-kernel first launches\n", r,
           getpid(), dev, R.iters_done, R.wrong, R.fresh);
    print_slices(R.pc, r);
    int within = x_table(&REF, "pccl idle, the other ranks' kernels running", &R, 1, slice_us, grace_ms);
    pcclCommDestroy(R.pc);
    int rc = R.wrong ? 4 : !within || failures ? 1 : 0;
    printf("RESULT pccl-share --procs %d rank %d: %s; %d failed calls\n", n, r,
           rc == 4 ? "WRONG data" : within ? "every call within the bound, exact" : "a call past the bound", failures);
    fflush(stdout);
    return rc;
}

static int cross_procs(int n, int seeds, int iters, uint64_t seed, double secs, int timeout_s, double grace_ms)
{
    int have = dl_gpu_count_forked();
    if (have < 1) { printf("pccl-share: skipped: no CUDA device\n"); return 77; }
    int dev[64];
    char list[512] = "";
    for (int r = 0; r < n; r++) {
        dev[r] = r % have;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", r ? "," : "", dev[r]);
    }
    const char *dor = getenv("PCCL_DEVICE_OF_RANK");
    if (dor && *dor) { /* pccl's own list decides: the compute thread follows it */
        const char *q = dor;
        for (int r = 0; r < n; r++) {
            char *end;
            long d = strtol(q, &end, 10);
            if (end == q || d < 0 || d >= have) { fprintf(stderr, "pccl-share: PCCL_DEVICE_OF_RANK='%s': no device for rank %d\n", dor, r); return 2; }
            dev[r] = (int)d;
            q = *end == ',' ? end + 1 : end;
        }
    } else {
        setenv("PCCL_DEVICE_OF_RANK", list, 1);
    }
    pcclUniqueId id;
    if (pcclGetUniqueId(&id)) { fprintf(stderr, "pcclGetUniqueId: %s\n", pcclGetLastError(NULL)); return 1; }
    procs_shared *sh = (procs_shared *)mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) return 1;
    sh->stop_at = INT32_MAX;
    sh->arrived = sh->turn_done = 0;
    printf("# cross-rank, one process per rank: %d ranks on GPUs %s of %d; at least %.1f s and %d seeds x %d "
           "iterations of the random-order test (seed %llu on)\n", n, dor && *dor ? dor : list, have, secs, seeds,
           iters, (unsigned long long)seed);
    fflush(stdout);
    pid_t kids[64];
    for (int r = 0; r < n; r++) {
        kids[r] = fork();
        if (kids[r] == 0)
            _exit(x_proc_rank(r, n, dev[r], id, sh, seeds, iters, seed, secs, timeout_s, grace_ms));
    }
    double t0 = now_s();
    /* each rank's own watchdog fires first; the reference takes secs / 2 per rank */
    int rc = dl_reap_ranks(kids, n, secs + n * secs / 2 + 4.0 * timeout_s);
    printf("\nRESULT pccl-share --procs %d: %s (worst rank exit %d, %.1f s)\n", n,
           rc == 0 ? "every call within the bound, no hang, exact" : rc == 3 ? "HANG" : rc == 4 ? "WRONG data"
                                                                  : "a call past the bound or a failure",
           rc, now_s() - t0);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: pccl-share [--reps N] [--count N] [--grace-ms MS] [--cap-s S] [--lib pccl|nccl|both]\n"
               "       pccl-share --gpus N | --procs N [--seeds S] [--iters K] [--seed X] [--secs SEC] [--timeout SEC]\n"
               "                  [--grace-ms MS] [--lib ...]\n"
               "  Times CUDA calls that wait for the GPU on one thread while another streams all-reduces\n"
               "  (out of place: in place, one rank moves nothing with either library),\n"
               "  on pccl and on NCCL (one GPU, one rank).  Defaults: --reps 5, --count 262144 floats (1 MiB),\n"
               "  --grace-ms 2, --cap-s 0 (none), --lib both.  PCCL_SLICE_US: pccl's time slice.  A pccl call\n"
               "  is within the bound at NCCL's slowest + 2 slices + --grace-ms; with --lib pccl, the slowest\n"
               "  of the same call made first with pccl idle takes NCCL's place.\n"
               "  --gpus N (>= 2): the cross-rank test: per rank, a compute thread makes those calls at random\n"
               "  points while the rank's communication thread runs the paper's random-order test for --seeds\n"
               "  (10) x --iters (10) iterations and --secs (3) s, data checked; NCCL first, --secs s, one order.\n"
               "  --procs N (>= 2): the same with one process per rank, pccl only (ranks may share a GPU:\n"
               "  rank r on GPU r mod the GPUs, or PCCL_DEVICE_OF_RANK); first, each rank in turn makes the\n"
               "  calls for --secs / 2 with pccl idle while the others' GPUs run plain kernels: the bound is\n"
               "  that reference's slowest + 2 slices + --grace-ms.\n"
               "  Watchdog --timeout (30) s.  Exit 0 ok, 1 past the bound, 3 hang, 4 wrong data, 2 bad\n"
               "  arguments, 77 too few GPUs.\n");
}

int main(int argc, char **argv)
{
    int reps = 5, do_pccl = 1, do_nccl = 1;
    size_t count = 262144;
    double grace_ms = 2, cap_s = 0, secs = 3;
    int gpus = 0, procs = 0, seeds = 10, iters = 10, timeout_s = 30;
    unsigned long long xseed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        if (!v) { fprintf(stderr, "pccl-share: %s needs a value\n", a); usage(stderr); return 2; }
        i++;
        if (!strcmp(a, "--reps")) reps = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--count")) count = (size_t)strtoull(v, &end, 10);
        else if (!strcmp(a, "--grace-ms")) grace_ms = strtod(v, &end);
        else if (!strcmp(a, "--cap-s")) cap_s = strtod(v, &end);
        else if (!strcmp(a, "--gpus")) gpus = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--procs")) procs = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--seeds")) seeds = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--iters")) iters = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--seed")) xseed = strtoull(v, &end, 10);
        else if (!strcmp(a, "--secs")) secs = strtod(v, &end);
        else if (!strcmp(a, "--timeout")) timeout_s = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--lib")) {
            do_pccl = !strcmp(v, "pccl") || !strcmp(v, "both");
            do_nccl = !strcmp(v, "nccl") || !strcmp(v, "both");
            end = (char *)v + strlen(v);
            if (!do_pccl && !do_nccl) { fprintf(stderr, "pccl-share: --lib '%s': pccl, nccl or both\n", v); return 2; }
        } else { fprintf(stderr, "pccl-share: unknown argument '%s'\n", a); usage(stderr); return 2; }
        if (!end || *end) { fprintf(stderr, "pccl-share: %s '%s': not a number\n", a, v); return 2; }
    }
    if ((gpus || procs) && (gpus < 0 || gpus == 1 || gpus > 64 || procs < 0 || procs == 1 || procs > 64 ||
                            (gpus && procs) || seeds < 1 || iters < 1 || secs <= 0 || timeout_s < 1)) {
        fprintf(stderr, "pccl-share: --gpus or --procs in [2, 64] (one of them), --seeds, --iters, --timeout >= 1, "
                        "--secs > 0\n");
        return 2;
    }
    if (reps < 1 || reps > MAXREPS || count < 1 || grace_ms < 0 || cap_s < 0) {
        fprintf(stderr, "pccl-share: --reps in [1, %d], --count >= 1, --grace-ms and --cap-s >= 0\n", MAXREPS);
        return 2;
    }
    /* fresh kernels: each library's idle first launches and streamed ones,
     * and with --lib pccl alone the reference's (run_idle) */
    if ((size_t)reps * ((do_pccl + do_nccl) * 2 + !do_nccl) > NFRESH) {
        fprintf(stderr, "pccl-share: --reps %d needs more than the %d fresh kernels\n", reps, NFRESH);
        return 2;
    }
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    srand(1);
    fill_fresh(std::make_integer_sequence<int, NFRESH>{}); /* before any fork: no CUDA in it */
    fill_fresh_store(std::make_integer_sequence<int, NSTORE>{});
    if (procs) return cross_procs(procs, seeds, iters, xseed, secs, timeout_s, grace_ms);
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        printf("pccl-share: skipped: no CUDA device\n");
        return 77;
    }
    if (driver_fn("cuModuleLoadData", (void **)&p_load) || driver_fn("cuModuleGetFunction", (void **)&p_getfn) ||
        driver_fn("cuLaunchKernel", (void **)&p_launch) || driver_fn("cuModuleUnload", (void **)&p_unload))
        return 1;
    if (gpus) return cross_main(gpus, seeds, iters, xseed, secs, timeout_s, grace_ms, do_pccl, do_nccl);
    const char *ml = getenv("CUDA_MODULE_LOADING"), *sl = getenv("PCCL_SLICE_US"), *wl = getenv("PCCL_WATCH_US");
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int drv = 0, ncv = 0;
    cudaDriverGetVersion(&drv);
    ncclGetVersion(&ncv);
    printf("# %s, driver CUDA %d.%d, NCCL %d, CUDA_MODULE_LOADING=%s, PCCL_SLICE_US=%s, PCCL_WATCH_US=%s, %d reps, "
           "%zu floats\n",
           prop.name, drv / 1000, drv % 1000 / 10, ncv, ml ? ml : "(unset: lazy)", sl ? sl : "(default)",
           wl ? wl : "(default: 0)", reps, count);
    ctx_t X;
    memset(&X, 0, sizeof X);
    X.bytes = count * sizeof(float);
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&X.flag, 4096));
    CK(cudaMalloc(&X.dcopy, X.bytes));
    CK(cudaHostAlloc((void **)&X.hflag, 64, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&X.hflag_dev, X.hflag, 0));
    CK(cudaStreamCreateWithFlags(&X.s, cudaStreamNonBlocking));
    X.hbuf = calloc(1, X.bytes);
    for (int r = 0; r < reps; r++) X.hreg[r] = aligned_alloc(4096, (X.bytes + 4095) & ~(size_t)4095);
    /* The graph's kernel loaded already, and the PTX JIT-compiled once, untimed: the first
     * cuModuleLoadData of a fresh machine compiles it (37-97 ms on H200s), which NCCL's first
     * rep took, raising the row's bound, and with --lib pccl pccl's, past its bound. */
    x_prewarm(0);
    static result_t R[2]; /* 0 NCCL, 1 pccl */
    int err = 0;
    /* The reference a pccl call is judged by: NCCL's call with NCCL's
     * collectives streaming; without NCCL, the call with pccl idle (without
     * one, a call that is slow by itself, a module load compiling its PTX
     * with the JIT cache off, was past the bound). */
    const int idle_ref = do_pccl && !do_nccl;
    if (do_nccl && run_lib(0, count, reps, cap_s, 0, &X, &R[0])) err = 1;
    if (do_pccl && run_lib(1, count, reps, cap_s, idle_ref, &X, &R[1])) err = 1;
    long slice_us = slice_us_env();
    printf("\n| main thread, while the other thread streams collectives | %s min / median / max ms | "
           "pccl min / median / max ms | collectives during a call (NCCL / pccl) | pccl within bound |\n",
           idle_ref ? "pccl idle (the reference)" : "NCCL");
    printf("|---|---|---|---|---|\n");
    char a[64] = "-", b[64] = "-";
    if (R[0].ran) fmt_ms(a, sizeof a, R[0].idle_fresh, reps, 0);
    if (R[1].ran) fmt_ms(b, sizeof b, R[1].idle_fresh, reps, 0);
    printf("| %s (library idle) | %s | %s | - | - |\n", op_name[OP_FRESH], a, b);
    int within_all = 1;
    char past[512] = ""; /* the calls past the bound, for the result line (a report keeps that line) */
    for (int op = 0; op < OP_N; op++) {
        strcpy(a, "-");
        strcpy(b, "-");
        if (R[0].ran) fmt_ms(a, sizeof a, R[0].t[op], reps, cap_s);
        else if (idle_ref && R[1].ran) fmt_ms(a, sizeof a, R[1].idle[op], reps, 0);
        if (R[1].ran) fmt_ms(b, sizeof b, R[1].t[op], reps, cap_s);
        const char *verdict = "-";
        if (R[1].ran) {
            double ref = R[0].ran ? max_of(R[0].t[op], reps) : max_of(R[1].idle[op], reps);
            double bound = ref + 2 * wait_bound_s(R[1].watch, slice_us) + grace_ms * 1e-3;
            int ok = max_of(R[1].t[op], reps) <= bound;
            within_all &= ok;
            if (!ok)
                snprintf(past + strlen(past), sizeof past - strlen(past), "%s%s %.2f ms > %.2f", *past ? ", " : "",
                         op_name[op], max_of(R[1].t[op], reps) * 1e3, bound * 1e3);
            static char v[64];
            snprintf(v, sizeof v, "%s (<= %.2f ms)", ok ? "yes" : "NO", bound * 1e3);
            verdict = v;
        }
        char nc[32] = "-", pc[32] = "-"; /* a library that did not run streamed nothing */
        if (R[0].ran) snprintf(nc, sizeof nc, "%.1f", R[0].per_op_colls[op]);
        if (R[1].ran) snprintf(pc, sizeof pc, "%.1f", R[1].per_op_colls[op]);
        printf("| %s | %s | %s | %s / %s | %s |\n", op_name[op], a, b, nc, pc, verdict);
    }
    printf("\nRESULT pccl-share: %s%s%s; %d failed CUDA calls\n",
           !R[1].ran ? "pccl not run" : within_all ? "every pccl call within the bound" : "a pccl call past the bound",
           *past ? ": " : "", past, failures);
    free(X.hbuf);
    for (int r = 0; r < reps; r++) free(X.hreg[r]);
    return err || failures || (R[1].ran && !within_all) ? 1 : 0;
}
