/* The paper's two deadlock tests (001 Sec. 6.1) issued through CUDA streams
 * (pcclRunOnStream): every rank invokes the 8 all-reduces of schedule.h in
 * its own random order per iteration, each on its own stream, with the
 * input staged by the stream before it (poison, a host function that sleeps
 * up to 200 us, then the copy of the input: read before the copy, the sum
 * is wrong) and the output copied back by the stream after it (copied before
 * completion, it is wrong).  --sync: a second thread per rank calls
 * cudaDeviceSynchronize() in a loop meanwhile (the daemon quits, the poller
 * relaunches it while streams wait).  Ranks are threads of one process on
 * distinct GPUs, or (--procs) one process each, on the devices of
 * PCCL_DEVICE_OF_RANK (two ranks may share one GPU: PCCL_DEVICE_OF_RANK=0,0).
 * --plain: pcclRun and pcclWaitAll instead (the host path, for comparison).
 * --lazy: as a framework does (the torch backend): every collective on the
 * legacy default stream, each registered at its first invocation (the same
 * order on every rank, rank r starting 30*r ms late), so a registration
 * comes while the stream waits for a collective the other ranks have not
 * joined yet; after the first iteration, every collective's gate first,
 * then the waits (one stream in different orders would deadlock by itself).
 * --bench K: one rank, K back-to-back 8-byte all-reduces on one stream, the
 * time per invocation (and the same with pcclRun + pcclWait).
 *
 *   pccl-stream [--ranks N] [--procs] [--plain | --lazy] [--iters K] [--sync] [--seed S] [--timeout SEC] [--bench K]
 * Exit: 0 completed and correct, 3 hang, 4 wrong data, 2 bad arguments,
 * 1 other error, 77 skipped (not enough GPUs).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "../../lib/pccl.h"
#include "args.h"
#include "schedule.h"

static int nranks, iters = 100, do_sync, procs, timeout_s = 60, bench, plain, lazy;
static uint64_t seed = 1;
static volatile long progress, wrong;
static int watch_ranks; /* ranks whose progress this process counts */

#define PC(call)                                                                                   \
    do {                                                                                           \
        pcclResult_t r_ = (call);                                                                  \
        if (r_) {                                                                                  \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, pcclGetErrorString(r_), \
                    pcclGetLastError(NULL));                                                       \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)
#define CK(call)                                                                                       \
    do {                                                                                               \
        cudaError_t e_ = (call);                                                                       \
        if (e_ != cudaSuccess) {                                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));     \
            _exit(1);                                                                                  \
        }                                                                                              \
    } while (0)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void host_delay(void *arg) { usleep((useconds_t)(uintptr_t)arg); }

typedef struct {
    int rank, dev;
    pcclComm_t comm;
    volatile int finished;
} rank_arg;

static void *syncer(void *arg)
{
    rank_arg *a = arg;
    cudaSetDevice(a->dev);
    long n = 0;
    while (!a->finished) {
        CK(cudaDeviceSynchronize());
        n++;
        usleep(200);
    }
    printf("rank %d: %ld device synchronizations on a second thread returned\n", a->rank, n);
    return NULL;
}

