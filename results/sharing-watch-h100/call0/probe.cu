// Feasibility probe: can a CUPTI callback watch see a CUDA call blocked by a
// persistent kernel, and what does subscribing cost per kernel launch?
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <atomic>

static uint64_t now_ns() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000ull + t.tv_nsec; }

#define NSLOT 64
static std::atomic<uint64_t> since[NSLOT];
static const char *sname[NSLOT];
static std::atomic<int> nslot{0};
static thread_local int slot = -1, depth = 0, mute = 0;
static thread_local uint64_t t_enter[16];
struct Log { const char *name; int depth; uint64_t ns; uint64_t at; };
static Log logs[256];
static std::atomic<int> nlog{0};
static uint64_t t0;

static void CUPTIAPI cb(void *, CUpti_CallbackDomain dom, CUpti_CallbackId, const void *data)
{
    const CUpti_CallbackData *d = (const CUpti_CallbackData *)data;
    if (mute) return;
    if (slot < 0) slot = nslot.fetch_add(1) % NSLOT;
    uint64_t n = now_ns();
    if (d->callbackSite == CUPTI_API_ENTER) {
        if (depth < 16) t_enter[depth] = n;
        if (depth++ == 0) { sname[slot] = d->functionName; since[slot].store(n, std::memory_order_release); }
    } else {
        --depth;
        uint64_t t = depth < 16 ? n - t_enter[depth] : 0;
        if (depth == 0) since[slot].store(0, std::memory_order_release);
        if (t > 50000) { int i = nlog.fetch_add(1); if (i < 256) logs[i] = {d->functionName, depth + (dom == CUPTI_CB_DOMAIN_DRIVER_API ? 100 : 0), t, n - t0}; }
    }
}

__global__ void daemon(volatile int *stop) { if (threadIdx.x == 0) while (!*stop) __nanosleep(500); }
__global__ void emptyk() {}
#define FRESH(i) __global__ void fresh##i(int *p) { p[threadIdx.x] += i; }
FRESH(0) FRESH(1) FRESH(2) FRESH(3) FRESH(4) FRESH(5) FRESH(6) FRESH(7)
FRESH(8) FRESH(9) FRESH(10) FRESH(11)
typedef void (*fk)(int *);
static fk fresh[] = {fresh0, fresh1, fresh2, fresh3, fresh4, fresh5, fresh6, fresh7, fresh8, fresh9, fresh10, fresh11};

static volatile int *stopflag;
static std::atomic<int> quit{0}, cuts{0};
static uint64_t thr_ns = 100000, gap_ns = 20000, backstop_ns = 2000000000ull;
static int watch_on = 1;
static cudaStream_t s1;

static void *launcher(void *)
{
    mute = 1;
    int running = 0;
    uint64_t launched = 0, ended = 0;
    while (!quit.load()) {
        uint64_t n = now_ns();
        if (running) {
            if (cudaStreamQuery(s1) == cudaSuccess) { running = 0; ended = n; }
            else {
                int cut = 0;
                if (watch_on) for (int i = 0; i < nslot.load() && i < NSLOT; i++) { uint64_t s = since[i].load(std::memory_order_acquire); if (s && s < n && n - s > thr_ns && s > launched) cut = 1; }
                if (n - launched > backstop_ns) cut = 1;
                if (cut && !*stopflag) { *stopflag = 1; cuts++; }
            }
        } else if (n - ended > gap_ns) {
            *stopflag = 0;
            daemon<<<1, 32, 0, s1>>>(stopflag);
            running = 1; launched = now_ns();
        }
        struct timespec ts = {0, 2000}; nanosleep(&ts, 0);
    }
    *stopflag = 1;
    cudaStreamSynchronize(s1);
    return 0;
}

static double us(uint64_t a, uint64_t b) { return (b - a) / 1e3; }

