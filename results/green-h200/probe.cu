/* probe.cu: does a persistent kernel in a green context hold off the
 * primary context's implicit synchronizations, as one in the primary
 * context does (issue 22)?  One GPU.
 *
 * For each call below, a "daemon" (64 blocks of 512 threads spinning on a
 * mapped host flag) is launched, either on a stream of the primary context
 * or on one of a green context (--green N: N SMs, 0: all of the device's),
 * and once it runs, the main thread (the primary context current) makes the
 * call while a watchdog lets the daemon go after --hold-ms.  A call that
 * returns near --hold-ms waited for the daemon; one that returns at once did
 * not.  Also: whether the daemon's stores reach memory the primary context
 * allocated (device and mapped host), and the launch call's time in each
 * context.
 *
 *   probe [--green N] [--hold-ms MS] [--cubin FILE]
 * Exit 0 after printing the table; 1 a CUDA call failed; 2 bad arguments. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define DK(x) do { CUresult e_ = (x); if (e_) { const char *s_; cuGetErrorString(e_, &s_); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_); exit(1); } } while (0)

static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }

__global__ void spin(volatile int *stop, volatile int *started, int *dev_out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) *started = 1;
    while (!*stop) __nanosleep(200);
    if (threadIdx.x == 0) atomicAdd(dev_out, 1);
}
__global__ void noop(void) {}

/* Fresh kernels, each launched once (lazy loading loads each on its first launch). */
#define FRESH(n) __global__ void fresh##n(int *p) { if (p) p[0] = n; }
FRESH(0) FRESH(1) FRESH(2) FRESH(3) FRESH(4) FRESH(5) FRESH(6) FRESH(7)
static void (*freshk[])(int *) = {fresh0, fresh1, fresh2, fresh3, fresh4, fresh5, fresh6, fresh7};
static int nfresh;

static int green_sms = -1, hold_ms = 300;
static const char *cubin;
static CUcontext prim, gctx_as_ctx;
static CUgreenCtx gctx;
static cudaStream_t dstream; /* the daemon's */
static int *hstop, *hstarted, *dout;
static cudaStream_t ms; /* the main thread's */

struct wd { double at; };
static void *watchdog(void *a)
{
    double at = ((struct wd *)a)->at;
    while (now_ms() < at) usleep(1000);
    __atomic_store_n(hstop, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void daemon_launch(void)
{
    *hstop = 0;
    *hstarted = 0;
    if (green_sms >= 0) DK(cuCtxSetCurrent(gctx_as_ctx));
    int *ps, *pst;
    CK(cudaHostGetDevicePointer((void **)&ps, hstop, 0));
    CK(cudaHostGetDevicePointer((void **)&pst, hstarted, 0));
    spin<<<64, 512, 0, dstream>>>(ps, pst, dout);
    CK(cudaGetLastError());
    if (green_sms >= 0) DK(cuCtxSetCurrent(prim));
    double t0 = now_ms();
    while (!__atomic_load_n(hstarted, __ATOMIC_ACQUIRE))
        if (now_ms() - t0 > 5000) { fprintf(stderr, "the daemon never started\n"); exit(1); }
}

static void daemon_join(void)
{
    if (green_sms >= 0) DK(cuCtxSetCurrent(gctx_as_ctx));
    CK(cudaStreamSynchronize(dstream));
    if (green_sms >= 0) DK(cuCtxSetCurrent(prim));
}

typedef void (*op_fn)(void);
static void *buf;
static void op_fresh(void) { freshk[nfresh++ % 8]<<<1, 1, 0, ms>>>(NULL); CK(cudaStreamSynchronize(ms)); }
static void op_free(void) { CK(cudaFree(buf)); buf = NULL; }
static void op_malloc(void) { CK(cudaMalloc(&buf, 1 << 20)); }
static char hostbuf[1 << 16];
static void op_hreg(void) { CK(cudaHostRegister(hostbuf, sizeof hostbuf, 0)); }
static void op_hunreg(void) { CK(cudaHostUnregister(hostbuf)); }
static void op_memcpy(void) { CK(cudaMemcpy(hostbuf, buf, 4096, cudaMemcpyDeviceToHost)); }
static void op_legacy(void) { CK(cudaMemcpyAsync(hostbuf, buf, 4096, cudaMemcpyDeviceToHost, 0)); CK(cudaStreamSynchronize(0)); }
static void op_devsync(void) { CK(cudaDeviceSynchronize()); }
static void op_graph(void)
{
    cudaGraph_t g; cudaGraphExec_t x;
    CK(cudaStreamBeginCapture(ms, cudaStreamCaptureModeThreadLocal));
    noop<<<1, 1, 0, ms>>>();
    CK(cudaStreamEndCapture(ms, &g));
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphLaunch(x, ms));
    CK(cudaStreamSynchronize(ms));
    CK(cudaGraphExecDestroy(x)); CK(cudaGraphDestroy(g));
}
static void *image;
static void op_modload(void)
{
    CUmodule m; CUfunction f;
    DK(cuModuleLoadData(&m, image));
    DK(cuModuleGetFunction(&f, m, "modk"));
    void *args[] = {&buf};
    DK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, (CUstream)ms, args, NULL));
    CK(cudaStreamSynchronize(ms));
    DK(cuModuleUnload(m));
}
static void op_kernel(void) { noop<<<1, 1, 0, ms>>>(); CK(cudaStreamSynchronize(ms)); }