static void *rank_main(void *arg)
{
    rank_arg *a = arg;
    CK(cudaSetDevice(a->dev));
    int ids[DL_SCHED_NCOLL], order[DL_SCHED_NCOLL];
    uint64_t ticket[DL_SCHED_NCOLL];
    float *sb[DL_SCHED_NCOLL], *rb[DL_SCHED_NCOLL], *in[DL_SCHED_NCOLL], *out[DL_SCHED_NCOLL];
    cudaStream_t st[DL_SCHED_NCOLL];
    for (int c = 0; c < DL_SCHED_NCOLL; c++) {
        size_t cnt = dl_sched_count(c), bytes = cnt * sizeof(float);
        ids[c] = -1;
        if (!lazy) PC(pcclRegisterAllReduce(a->comm, cnt, pcclFloat, pcclSum, 0, &ids[c]));
        PC(pcclMemAlloc(a->comm, (void **)&sb[c], bytes));
        PC(pcclMemAlloc(a->comm, (void **)&rb[c], bytes));
        CK(cudaMallocHost((void **)&in[c], bytes));
        CK(cudaMallocHost((void **)&out[c], bytes));
        if (lazy) st[c] = cudaStreamLegacy; /* PyTorch's default current stream */
        else CK(cudaStreamCreateWithFlags(&st[c], cudaStreamNonBlocking));
        for (size_t e = 0; e < cnt; e++) in[c][e] = dl_sched_input(a->rank, e, c);
    }
    pthread_t sy;
    if (do_sync) pthread_create(&sy, NULL, syncer, a);
    uint64_t rng = seed ^ ((uint64_t)a->rank << 32);
    if (lazy) usleep(30000 * a->rank);
    for (int it = 0; it < iters; it++) {
        dl_sched_order(seed, it, a->rank, DL_SCHED_NCOLL, order);
        for (int k = 0; k < DL_SCHED_NCOLL; k++) {
            int c = lazy && it == 0 ? k : order[k]; /* lazy: first met in one order everywhere */
            size_t bytes = dl_sched_count(c) * sizeof(float);
            if (ids[c] < 0) {
                PC(pcclRegisterAllReduce(a->comm, dl_sched_count(c), pcclFloat, pcclSum, 0, &ids[c]));
                if (ids[c] != c) { fprintf(stderr, "rank %d: collective %d registered as %d\n", a->rank, c, ids[c]); _exit(1); }
            }
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            CK(cudaMemsetAsync(sb[c], 0xff, bytes, st[c])); /* NaN: a sum read too early is wrong */
            CK(cudaMemsetAsync(rb[c], 0xff, bytes, st[c]));
            CK(cudaLaunchHostFunc(st[c], host_delay, (void *)(uintptr_t)((rng >> 33) % 200)));
            CK(cudaMemcpyAsync(sb[c], in[c], bytes, cudaMemcpyHostToDevice, st[c]));
            if (plain) { /* the host path, for comparison: staged, then pcclRun */
                CK(cudaStreamSynchronize(st[c]));
                PC(pcclRun(a->comm, ids[c], sb[c], rb[c], NULL, NULL));
                continue;
            }
            if (lazy && it > 0) { /* one stream: every gate before the first wait, as the torch backend */
                PC(pcclRunAfter(a->comm, ids[c], sb[c], rb[c], st[c], &ticket[c]));
                continue;
            }
            PC(pcclRunOnStream(a->comm, ids[c], sb[c], rb[c], st[c]));
            CK(cudaMemcpyAsync(out[c], rb[c], bytes, cudaMemcpyDeviceToHost, st[c]));
        }
        for (int k = 0; lazy && it > 0 && k < DL_SCHED_NCOLL; k++) {
            int c = order[k];
            PC(pcclStreamWaitRun(a->comm, ids[c], ticket[c], st[c]));
            CK(cudaMemcpyAsync(out[c], rb[c], dl_sched_count(c) * sizeof(float), cudaMemcpyDeviceToHost, st[c]));
        }
        if (plain) {
            PC(pcclWaitAll(a->comm));
            for (int c = 0; c < DL_SCHED_NCOLL; c++)
                CK(cudaMemcpyAsync(out[c], rb[c], dl_sched_count(c) * sizeof(float), cudaMemcpyDeviceToHost, st[c]));
        }
        for (int c = 0; c < DL_SCHED_NCOLL; c++) {
            CK(cudaStreamSynchronize(st[c]));
            size_t cnt = dl_sched_count(c);
            long bad = 0;
            for (size_t e = 0; e < cnt; e++) bad += out[c][e] != dl_sched_expected(nranks, e, c);
            if (bad) __sync_fetch_and_add(&wrong, bad);
            __sync_fetch_and_add(&progress, 1);
        }
    }
    a->finished = 1;
    if (do_sync) pthread_join(sy, NULL);
    pcclStats_t s;
    PC(pcclCommGetStats(a->comm, &s));
    printf("rank %d (device %d): %d iterations, %llu completed, %llu preemptions, %llu quits, %llu launches\n",
           a->rank, a->dev, iters, (unsigned long long)s.completed, (unsigned long long)s.preemptions,
           (unsigned long long)s.quits, (unsigned long long)s.launches);
    for (int c = 0; c < DL_SCHED_NCOLL; c++) {
        pcclMemFree(a->comm, sb[c]);
        pcclMemFree(a->comm, rb[c]);
        cudaFreeHost(in[c]);
        cudaFreeHost(out[c]);
        if (!lazy) cudaStreamDestroy(st[c]);
    }
    return NULL;
}

