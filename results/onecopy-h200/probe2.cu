/* probe2.cu: where one rank's copy path loses ~2.5 us a copy against back-to-back copies
 * (results/onecopy-h200/, calls 1-2).  One GPU, no daemon.  For each size, device-to-device copies on
 * a non-blocking stream, each followed by one of three completion signals:
 *   wb   cuStreamWriteValue64 into mapped pinned memory, default flags (a memory barrier first);
 *   wn   the same with CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER (refused on an H200, CUresult 1: call 3;
 *        left out since);
 *   ev   cudaEventRecord of an event without timing (one of 4 in turn), the host polling cudaEventQuery.
 * Timed two ways: gpu, all -n copies and signals issued at once, one event pair around them (the GPU's
 * cost of the signal); ring4, at most 4 outstanding, the host waiting for the oldest's signal before it
 * issues the next (the host's too).  plain: copies alone, as nccl-tests times them.
 * With --rt (call 7): the round trip instead, each copy waited for before the next: by its event,
 * one thread spinning on cudaEventQuery (ev-rt), two threads spinning on it (ev2-rt: a second thread
 * queries too, as pccl's poller does beside a waiter), cudaStreamSynchronize (sync-rt, nccl-tests'
 * -z 1), the stream write (wb-rt).
 *   probe2 [-n N] [--rt]     one line per size.  Exit 0 after the table; 1 a CUDA call failed. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define DK(x) do { CUresult e_ = (x); if (e_) { fprintf(stderr, "%s:%d %s: CUresult %d\n", __FILE__, __LINE__, #x, (int)e_); exit(1); } } while (0)

static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
typedef CUresult (*write_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
static write_fn write64;
static cudaStream_t s;
static char *src, *dst;
static volatile uint64_t *word;
static uint64_t *dword, seq;
static cudaEvent_t ring[4];

/* Issues copy i of b bytes and its signal (0 wb, 1 wn, 2 ev). */
static void issue(int kind, size_t b, uint64_t i)
{
    CK(cudaMemcpyAsync(dst, src, b, cudaMemcpyDeviceToDevice, s));
    if (kind < 2) DK(write64((CUstream)s, (CUdeviceptr)(uintptr_t)dword, i, kind ? CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER : 0));
    else CK(cudaEventRecord(ring[i % 4], s));
}
static void wait_for(int kind, uint64_t i)
{
    if (kind < 2) { while (*word < i) ; return; }
    cudaError_t e;
    while ((e = cudaEventQuery(ring[i % 4])) == cudaErrorNotReady) ;
    CK(e);
}

/* --rt's second querier: spins on the newest event until told to stop. */
static volatile int q_stop, q_on;
static volatile uint64_t q_seq;
static void *querier(void *a)
{
    (void)a;
    while (!q_stop) {
        if (!q_on) continue;
        uint64_t i = q_seq;
        cudaEventQuery(ring[i % 4]);
    }
    return NULL;
}

static void round_trips(int n)
{
    size_t maxb = (size_t)512 << 20;
    pthread_t th;
    pthread_create(&th, NULL, querier, NULL);
    printf("%10s %8s %8s %8s %8s   (us per copy, round trip)\n", "bytes", "ev-rt", "ev2-rt", "sync-rt", "wb-rt");
    for (size_t b = 8; b <= maxb; b *= 4) {
        int reps = b >= ((size_t)64 << 20) ? n / 4 + 1 : n;
        printf("%10zu", b);
        for (int k = 0; k < 4; k++) {
            for (int w = 0; w < 10; w++) CK(cudaMemcpyAsync(dst, src, b, cudaMemcpyDeviceToDevice, s));
            CK(cudaStreamSynchronize(s));
            q_on = k == 1;
            double t0 = now_us();
            for (int i = 0; i < reps; i++) {
                ++seq;
                if (k == 3) {
                    issue(0, b, seq);
                    wait_for(0, seq);
                    continue;
                }
                CK(cudaMemcpyAsync(dst, src, b, cudaMemcpyDeviceToDevice, s));
                if (k == 2) { CK(cudaStreamSynchronize(s)); continue; }
                CK(cudaEventRecord(ring[seq % 4], s));
                q_seq = seq;
                wait_for(2, seq);
            }
            q_on = 0;
            printf(" %8.2f", (now_us() - t0) / reps);
        }
        printf("\n");
        fflush(stdout);
    }
    q_stop = 1;
    pthread_join(th, NULL);
}

int main(int argc, char **argv)
{
    int n = 200, rt = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rt")) rt = 1;
    }
    CK(cudaSetDevice(0));
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuStreamWriteValue64", (void **)&write64, 12000, cudaEnableDefault, &q));
    size_t maxb = (size_t)512 << 20;
    CK(cudaMalloc(&src, maxb));
    CK(cudaMalloc(&dst, maxb));
    CK(cudaMemset(src, 1, maxb));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 4; i++) CK(cudaEventCreateWithFlags(&ring[i], cudaEventDisableTiming));
    CK(cudaHostAlloc((void **)&word, 64, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&dword, (void *)word, 0));
    if (rt) {
        round_trips(n);
        return 0;
    }
    const char *kn[3] = {"wb", "wn", "ev"};
    printf("%10s %8s", "bytes", "plain");
    for (int k = 0; k < 3; k += 2) printf("  %6s-gpu %6s-ring4", kn[k], kn[k]);
    printf("   (us per copy)\n");
    for (size_t b = 8; b <= maxb; b *= 4) {
        int reps = b >= ((size_t)64 << 20) ? n / 4 + 1 : n;
        for (int w = 0; w < 10; w++) CK(cudaMemcpyAsync(dst, src, b, cudaMemcpyDeviceToDevice, s));
        CK(cudaEventRecord(e0, s));
        for (int i = 0; i < reps; i++) CK(cudaMemcpyAsync(dst, src, b, cudaMemcpyDeviceToDevice, s));
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        printf("%10zu %8.2f", b, ms * 1e3 / reps);
        for (int k = 0; k < 3; k += 2) {
            CK(cudaStreamSynchronize(s));
            CK(cudaEventRecord(e0, s));
            for (int i = 0; i < reps; i++) issue(k, b, ++seq);
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            double gpu = ms * 1e3 / reps;
            CK(cudaStreamSynchronize(s));
            double t0 = now_us();
            uint64_t first = seq + 1;
            for (int i = 0; i < reps; i++) {
                if (seq + 1 - first >= 4) wait_for(k, seq + 1 - 4);
                issue(k, b, ++seq);
            }
            wait_for(k, seq);
            printf("  %9.2f %12.2f", gpu, (now_us() - t0) / reps);
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
