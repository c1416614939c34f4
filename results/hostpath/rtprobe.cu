/* What each piece of the daemon's per-invocation path costs in a round trip
 * (issue 16).  A persistent block of 512 threads plays block 0: its thread 0
 * polls a 16-byte record in pinned memory, does the pieces that the mode's
 * bits name, and answers in pinned memory; the host writes the record and
 * spins on the answer, 20,000 times per mode after 2,000 warm-up rounds.
 * Build: nvcc -O2 -arch=sm_90 -o rtprobe rtprobe.cu; run: ./rtprobe. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum {
    REC16 = 1,    /* poll a 16-byte record (ld.relaxed.sys.v2) instead of an 8-byte word */
    FACQ = 2,     /* fence.acq_rel.sys after the record */
    LDACQ = 4,    /* poll with ld.acquire.sys (8-byte) */
    COPY = 8,     /* thread 0 copies 8 B device -> device */
    BAR = 16,     /* the movers copy instead, between two __syncthreads */
    TICKET = 32,  /* atom.acq_rel.gpu.add on a device word, its value used */
    FREL = 64,    /* fence.acq_rel.sys before the answer */
    STREL = 128,  /* the answer by st.release.sys (else st.relaxed.sys) */
    FIN = 256,    /* a second pinned store before the answer */
    CHAIN = 512,  /* four dependent loads of device memory (a scheduler's lookups) */
    REDP = 1024,  /* red.relaxed.gpu.add on a device word (the progress count) */
    CLK = 2048,   /* four %globaltimer reads */
    BARS = 4096,  /* four __syncthreads with no copy */
    DIV = 8192,   /* six dependent 64-bit divisions by a value the compiler cannot know */
    RACQ = 16384, /* the 16-byte record polled with ld.acquire.sys.v2 */
};

struct alignas(64) Rec { unsigned long long w[2]; };