static void timed(const char *name, op_fn f)
{
    daemon_launch();
    pthread_t t; struct wd w = {now_ms() + hold_ms};
    pthread_create(&t, NULL, watchdog, &w);
    double t0 = now_ms();
    f();
    double dt = now_ms() - t0;
    int stopped = __atomic_load_n(hstop, __ATOMIC_ACQUIRE);
    pthread_join(t, NULL);
    daemon_join();
    printf("| %s | %.3f | %s |\n", name, dt, stopped ? "waited for the daemon" : "did not wait");
    fflush(stdout);
}

static void launch_rate(const char *where, int green)
{
    if (green) DK(cuCtxSetCurrent(gctx_as_ctx));
    cudaStream_t s = green ? dstream : ms;
    for (int i = 0; i < 100; i++) noop<<<64, 512, 0, s>>>();
    CK(cudaStreamSynchronize(s));
    double best = 1e9, sum = 0;
    for (int i = 0; i < 200; i++) {
        double t0 = now_ms();
        noop<<<64, 512, 0, s>>>();
        double d = now_ms() - t0;
        CK(cudaStreamSynchronize(s));
        sum += d; if (d < best) best = d;
    }
    if (green) DK(cuCtxSetCurrent(prim));
    printf("# launch call after an idle stream, %s: mean %.2f us, least %.2f us\n", where, sum / 200 * 1e3, best * 1e3);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--green") && i + 1 < argc) green_sms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--hold-ms") && i + 1 < argc) hold_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cubin") && i + 1 < argc) cubin = argv[++i];
        else { fprintf(stderr, "usage: probe [--green N] [--hold-ms MS] [--cubin FILE]\n"); return 2; }
    }
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    DK(cuCtxGetCurrent(&prim));
    CK(cudaHostAlloc((void **)&hstop, 64, cudaHostAllocMapped | cudaHostAllocPortable));
    CK(cudaHostAlloc((void **)&hstarted, 64, cudaHostAllocMapped | cudaHostAllocPortable));
    CK(cudaMalloc(&dout, 4));
    CK(cudaMemset(dout, 0, 4));
    CK(cudaStreamCreateWithFlags(&ms, cudaStreamNonBlocking));
    if (green_sms >= 0) {
        CUdevResource all, part[8], rest;
        DK(cuDeviceGetDevResource(0, &all, CU_DEV_RESOURCE_TYPE_SM));
        printf("# device: %u SMs, least partition %u, alignment %u\n", all.sm.smCount, all.sm.minSmPartitionSize, all.sm.smCoscheduledAlignment);
        CUdevResourceDesc desc;
        if (green_sms == 0) DK(cuDevResourceGenerateDesc(&desc, &all, 1));
        else {
            unsigned n = 1;
            DK(cuDevSmResourceSplitByCount(part, &n, &all, &rest, 0, green_sms));
            DK(cuDevResourceGenerateDesc(&desc, &part[0], 1));
        }
        DK(cuGreenCtxCreate(&gctx, desc, 0, CU_GREEN_CTX_DEFAULT_STREAM));
        CUdevResource got;
        DK(cuGreenCtxGetDevResource(gctx, &got, CU_DEV_RESOURCE_TYPE_SM));
        printf("# green context: %u SMs\n", got.sm.smCount);
        DK(cuCtxFromGreenCtx(&gctx_as_ctx, gctx));
        DK(cuGreenCtxStreamCreate((CUstream *)&dstream, gctx, CU_STREAM_NON_BLOCKING, 0));
    } else {
        CK(cudaStreamCreateWithFlags(&dstream, cudaStreamNonBlocking));
        printf("# daemon on a stream of the primary context\n");
    }
    if (cubin) {
        FILE *f = fopen(cubin, "rb");
        if (!f) { perror(cubin); return 2; }
        fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
        image = malloc(n);
        if (fread(image, 1, n, f) != (size_t)n) { perror(cubin); return 2; }
        fclose(f);
    }
    CK(cudaMalloc(&buf, 1 << 20));
    printf("| call (daemon %s) | ms | |\n|---|---|---|\n", green_sms < 0 ? "primary" : "green");
    timed("launch of a kernel launched before + sync", op_kernel); /* warms spin and noop in both */
    timed("launch of a kernel launched before + sync", op_kernel);
    timed("first launch of a fresh kernel + sync", op_fresh);
    timed("first launch of a fresh kernel + sync", op_fresh);
    timed("cudaFree", op_free);
    timed("cudaMalloc", op_malloc);
    timed("cudaHostRegister", op_hreg);
    timed("cudaHostUnregister", op_hunreg);
    timed("cudaMemcpy D2H 4 KiB", op_memcpy);
    timed("cudaMemcpyAsync, legacy stream + sync", op_legacy);
    timed("graph capture + launch + sync", op_graph);
    if (image) timed("cuModuleLoadData + launch + unload", op_modload);
    timed("first launch of a fresh kernel + sync", op_fresh);
    timed("cudaDeviceSynchronize", op_devsync);
    int n = 0;
    CK(cudaMemcpy(&n, dout, 4, cudaMemcpyDeviceToHost));
    printf("# the daemon's stores into the primary context's memory: %d of %d\n", n, 64 * (13 + (image != NULL)));
    launch_rate("primary", 0);
    if (green_sms >= 0) launch_rate("green", 1);
    return 0;
}
