/* One process per GPU: N processes (forked before any CUDA call) join one
 * communicator with pcclCommInitRank, their connector arenas shared through
 * CUDA IPC, and run the deadlock schedule of schedule.h (random per-GPU
 * orders, optionally cudaDeviceSynchronize after every collective), checking
 * every output.  Exit 0 all ranks correct, 3 a rank hung (killed after
 * --timeout s), 4 wrong data, 1 other failure, 77 skipped, 2 bad arguments.
 *   pccl-multiproc [--gpus N | --share N] [--iters K] [--sync] [--timeout SEC]
 * --share N: N processes all on GPU 0 (PCCL_DEVICE_OF_RANK=0,0,...), where
 * one GPU is all there is: the GPU contexts take turns, so it checks data and
 * progress, not speed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "../../lib/pccl.h"
#include "procs.h"
#include "schedule.h"

#define PC(call)                                                                                          \
    do {                                                                                                  \
        pcclResult_t r_ = (call);                                                                         \
        if (r_) {                                                                                         \
            fprintf(stderr, "rank %d: %s: %s (%s)\n", rank, #call, pcclGetErrorString(r_), pcclGetLastError(NULL)); \
            _exit(1);                                                                                     \
        }                                                                                                 \
    } while (0)

static int rank_main(int rank, int n, pcclUniqueId id, int iters, int sync)
{
    pcclComm_t comm;
    int ids[DL_SCHED_NCOLL], order[DL_SCHED_NCOLL];
    float *sb[DL_SCHED_NCOLL], *rb[DL_SCHED_NCOLL], *tmp = malloc(dl_sched_bytes[DL_SCHED_NCOLL - 1]);
    PC(pcclCommInitRank(&comm, n, id, rank));
    for (int c = 0; c < DL_SCHED_NCOLL; c++) {
        size_t cnt = dl_sched_count(c);
        PC(pcclRegisterAllReduce(comm, cnt, pcclFloat, pcclSum, 0, &ids[c]));
        PC(pcclMemAlloc(comm, (void **)&sb[c], cnt * sizeof(float)));
        PC(pcclMemAlloc(comm, (void **)&rb[c], cnt * sizeof(float)));
        for (size_t e = 0; e < cnt; e++) tmp[e] = dl_sched_input(rank, e, c);
        cudaMemcpy(sb[c], tmp, cnt * sizeof(float), cudaMemcpyHostToDevice);
    }
    long wrong = 0;
    for (int it = 0; it < iters; it++) {
        dl_sched_order(1, it, rank, DL_SCHED_NCOLL, order);
        for (int k = 0; k < DL_SCHED_NCOLL; k++) {
            PC(pcclRun(comm, ids[order[k]], sb[order[k]], rb[order[k]], NULL, NULL));
            if (sync && cudaDeviceSynchronize() != cudaSuccess) _exit(1);
        }
        PC(pcclWaitAll(comm));
        for (int c = 0; c < DL_SCHED_NCOLL; c++) {
            size_t cnt = dl_sched_count(c);
            cudaMemcpy(tmp, rb[c], cnt * sizeof(float), cudaMemcpyDeviceToHost);
            for (size_t e = 0; e < cnt; e++) wrong += tmp[e] != dl_sched_expected(n, e, c);
        }
    }
    pcclStats_t s;
    PC(pcclCommGetStats(comm, &s));
    printf("rank %d (pid %d): %d iterations, %ld wrong elements, %llu preemptions (%llu for a neighbour's wait), "
           "%llu quits\n", rank, getpid(), iters, wrong, (unsigned long long)s.preemptions,
           (unsigned long long)s.crossed, (unsigned long long)s.quits);
    for (int c = 0; c < DL_SCHED_NCOLL; c++) { pcclMemFree(comm, sb[c]); pcclMemFree(comm, rb[c]); }
    PC(pcclCommDestroy(comm));
    free(tmp);
    return wrong ? 4 : 0;
}

int main(int argc, char **argv)
{
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    int n = 0, iters = 50, sync = 0, timeout = 120, rank = -1, share = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--gpus") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--share") && i + 1 < argc) share = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sync")) sync = 1;
        else if (!strcmp(argv[i], "--help")) {
            puts("usage: pccl-multiproc [--gpus N | --share N] [--iters K] [--sync] [--timeout SEC]\n"
                 "  --share N   N processes, all on GPU 0 (a one-GPU machine: data and progress, not speed)");
            return 0;
        }
        else { fprintf(stderr, "pccl-multiproc: bad argument '%s'\n", argv[i]); return 2; }
    }
    if (iters < 1 || timeout < 1 || n < 0) { fprintf(stderr, "pccl-multiproc: --iters/--timeout must be >= 1\n"); return 2; }
    if (share && (share < 2 || share > 8 || n)) {
        fprintf(stderr, "pccl-multiproc: --share N: N in [2, 8], without --gpus\n");
        return 2;
    }
    int have = dl_gpu_count_forked();
    if (share) { /* every rank on GPU 0: pcclCommInitRank reads the list */
        char dor[32] = "0";
        for (int r = 1; r < share; r++) strcat(dor, ",0");
        setenv("PCCL_DEVICE_OF_RANK", dor, 1);
        if (have < 1) { printf("SKIP: needs a GPU (found none)\n"); return 77; }
        n = share;
    }
    if (!n) n = have;
    if (!share && (have < 2 || n < 2 || n > have)) { printf("SKIP: needs >= 2 GPUs (found %d)\n", have); return 77; }
    pcclUniqueId id;
    if (pcclGetUniqueId(&id)) return 1;
    printf("pccl multi-process test: %d processes, iters=%d sync=%d\n", n, iters, sync);
    fflush(stdout);
    pid_t kids[64];
    for (int r = 0; r < n; r++) {
        kids[r] = fork();
        if (kids[r] == 0) _exit(rank_main(r, n, id, iters, sync));
    }
    (void)rank;
    time_t t0 = time(NULL);
    int rc = dl_reap_ranks(kids, n, timeout);
    printf("RESULT pccl-multiproc %s=%d iters=%d sync=%d outcome=%s seconds=%ld\n", share ? "ranks_on_gpu0" : "gpus", n,
           iters, sync,
           rc == 0 ? "COMPLETED" : rc == 3 ? "HANG" : rc == 4 ? "WRONG" : "ERROR", (long)(time(NULL) - t0));
    return rc;
}