__device__ __forceinline__ void ld16(const unsigned long long *p, unsigned long long &a, unsigned long long &b)
{
    asm volatile("ld.relaxed.sys.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}
__device__ __forceinline__ void ld16acq(const unsigned long long *p, unsigned long long &a, unsigned long long &b)
{
    asm volatile("ld.acquire.sys.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}
__device__ __forceinline__ unsigned long long ld8(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned long long ld8acq(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st8(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void st8rel(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__global__ void __launch_bounds__(512) probe(int mode, int n, Rec *sq, unsigned long long *cq,
                                             unsigned long long *fin, const unsigned long long *in,
                                             unsigned long long *out, unsigned long long *dev, long long **chain)
{
    __shared__ unsigned long long sh_src;
    for (int i = 1; i <= n; i++) {
        unsigned long long a = 0, b = 0, sink = 0;
        if (threadIdx.x == 0) {
            for (;;) {
                if (mode & RACQ) ld16acq(sq->w, a, b);
                else if (mode & REC16) ld16(sq->w, a, b);
                else a = (mode & LDACQ) ? ld8acq(sq->w) : ld8(sq->w), b = (unsigned long long)(uintptr_t)in;
                if (a == (unsigned long long)i) break;
            }
            if (mode & FACQ) asm volatile("fence.acq_rel.sys;" ::: "memory");
            if (mode & CHAIN) { /* four dependent lookups, as G->colls[id] -> steps -> conn ... */
                long long *p = chain[a & 3];
                for (int k = 0; k < 4; k++) p = (long long *)(uintptr_t)p[0];
                sink += (unsigned long long)(uintptr_t)p;
            }
            if (mode & DIV) { /* as a step's slot and chunk arithmetic */
                unsigned long long x = a + 1000003ull * (unsigned long long)i, d = (b & 7) + 3 + sink;
                for (int k = 0; k < 6; k++) x = x / d + x % (d + 1) + 977;
                sink += x == 42;
            }
            if (mode & CLK)
                for (int k = 0; k < 4; k++) {
                    unsigned long long t;
                    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
                    sink += t;
                }
            if (mode & COPY) out[0] = ((const unsigned long long *)(uintptr_t)b)[0];
            if (sink == 1) out[1] = sink; /* keeps the lookups and divisions live; never true */
            sh_src = b;
        }
        if (mode & (BAR | BARS)) {
            __syncthreads();
            if ((mode & BAR) && threadIdx.x == 32) out[0] = ((const unsigned long long *)(uintptr_t)sh_src)[0];
            __syncthreads();
            if (mode & BARS) { __syncthreads(); __syncthreads(); }
        }
        if (threadIdx.x == 0) {
            if (mode & REDP) asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" ::"l"(dev + 16) : "memory");
            unsigned long long t = 0;
            if (mode & TICKET)
                asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;" : "=l"(t) : "l"(dev) : "memory");
            if (mode & FREL) asm volatile("fence.acq_rel.sys;" ::: "memory");
            if (mode & FIN) st8(fin, (unsigned long long)i + t * 0);
            if (mode & STREL) st8rel(cq, (unsigned long long)i + t * 0 + sink * 0);
            else st8(cq, (unsigned long long)i + t * 0 + sink * 0);
        }
    }
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20000, warm = rounds / 10;
    Rec *sq;
    unsigned long long *cq, *fin, *in, *out, *dev;
    long long **chain, *nodes;
    CK(cudaHostAlloc((void **)&sq, 4096, cudaHostAllocMapped));
    cq = (unsigned long long *)((char *)sq + 1024);
    fin = (unsigned long long *)((char *)sq + 2048);
    CK(cudaMalloc((void **)&in, 4096));
    CK(cudaMalloc((void **)&out, 4096));
    CK(cudaMalloc((void **)&dev, 4096));
    CK(cudaMemset(dev, 0, 4096));
    CK(cudaMalloc((void **)&nodes, 4096 * 8));
    CK(cudaMalloc((void **)&chain, 4 * sizeof(void *)));
    { /* chains of dependent pointers, 4 hops, in device memory */
        long long h[4096];
        for (int i = 0; i < 4096; i++) h[i] = (long long)(uintptr_t)(nodes + ((i * 131 + 517) % 4096));
        CK(cudaMemcpy(nodes, h, sizeof h, cudaMemcpyHostToDevice));
        long long *c[4] = {nodes, nodes + 64, nodes + 128, nodes + 192};
        CK(cudaMemcpy(chain, c, sizeof c, cudaMemcpyHostToDevice));
    }
    static const struct { int mode; const char *name; } M[] = {
        {0, "floor: 8-byte poll, relaxed answer"},
        {REC16, "16-byte record"},
        {LDACQ, "8-byte poll, ld.acquire.sys"},
        {REC16 | FACQ, "16-byte record + fence.acq_rel.sys"},
        {REC16 | COPY, "16-byte record + 8 B copy by thread 0"},
        {REC16 | BAR, "16-byte record + copy by a mover between 2 barriers"},
        {REC16 | BARS, "16-byte record + 4 barriers"},
        {REC16 | TICKET, "16-byte record + ticket atomic"},
        {REC16 | REDP, "16-byte record + progress red"},
        {REC16 | CHAIN, "16-byte record + 4 dependent device loads"},
        {REC16 | CLK, "16-byte record + 4 globaltimer reads"},
        {REC16 | FREL, "16-byte record + release fence before answer"},
        {REC16 | STREL, "16-byte record + st.release.sys answer"},
        {REC16 | FIN, "16-byte record + a second pinned store"},
        {REC16 | COPY | FREL, "record + copy + release fence"},
        {REC16 | COPY | STREL, "record + copy + st.release answer"},
        {REC16 | FACQ | CHAIN, "16-byte record + fence + 4 dependent device loads"},
        {REC16 | DIV, "16-byte record + 6 dependent 64-bit div/mod"},
        {RACQ, "16-byte record by ld.acquire.sys.v2"},
        {RACQ | CHAIN, "16-byte acquire record + 4 dependent device loads"},
        {REC16 | FACQ | BAR | TICKET | FREL | FIN | REDP, "pccl today (fence acq, movers, ticket, fence, 2 stores)"},
        {REC16 | FACQ | BAR | TICKET | FREL | FIN | REDP | CHAIN | CLK, "pccl today + lookups + clocks"},
        {REC16 | BAR | STREL, "lean: record, movers, st.release answer"},
        {REC16 | BAR | TICKET | STREL | FIN, "lean + ticket + fin"},
    };
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    printf("%-62s %8s %8s\n", "mode", "rt us", "p50 us");
    for (size_t m = 0; m < sizeof M / sizeof *M; m++) {
        int total = warm + rounds;
        volatile unsigned long long *vcq = cq;
        sq->w[0] = 0;
        sq->w[1] = (unsigned long long)(uintptr_t)in;
        *vcq = 0;
        __sync_synchronize();
        probe<<<1, 512, 0, s>>>(M[m].mode, total, sq, cq, fin, in, out, dev, chain);
        CK(cudaGetLastError());
        static double lat[1 << 20];
        double t0 = 0;
        for (int i = 1; i <= total; i++) {
            double a = now_us();
            if (i == warm + 1) t0 = a;
            __atomic_store_n(&sq->w[1], (unsigned long long)(uintptr_t)in, __ATOMIC_RELAXED);
            __atomic_store_n(&sq->w[0], (unsigned long long)i, __ATOMIC_RELEASE);
            while (__atomic_load_n((unsigned long long *)cq, __ATOMIC_ACQUIRE) != (unsigned long long)i) {}
            if (i > warm) lat[i - warm - 1] = now_us() - a;
        }
        double t = (now_us() - t0) / rounds;
        CK(cudaStreamSynchronize(s));
        /* median by partial selection: a plain sort is fine at these sizes */
        qsort(lat, rounds, sizeof *lat, [](const void *x, const void *y) {
            double d = *(const double *)x - *(const double *)y;
            return (d > 0) - (d < 0);
        });
        printf("%-62s %8.2f %8.2f\n", M[m].name, t, lat[rounds / 2]);
        fflush(stdout);
    }
    return 0;
}
