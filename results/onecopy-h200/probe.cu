/* probe.cu: can one rank's out-of-place collective be a cudaMemcpyAsync
 * beside pccl's daemon, at nccl-tests' speed (issue 16)?  One GPU.
 *
 * For each size, device-to-device copies on a non-blocking stream, timed
 * three ways:
 *   b2b   -n copies back to back, one event pair around them (nccl-tests'
 *         timing), time per copy;
 *   ring  the copies each followed by a cuStreamWriteValue64 of its number
 *         into mapped pinned memory, at most 4 outstanding, the host
 *         spinning on that word before it issues the fifth (the path
 *         pcclRun would take: the host sees each completion), time per copy;
 *   rt    one copy and its word at a time, waited for (round trip).
 * Each under three neighbours: none; a stand-in daemon (64 blocks of 512
 * threads, block 0 polling mapped host memory, the rest a device word, as
 * the daemon's blocks do when idle); pccl's own daemon with a one-rank
 * communicator streaming 8 B all-reduces from a second thread (--pccl).
 *
 *   probe [--pccl] [-n N]     prints one line per (neighbour, size)
 * Exit 0 after the table; 1 a CUDA or pccl call failed. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pccl.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define DK(x) do { CUresult e_ = (x); if (e_) { fprintf(stderr, "%s:%d %s: CUresult %d\n", __FILE__, __LINE__, #x, (int)e_); exit(1); } } while (0)
#define PK(x) do { pcclResult_t r_ = (x); if (r_) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, pcclGetLastError(NULL)); exit(1); } } while (0)

static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }

__global__ void standin(volatile int *hstop, volatile int *dstop)
{
    if (threadIdx.x == 0) {
        if (blockIdx.x == 0) {
            while (!*hstop) ;
            *dstop = 1;
        } else {
            while (!*dstop) ;
        }
    }
    __syncthreads();
}

typedef CUresult (*write_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
static write_fn write64;

static volatile int stream_stop;
static pcclComm_t comm;
static void *streamer(void *a)
{
    (void)a;
    float *buf;
    CK(cudaMalloc(&buf, 256));
    int id;
    PK(pcclRegisterAllReduce(comm, 2, pcclFloat, pcclSum, 0, &id));
    long n = 0;
    while (!stream_stop) {
        PK(pcclRun(comm, id, buf, buf + 8, NULL, NULL));
        PK(pcclWait(comm, id));
        n++;
    }
    fprintf(stderr, "streamer: %ld all-reduces\n", n);
    return NULL;
}

int main(int argc, char **argv)
{
    int use_pccl = 0, n = 200;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pccl")) use_pccl = 1;
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
    }
    CK(cudaSetDevice(0));
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuStreamWriteValue64", (void **)&write64, 12000, cudaEnableDefault, &q));
    size_t maxb = (size_t)512 << 20;
    char *src, *dst;
    CK(cudaMalloc(&src, maxb));
    CK(cudaMalloc(&dst, maxb));
    CK(cudaMemset(src, 1, maxb));
    cudaStream_t s, ds;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&ds, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    volatile uint64_t *word;
    CK(cudaHostAlloc((void **)&word, 64, cudaHostAllocMapped));
    uint64_t *dword;
    CK(cudaHostGetDevicePointer((void **)&dword, (void *)word, 0));
    int *hstop, *dstop;
    CK(cudaHostAlloc((void **)&hstop, 64, cudaHostAllocMapped));
    CK(cudaMalloc(&dstop, 64));
    pthread_t th;
    const char *names[3] = {"none", "standin", "pccl"};
    for (int nb = 0; nb < (use_pccl ? 3 : 2); nb++) {
        if (nb == 1) {
            *(volatile int *)hstop = 0;
            CK(cudaMemset(dstop, 0, 64));
            CK(cudaDeviceSynchronize());
            standin<<<64, 512, 0, ds>>>((volatile int *)hstop, (volatile int *)dstop);
            CK(cudaGetLastError());
        }
        if (nb == 2) {
            PK(pcclCommInitAll(&comm, 1, NULL));
            pthread_create(&th, NULL, streamer, NULL);
        }
        uint64_t seq = *word;
        for (size_t b = 8; b <= maxb; b *= 4) {
            int reps = b >= ((size_t)64 << 20) ? n / 4 + 1 : n;
            for (int w = 0; w < 10; w++) CK(cudaMemcpyAsync(dst, src, b, cudaMemcpyDeviceToDevice, s));
            CK(cudaStreamSynchronize(s));
            CK(cudaEventRecord(e0, s));
            for (int i = 0; i < reps; i++) CK(cudaMemcpyAsync(dst, src, b, cudaMemcpyDeviceToDevice, s));
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            double b2b = ms * 1e3 / reps;
            double t0 = now_us();
            uint64_t issued = seq;
            for (int i = 0; i < reps; i++) {
                while (issued - *word >= 4) ;
                CK(cudaMemcpyAsync(dst, src, b, cudaMemcpyDeviceToDevice, s));
                DK(write64((CUstream)s, (CUdeviceptr)(uintptr_t)dword, ++issued, 0));
            }
            while (*word != issued) ;
            double ring = (now_us() - t0) / reps;
            t0 = now_us();
            for (int i = 0; i < reps; i++) {
                CK(cudaMemcpyAsync(dst, src, b, cudaMemcpyDeviceToDevice, s));
                DK(write64((CUstream)s, (CUdeviceptr)(uintptr_t)dword, ++issued, 0));
                while (*word != issued) ;
            }
            double rt = (now_us() - t0) / reps;
            seq = issued;
            printf("%-8s %10zu  b2b %9.2f us  ring4 %9.2f us  rt %9.2f us  (%.0f GB/s b2b)\n", names[nb], b, b2b, ring,
                   rt, 2.0 * b / b2b / 1e3);
            fflush(stdout);
        }
        if (nb == 1) {
            __atomic_store_n(hstop, 1, __ATOMIC_RELEASE);
            CK(cudaStreamSynchronize(ds));
        }
        if (nb == 2) {
            stream_stop = 1;
            pthread_join(th, NULL);
            PK(pcclCommDestroy(comm));
        }
    }
    return 0;
}