static void overhead(const char *label)
{
    for (int i = 0; i < 2000; i++) emptyk<<<1, 1>>>();
    cudaDeviceSynchronize();
    double best = 1e9;
    for (int r = 0; r < 5; r++) {
        uint64_t a = now_ns();
        for (int i = 0; i < 20000; i++) emptyk<<<1, 1>>>();
        uint64_t b = now_ns();
        cudaDeviceSynchronize();
        double per = (b - a) / 20000.0;
        if (per < best) best = per;
    }
    printf("launch overhead %-28s %.0f ns per launch (best of 5 x 20000)\n", label, best);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "watch";
    t0 = now_ns();
    cudaFree(0);
    if (!strcmp(mode, "overhead")) {
        overhead("no CUPTI");
        CUpti_SubscriberHandle sub;
        if (cuptiSubscribe(&sub, cb, 0) != CUPTI_SUCCESS) { printf("subscribe failed\n"); return 1; }
        cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
        overhead("driver domain");
        cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
        overhead("driver+runtime domains");
        cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_DRIVER_API);
        overhead("runtime domain");
        cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
        overhead("cuLaunchKernel(Ex) only");
        cuptiUnsubscribe(sub);
        overhead("unsubscribed");
        return 0;
    }
    watch_on = strcmp(mode, "off") != 0;
    const char *dom = argc > 2 ? argv[2] : "both";
    CUpti_SubscriberHandle sub;
    if (cuptiSubscribe(&sub, cb, 0) != CUPTI_SUCCESS) { printf("subscribe failed\n"); return 1; }
    if (strcmp(dom, "runtime")) cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
    if (strcmp(dom, "driver")) cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    int *flag;
    cudaHostAlloc(&flag, 4, cudaHostAllocMapped);
    stopflag = flag; *flag = 0;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStream_t s2; cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    int *buf; cudaMalloc(&buf, 4096);
    pthread_t th; pthread_create(&th, 0, launcher, 0);
    usleep(50000);
    printf("mode %s domains %s threshold %.0f us\n", mode, dom, thr_ns / 1e3);
    for (int i = 0; i < 4; i++) {
        uint64_t a = now_ns(); fresh[i]<<<1, 32, 0, s2>>>(buf); uint64_t b = now_ns(); cudaStreamSynchronize(s2); uint64_t c = now_ns();
        printf("first launch %d: launch %.0f us, +sync %.0f us\n", i, us(a, b), us(a, c));
        usleep(20000);
    }
    for (int i = 0; i < 3; i++) {
        void *p; cudaMalloc(&p, 1 << 20); uint64_t a = now_ns(); cudaFree(p); uint64_t b = now_ns();
        printf("cudaFree %d: %.0f us\n", i, us(a, b));
        usleep(20000);
    }
    for (int i = 0; i < 2; i++) {
        static char h[1 << 16]; uint64_t a = now_ns(); cudaHostRegister(h, sizeof h, 0); uint64_t b = now_ns(); cudaHostUnregister(h); uint64_t c = now_ns();
        printf("cudaHostRegister %d: %.0f us, Unregister %.0f us\n", i, us(a, b), us(b, c));
        usleep(20000);
    }
    for (int i = 0; i < 2; i++) {
        int h[64]; uint64_t a = now_ns(); cudaMemcpy(h, buf, sizeof h, cudaMemcpyDeviceToHost); uint64_t b = now_ns();
        printf("cudaMemcpy D2H %d: %.0f us\n", i, us(a, b));
        usleep(20000);
    }
    for (int i = 0; i < 2; i++) {
        uint64_t a = now_ns(); cudaDeviceSynchronize(); uint64_t b = now_ns();
        printf("cudaDeviceSynchronize %d: %.0f us\n", i, us(a, b));
        usleep(20000);
    }
    quit = 1;
    pthread_join(th, 0);
    printf("cuts %d\n", cuts.load());
    int n = nlog.load(); if (n > 256) n = 256;
    for (int i = 0; i < n; i++) printf("  long call %-40s depth %3d %8.0f us at %.1f ms\n", logs[i].name, logs[i].depth, logs[i].ns / 1e3, logs[i].at / 1e6);
    return 0;
}