/* One rank: back-to-back 8-byte all-reduces on one stream, then the same
 * with the host completion path. */
static int run_bench(void)
{
    pcclComm_t comm;
    PC(pcclCommInitAll(&comm, 1, NULL));
    int id;
    float *b;
    cudaStream_t s;
    PC(pcclRegisterAllReduce(comm, 2, pcclFloat, pcclSum, 0, &id));
    PC(pcclMemAlloc(comm, (void **)&b, 8));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    double t0 = 0;
    /* At most PCCL_MAX_PENDING invocations of one collective outstanding:
     * the host waits for the oldest beyond (as a full launch queue blocks). */
    uint64_t t = 0;
    for (int i = 0; i < 200 + bench; i++) {
        if (i == 200) {
            CK(cudaStreamSynchronize(s));
            t0 = now_s();
        }
        if (t >= PCCL_MAX_PENDING) PC(pcclWaitRun(comm, id, t - PCCL_MAX_PENDING + 1));
        PC(pcclRunAfter(comm, id, b, b, s, &t));
        PC(pcclStreamWaitRun(comm, id, t, s));
    }
    CK(cudaStreamSynchronize(s));
    double t_stream = (now_s() - t0) / bench * 1e6;
    PC(pcclWaitAll(comm));
    t0 = now_s();
    for (int i = 0; i < bench; i++) {
        PC(pcclRun(comm, id, b, b, NULL, NULL));
        PC(pcclWait(comm, id));
    }
    double t_host = (now_s() - t0) / bench * 1e6;
    printf("RESULT pccl-stream bench=%d us_per_invocation_stream=%.2f us_per_invocation_run_wait=%.2f\n", bench,
           t_stream, t_host);
    PC(pcclMemFree(comm, b));
    PC(pcclCommDestroy(comm));
    return 0;
}

static int device_of(int rank)
{
    const char *d = getenv("PCCL_DEVICE_OF_RANK");
    for (int i = 0; d && i < rank; i++) {
        d = strchr(d, ',');
        if (d) d++;
    }
    return d ? atoi(d) : rank;
}

static int watch(void)
{
    double last_t = now_s();
    long last_p = -1;
    while (progress < (long)watch_ranks * iters * DL_SCHED_NCOLL) {
        usleep(20000);
        if (progress != last_p) { last_p = progress; last_t = now_s(); }
        if (now_s() - last_t > timeout_s) return 1;
    }
    return 0;
}

/* --procs: this process is rank r. */
static int proc_main(int r, pcclUniqueId uid)
{
    rank_arg a = {r, device_of(r), NULL, 0};
    PC(pcclCommInitRank(&a.comm, nranks, uid, r));
    pthread_t t;
    pthread_create(&t, NULL, rank_main, &a);
    watch_ranks = 1; /* this process counts its own rank's progress */
    if (watch()) { printf("rank %d: HANG\n", r); fflush(stdout); _exit(3); }
    pthread_join(t, NULL);
    PC(pcclCommDestroy(a.comm));
    fflush(stdout); /* the caller _exits */
    return wrong ? 4 : 0;
}

static long arg_num(const char *opt, const char *v, long lo, long hi) { return dl_arg_num("pccl-stream", opt, v, lo, hi); }

