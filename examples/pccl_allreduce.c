/* A complete pccl program: four GPUs (or four emulated GPUs with
 * PCCL_BACKEND=host; another count as its argument), two all-reduces that
 * each GPU invokes in its own order, with a GPU synchronization after every
 * invocation: the schedule that hangs NCCL (../shared/spec/nccl-facts.md)
 * and completes with pccl.
 *
 *   make examples && PCCL_BACKEND=host build/pccl-example      (CPU only)
 *   build/gpu/pccl-example                                       (4 GPUs)
 *   build/gpu/pccl-example 2                                     (2 GPUs)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pccl.h>

#ifdef PCCL_EXAMPLE_CUDA
#include <cuda_runtime.h>
#define COPY_IN(d, s, n) cudaMemcpy(d, s, n, cudaMemcpyHostToDevice)
#define COPY_OUT(d, s, n) cudaMemcpy(d, s, n, cudaMemcpyDeviceToHost)
#else
#define COPY_IN(d, s, n) memcpy(d, s, n)  /* host backend: buffers are host memory */
#define COPY_OUT(d, s, n) memcpy(d, s, n)
#endif

#define MAX_GPUS 8
#define COUNT (1 << 20)

#define CHECK(call)                                                                              \
    do {                                                                                         \
        pcclResult_t r = (call);                                                                 \
        if (r != pcclSuccess) {                                                                  \
            fprintf(stderr, "%s failed: %s: %s\n", #call, pcclGetErrorString(r), pcclGetLastError(NULL)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static pcclComm_t comms[MAX_GPUS];
static int coll[MAX_GPUS][2];
static int *buf[MAX_GPUS][2];

static void done(int collId, pcclResult_t status, void *arg)
{
    /* Runs on pccl's poller thread once the collective completed. */
    (void)collId, (void)status, (void)arg;
}

static void *gpu_main(void *arg)
{
    int g = (int)(long)arg;
    for (int k = 0; k < 2; k++) {
        int c = g % 2 ? 1 - k : k; /* odd GPUs invoke in the opposite order */
        CHECK(pcclRun(comms[g], coll[g][c], buf[g][c], buf[g][c], done, NULL)); /* in place */
        CHECK(pcclDeviceSynchronize(comms[g])); /* cudaDeviceSynchronize on the GPU backend */
    }
    CHECK(pcclWaitAll(comms[g]));
    return NULL;
}

int main(int argc, char **argv)
{
    static int host[COUNT];
    char *end = NULL;
    long ngpus = argc > 1 ? strtol(argv[1], &end, 10) : 4;
    if (argc > 2 || (argc > 1 && (*end || end == argv[1])) || ngpus < 2 || ngpus > MAX_GPUS) {
        fprintf(stderr, "usage: %s [GPUS]: GPUS, the ranks, from 2 to %d (default 4)\n", argv[0], MAX_GPUS);
        return 2;
    }
    const int n = (int)ngpus;
    CHECK(pcclCommInitAll(comms, n, NULL));
    for (int g = 0; g < n; g++)
        for (int c = 0; c < 2; c++) {
            /* Register once (every rank, same order), run as often as needed. */
            CHECK(pcclRegisterAllReduce(comms[g], COUNT, pcclInt32, pcclSum, 0, &coll[g][c]));
            CHECK(pcclMemAlloc(comms[g], (void **)&buf[g][c], COUNT * sizeof(int)));
            for (int i = 0; i < COUNT; i++) host[i] = g + c + i % 10;
            COPY_IN(buf[g][c], host, sizeof host);
        }
    pthread_t t[MAX_GPUS];
    for (int g = 0; g < n; g++) pthread_create(&t[g], NULL, gpu_main, (void *)(long)g);
    for (int g = 0; g < n; g++) pthread_join(t[g], NULL);
    long wrong = 0;
    for (int g = 0; g < n; g++)
        for (int c = 0; c < 2; c++) {
            COPY_OUT(host, buf[g][c], sizeof host);
            /* the sum over GPUs of g + c + i % 10 */
            for (int i = 0; i < COUNT; i++) wrong += host[i] != n * (n - 1) / 2 + n * c + n * (i % 10);
        }
    pcclStats_t s;
    CHECK(pcclCommGetStats(comms[0], &s));
    printf("2 all-reduces in opposite orders with syncs on %d GPUs: %s (%ld wrong elements); "
           "GPU 0: %llu preemptions, %llu voluntary quits\n",
           n, wrong ? "WRONG" : "correct", wrong, (unsigned long long)s.preemptions,
           (unsigned long long)s.quits);
    for (int g = 0; g < n; g++) {
        for (int c = 0; c < 2; c++) CHECK(pcclMemFree(comms[g], buf[g][c]));
        CHECK(pcclCommDestroy(comms[g]));
    }
    return wrong != 0;
}
