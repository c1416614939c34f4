/* The paper's two deadlock tests (001 Sec. 6.1) against pccl on real GPUs:
 * every GPU invokes the same 8 all-reduces (256 B to 1 MB) in its own random
 * order for K iterations (tests/gpu/schedule.h, the very schedule that
 * nccl_deadlock.c gives NCCL); with --sync, cudaDeviceSynchronize() after
 * every collective.  Every output is checked every iteration.  A watchdog
 * declares a hang if nothing completes for --timeout seconds (exit 3), so the
 * test finishes either way.  Prints pccl's counters: preemptions per block and
 * voluntary quits per GPU.
 *
 *   pccl-deadlock [--gpus N] [--iters K] [--seed S] [--sync] [--chaos]
 *                 [--timeout SEC] [--host]
 * Exit: 0 completed and correct, 3 hang, 4 wrong data, 2 bad arguments,
 * 1 other error, 77 skipped (fewer than 2 GPUs).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "../../lib/pccl.h"
#include "args.h"
#include "schedule.h"

static int ngpus, iters = 200, do_sync, chaos, timeout_s = 60, host;
static uint64_t seed = 1;
static pcclComm_t comms[64];
static int ids[64][DL_SCHED_NCOLL];
static float *sendb[64][DL_SCHED_NCOLL], *recvb[64][DL_SCHED_NCOLL];
static volatile long progress, wrong, iters_done[64];
static volatile int failed;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define PC(call)                                                                                   \
    do {                                                                                           \
        pcclResult_t r_ = (call);                                                                  \
        if (r_) {                                                                                  \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, pcclGetErrorString(r_), \
                    pcclGetLastError(NULL));                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void on_done(int id, pcclResult_t st, void *arg) { __sync_fetch_and_add(&progress, 1); }

static void *gpu_thread(void *arg)
{
    int g = (int)(long)arg, order[DL_SCHED_NCOLL];
    float *host_out = malloc(dl_sched_bytes[DL_SCHED_NCOLL - 1]);
    if (!host) cudaSetDevice(g);
    for (int it = 0; it < iters && !failed; it++) {
        dl_sched_order(seed, it, g, DL_SCHED_NCOLL, order);
        for (int k = 0; k < DL_SCHED_NCOLL; k++) {
            int c = order[k];
            PC(pcclRun(comms[g], ids[g][c], sendb[g][c], recvb[g][c], on_done, NULL));
            if (do_sync) {
                if (host) PC(pcclDeviceSynchronize(comms[g]));
                else if (cudaDeviceSynchronize() != cudaSuccess) { fprintf(stderr, "sync failed\n"); exit(1); }
            }
        }
        PC(pcclWaitAll(comms[g]));
        for (int c = 0; c < DL_SCHED_NCOLL; c++) {
            size_t n = dl_sched_count(c);
            if (host) memcpy(host_out, recvb[g][c], n * sizeof(float));
            else cudaMemcpy(host_out, recvb[g][c], n * sizeof(float), cudaMemcpyDeviceToHost);
            for (size_t e = 0; e < n; e++)
                if (host_out[e] != dl_sched_expected(ngpus, e, c)) __sync_fetch_and_add(&wrong, 1);
        }
        iters_done[g] = it + 1;
    }
    free(host_out);
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: pccl-deadlock [--gpus N] [--iters K] [--seed S] [--sync] [--chaos] [--timeout SEC] [--host]\n"
               "  the paper's deadlock tests on pccl: each GPU invokes 8 all-reduces in its own random\n"
               "  order per iteration (--sync: cudaDeviceSynchronize after each); --host runs the\n"
               "  host backend (threads as GPUs).  Exit 0 ok, 3 hang, 4 wrong data, 77 skipped.\n");
}

static long arg_num(const char *opt, const char *v, long lo, long hi) { return dl_arg_num("pccl-deadlock", opt, v, lo, hi); }

int main(int argc, char **argv)
{
    setenv("NCCL_NVLS_ENABLE", "0", 1); /* never NVLink multicast on the shared hosts */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--gpus")) ngpus = (int)arg_num(a, v, 1, 64), i++;
        else if (!strcmp(a, "--iters")) iters = (int)arg_num(a, v, 1, 1000000), i++;
        else if (!strcmp(a, "--seed")) seed = (uint64_t)arg_num(a, v, 0, 1L << 62), i++;
        else if (!strcmp(a, "--timeout")) timeout_s = (int)arg_num(a, v, 1, 86400), i++;
        else if (!strcmp(a, "--sync")) do_sync = 1;
        else if (!strcmp(a, "--chaos")) chaos = 1;
        else if (!strcmp(a, "--host")) host = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else { fprintf(stderr, "pccl-deadlock: unknown argument '%s'\n", a); usage(stderr); return 2; }
    }
    int have = 0;
    if (host) have = ngpus ? ngpus : 4;
    else if (cudaGetDeviceCount(&have) != cudaSuccess) have = 0;
    if (!ngpus) ngpus = have;
    if (have < 2 || ngpus < 2 || ngpus > have) {
        printf("SKIP: needs >= 2 GPUs (found %d, asked %d)\n", have, ngpus);
        return 77;
    }
    pcclConfig_t cfg = PCCL_CONFIG_INITIALIZER;
    cfg.backend = host ? PCCL_BACKEND_HOST : PCCL_BACKEND_GPU;
    if (chaos) cfg.chaos = 1;
    printf("pccl deadlock test: gpus=%d iters=%d seed=%llu sync=%d chaos=%d backend=%s timeout=%ds\n", ngpus,
           iters, (unsigned long long)seed, do_sync, chaos, host ? "host" : "gpu", timeout_s);
    PC(pcclCommInitAllConfig(comms, ngpus, NULL, &cfg));
    float *tmp = malloc(dl_sched_bytes[DL_SCHED_NCOLL - 1]);
    for (int g = 0; g < ngpus; g++) {
        if (!host) cudaSetDevice(g);
        for (int c = 0; c < DL_SCHED_NCOLL; c++) {
            size_t n = dl_sched_count(c);
            PC(pcclRegisterAllReduce(comms[g], n, pcclFloat, pcclSum, 0, &ids[g][c]));
            PC(pcclMemAlloc(comms[g], (void **)&sendb[g][c], n * sizeof(float)));
            PC(pcclMemAlloc(comms[g], (void **)&recvb[g][c], n * sizeof(float)));
            for (size_t e = 0; e < n; e++) tmp[e] = dl_sched_input(g, e, c);
            if (host) memcpy(sendb[g][c], tmp, n * sizeof(float));
            else cudaMemcpy(sendb[g][c], tmp, n * sizeof(float), cudaMemcpyHostToDevice);
        }
    }
    free(tmp);
    pthread_t t[64];
    double t0 = now_s(), last_t = t0;
    long last_p = -1;
    for (int g = 0; g < ngpus; g++) pthread_create(&t[g], NULL, gpu_thread, (void *)(long)g);
    int hang = 0;
    for (;;) { /* watchdog */
        int all = 1;
        for (int g = 0; g < ngpus; g++) all &= iters_done[g] == iters;
        if (all) break;
        usleep(20000);
        if (progress != last_p) { last_p = progress; last_t = now_s(); }
        if (now_s() - last_t > timeout_s) { hang = 1; break; }
    }
    double secs = now_s() - t0;
    uint64_t pre = 0, crossed = 0, quits = 0, launches = 0;
    int blocks = 1;
    for (int g = 0; g < ngpus; g++) {
        pcclStats_t s;
        PC(pcclCommGetStats(comms[g], &s));
        pre += s.preemptions;
        crossed += s.crossed;
        quits += s.quits;
        launches += s.launches;
        blocks = s.blocks;
    }
    long done_min = iters;
    for (int g = 0; g < ngpus; g++) if (iters_done[g] < done_min) done_min = iters_done[g];
    const char *outcome = hang ? "HANG" : wrong ? "WRONG" : "COMPLETED";
    printf("RESULT pccl sync=%d chaos=%d gpus=%d iters=%d seed=%llu outcome=%s completed_iters=%ld "
           "collectives_completed=%ld wrong_elements=%ld seconds=%.2f preemptions_per_block=%.1f "
           "crossed_per_block=%.1f quits_per_gpu=%.1f launches_per_gpu=%.1f blocks=%d\n",
           do_sync, chaos, ngpus, iters, (unsigned long long)seed, outcome, done_min, (long)progress, (long)wrong,
           secs, (double)pre / (ngpus * blocks), (double)crossed / (ngpus * blocks), (double)quits / ngpus,
           (double)launches / ngpus, blocks);
    fflush(stdout);
    if (hang) _exit(3); /* threads are stuck: do not wait for them */
    for (int g = 0; g < ngpus; g++) pthread_join(t[g], NULL);
    for (int g = 0; g < ngpus; g++) {
        for (int c = 0; c < DL_SCHED_NCOLL; c++) {
            pcclMemFree(comms[g], sendb[g][c]);
            pcclMemFree(comms[g], recvb[g][c]);
        }
        PC(pcclCommDestroy(comms[g]));
    }
    return wrong ? 4 : 0;
}