int main(int argc, char **argv)
{
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--ranks")) nranks = (int)arg_num(a, v, 1, 64), i++;
        else if (!strcmp(a, "--iters")) iters = (int)arg_num(a, v, 1, 1000000), i++;
        else if (!strcmp(a, "--seed")) seed = (uint64_t)arg_num(a, v, 0, 1L << 62), i++;
        else if (!strcmp(a, "--timeout")) timeout_s = (int)arg_num(a, v, 1, 86400), i++;
        else if (!strcmp(a, "--bench")) bench = (int)arg_num(a, v, 1, 10000000), i++;
        else if (!strcmp(a, "--sync")) do_sync = 1;
        else if (!strcmp(a, "--procs")) procs = 1;
        else if (!strcmp(a, "--plain")) plain = 1;
        else if (!strcmp(a, "--lazy")) lazy = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            puts("usage: pccl-stream [--ranks N] [--procs] [--plain | --lazy] [--iters K] [--sync] [--seed S] [--timeout SEC] [--bench K]\n"
                 "  the paper's deadlock tests through streams (pcclRunOnStream), each all-reduce on its own\n"
                 "  stream; --sync: cudaDeviceSynchronize in a loop on a second thread per rank; --procs: one\n"
                 "  process per rank (devices from PCCL_DEVICE_OF_RANK); --bench K: one rank, K 8-byte\n"
                 "  all-reduces back to back; --plain: pcclRun/pcclWaitAll instead of streams; --lazy: all on\n"
                 "  the legacy default stream, each collective registered at its first invocation.\n"
                 "  Exit 0 ok, 3 hang, 4 wrong data, 77 skipped.");
            return 0;
        } else { fprintf(stderr, "pccl-stream: unknown argument '%s'\n", a); return 2; }
    }
    if (plain && lazy) { fprintf(stderr, "pccl-stream: --plain and --lazy exclude each other\n"); return 2; }
    if (procs) { /* no CUDA in the parent before fork */
        if (!nranks) { fprintf(stderr, "pccl-stream: --procs needs --ranks\n"); return 2; }
        pcclUniqueId uid;
        PC(pcclGetUniqueId(&uid));
        printf("pccl stream test: ranks=%d (processes) iters=%d seed=%llu sync=%d devices=%s\n", nranks, iters,
               (unsigned long long)seed, do_sync, getenv("PCCL_DEVICE_OF_RANK") ? getenv("PCCL_DEVICE_OF_RANK") : "0..");
        fflush(stdout);
        pid_t kids[64];
        double t0 = now_s();
        for (int r = 0; r < nranks; r++)
            if ((kids[r] = fork()) == 0) _exit(proc_main(r, uid));
        int worst = 0;
        for (int r = 0; r < nranks; r++) {
            int st;
            waitpid(kids[r], &st, 0);
            int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
            if (rc == 3) /* a hung rank: its peers wait for it */
                for (int q = 0; q < nranks; q++) kill(kids[q], SIGKILL);
            if (rc > worst) worst = rc;
        }
        printf("RESULT pccl-stream procs=1 ranks=%d iters=%d sync=%d outcome=%s seconds=%.2f\n", nranks, iters, do_sync,
               worst == 0 ? "COMPLETED" : worst == 3 ? "HANG" : worst == 4 ? "WRONG" : "ERROR", now_s() - t0);
        return worst;
    }
    int have = 0;
    if (cudaGetDeviceCount(&have) != cudaSuccess) have = 0;
    if (bench) {
        if (have < 1) { printf("SKIP: needs a GPU\n"); return 77; }
        return run_bench();
    }
    if (!nranks) nranks = have;
    if (have < 1 || nranks > have) {
        printf("SKIP: needs %d GPUs (found %d); two ranks on one GPU: --procs with PCCL_DEVICE_OF_RANK=0,0\n", nranks, have);
        return 77;
    }
    printf("pccl stream test: ranks=%d (threads) iters=%d seed=%llu sync=%d\n", nranks, iters,
           (unsigned long long)seed, do_sync);
    pcclComm_t comms[64];
    PC(pcclCommInitAll(comms, nranks, NULL));
    static rank_arg a[64];
    pthread_t t[64];
    watch_ranks = nranks;
    double t0 = now_s();
    for (int r = 0; r < nranks; r++) {
        a[r] = (rank_arg){r, r, comms[r], 0};
        pthread_create(&t[r], NULL, rank_main, &a[r]);
    }
    int hang = watch();
    printf("RESULT pccl-stream procs=0 ranks=%d iters=%d sync=%d outcome=%s collectives_completed=%ld "
           "wrong_elements=%ld seconds=%.2f\n", nranks, iters, do_sync, hang ? "HANG" : wrong ? "WRONG" : "COMPLETED",
           (long)progress, (long)wrong, now_s() - t0);
    fflush(stdout);
    if (hang) _exit(3);
    for (int r = 0; r < nranks; r++) pthread_join(t[r], NULL);
    for (int r = 0; r < nranks; r++) PC(pcclCommDestroy(comms[r]));
    return wrong ? 4 : 0;
}
