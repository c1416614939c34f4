/* nccl_deadlock.c: the deadlock tests of paper 001, Sec. 6.1, run against NCCL.
 *
 * One process, one host thread per GPU.  Every iteration each GPU invokes the
 * same 8 all-reduces (256 B .. 1 MB, float sum, out-of-place) in its own random
 * order (tests/gpu/schedule.h); with --sync it also calls cudaDeviceSynchronize()
 * after each one (the paper's second test).  Outputs are checked element by
 * element after every iteration.
 *
 * NCCL does not return from a deadlock on its own, so the program is built to
 * survive one (see ../shared/spec/nccl-facts.md):
 *   - communicators are non-blocking (ncclConfig_t.blocking = 0), so NCCL calls
 *     return; each call is followed by polling ncclCommGetAsyncError until it
 *     is no longer ncclInProgress (skipping that poll corrupted NCCL's heap);
 *   - streams are waited for by polling cudaEventQuery / cudaStreamQuery, so a
 *     GPU thread notices the abort flag instead of blocking forever;
 *   - a watchdog thread declares a hang when no collective completed for
 *     --timeout seconds, sets the abort flag and calls ncclCommAbort on every
 *     communicator of every rank, which makes kernels and blocked calls
 *     (cudaDeviceSynchronize with --sync) return; aborted communicators are
 *     never used again;
 *   - main waits a bounded time for the GPU threads after the abort, and
 *     _exit()s if one is still stuck, after printing the result line.
 *
 * Plain C (gcc via nvcc; no device code):
 *   nvcc -arch=sm_90 -O2 -Itests/gpu -o build/gpu/nccl-deadlock \
 *        tests/gpu/nccl_deadlock.c -lnccl -lpthread
 *
 * Exit: 0 completed with correct data, 3 hang (detected, aborted), 4 completed
 * with wrong data, 2 bad arguments, 1 other error, 77 fewer than 2 GPUs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "schedule.h"

#define MAX_GPUS 64
#define NCOLL DL_SCHED_NCOLL

/* Seconds main waits for GPU threads after the aborts returned, before it gives
 * up on them; and how long ncclCommAbort itself may take in all. */
#define STUCK_AFTER_ABORT_S 20.0
#define ABORT_CALLS_LIMIT_S 60.0
/* Time the watchdog leaves GPU threads to see the abort flag and leave their
 * polling loops before it frees the communicators under them. */
#define ABORT_GRACE_S 0.5
/* Communicator creation / destruction must finish within this. */
#define SETUP_LIMIT_S 120.0

enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_ARGS = 2, EXIT_HANG = 3, EXIT_WRONG = 4, EXIT_SKIP = 77 };
enum mode { MODE_COMM_PER_COLL, MODE_SHARED_COMM };
enum streams { STREAMS_PER_GPU, STREAMS_PER_COLL };

struct options {
    int gpus;             /* 0: all visible */
    int iters;
    unsigned long long seed;
    int sync;
    double timeout;
    enum mode mode;
    enum streams streams;
    int print_schedule;
};

/* Everything one GPU thread owns. */
struct gpu_ctx {
    int gpu;
    pthread_t tid;
    cudaStream_t stream[NCOLL];   /* all equal with --streams per-gpu */
    cudaEvent_t done[NCOLL];      /* recorded after each all-reduce */
    float *in[NCOLL], *out[NCOLL];
    float *host_out[NCOLL];       /* pinned, for checking */
    /* results, read by main after the thread finished */
    atomic_int iters_done;        /* also read by the watchdog for its report */
    long long colls_done;         /* collectives completed on this GPU */
    long long wrong;
    /* shared with main / watchdog */
    _Atomic(const char *) where;  /* what the thread is doing, for reports */
    atomic_int in_warmup;
    atomic_int finished;
};

static struct options opt = {0, 200, 1, 0, 10.0, MODE_COMM_PER_COLL, STREAMS_PER_GPU, 0};
static int ngpus;
static int ncomms;                        /* 8, or 1 with shared-comm */
static ncclComm_t comms[NCOLL][MAX_GPUS]; /* [communicator][rank]; rank = GPU */
static struct gpu_ctx ctx[MAX_GPUS];

static atomic_int abort_flag;             /* set once: stop, touch no communicator */
static atomic_int error_flag;             /* a real (not abort-induced) error */
static atomic_int aborts_done;            /* every ncclCommAbort returned */
static atomic_int warmed_up;              /* GPU threads past the warm-up */
static atomic_llong progress;             /* collectives completed, all GPUs */
static atomic_int all_finished;
static atomic_int hang_declared;
static double t_test_start, t_abort_start, t_aborts_done;

static const char *mode_name(void)
{
    return opt.mode == MODE_SHARED_COMM ? "shared-comm" : "comm-per-coll";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static int aborting(void) { return atomic_load(&abort_flag); }

/* ---- error reporting ---------------------------------------------------- */

/* Errors seen after the abort flag was set are the expected fallout of
 * ncclCommAbort ("internal error", "remote process exited", ...): the caller
 * just stops.  Anything else is a real error: report it with file:line and
 * let the watchdog abort the others, who would otherwise wait for this GPU. */
static void real_error(void)
{
    atomic_store(&error_flag, 1);
}

static int cuda_fail(cudaError_t e, const char *call, const char *file, int line)
{
    if (aborting())
        return -1;
    fprintf(stderr, "%s:%d: CUDA error %s (%s) in %s\n", file, line,
            cudaGetErrorName(e), cudaGetErrorString(e), call);
    real_error();
    return -1;
}

static int nccl_fail(ncclResult_t r, ncclComm_t comm, const char *call, const char *file, int line)
{
    if (aborting())
        return -1;
    const char *last = comm ? ncclGetLastError(comm) : NULL;
    fprintf(stderr, "%s:%d: NCCL error %d (%s) in %s%s%s\n", file, line, (int)r,
            ncclGetErrorString(r), call, last && *last ? ": " : "", last ? last : "");
    real_error();
    return -1;
}

#define CUDA_TRY(call)                                                     \
    do {                                                                   \
        cudaError_t e_ = (call);                                           \
        if (e_ != cudaSuccess)                                             \
            return cuda_fail(e_, #call, __FILE__, __LINE__);               \
    } while (0)

/* Wait for an operation on a non-blocking communicator to leave the
 * ncclInProgress state; r is what the NCCL call itself returned. */
static int nccl_settle(ncclComm_t comm, ncclResult_t r, const char *call, const char *file, int line)
{
    for (;;) {
        if (aborting())
            return -1;
        if (r != ncclInProgress && r != ncclSuccess)
            return nccl_fail(r, comm, call, file, line);
        ncclResult_t st = ncclInProgress;
        ncclResult_t q = ncclCommGetAsyncError(comm, &st);
        if (q != ncclSuccess)
            return nccl_fail(q, comm, "ncclCommGetAsyncError", file, line);
        if (st == ncclSuccess)
            return 0;
        if (st != ncclInProgress)
            return nccl_fail(st, comm, call, file, line);
        r = st;
        sched_yield();
    }
}

#define NCCL_TRY(comm, call)                                               \
    do {                                                                   \
        if (nccl_settle((comm), (call), #call, __FILE__, __LINE__) != 0)   \
            return -1;                                                     \
    } while (0)

/* ---- options ------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: nccl-deadlock [options]\n"
        "Runs the deadlock tests of paper 001 Sec. 6.1 against NCCL: every GPU invokes\n"
        "the same %d all-reduces (256 B .. 1 MB) per iteration in its own random order.\n"
        "  --gpus N          GPUs to use (default: all visible; at least 2)\n"
        "  --iters K         iterations (default 200)\n"
        "  --seed S          schedule seed (default 1)\n"
        "  --sync            cudaDeviceSynchronize() after each all-reduce (second test)\n"
        "  --timeout S       seconds without a completed collective = hang (default 10)\n"
        "  --mode M          comm-per-coll (default): one communicator per all-reduce;\n"
        "                    shared-comm: one communicator for all %d\n"
        "  --streams W       per-gpu (default): one stream per GPU;\n"
        "                    per-coll: one stream per all-reduce on each GPU\n"
        "  --print-schedule  print the schedule for --seed/--iters/--gpus and exit\n"
        "  --help            this text\n"
        "Exit: 0 completed, correct; 3 hang (aborted); 4 completed, wrong data;\n"
        "      2 bad arguments; 1 other error; 77 fewer than 2 GPUs.\n",
        NCOLL, NCOLL);
}

static void bad_arg(const char *name, const char *value, const char *why)
{
    fprintf(stderr, "nccl-deadlock: bad argument %s%s%s: %s (try --help)\n", name,
            value ? " " : "", value ? value : "", why);
    exit(EXIT_ARGS);
}

static long long parse_int(const char *name, const char *v, long long lo, long long hi)
{
    char *end;
    if (!v)
        bad_arg(name, NULL, "missing value");
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        char why[96];
        snprintf(why, sizeof why, "expected an integer in [%lld, %lld]", lo, hi);
        bad_arg(name, v, why);
    }
    return x;
}

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(EXIT_OK);
        } else if (!strcmp(a, "--gpus")) {
            opt.gpus = (int)parse_int(a, v, 2, MAX_GPUS), i++;
        } else if (!strcmp(a, "--iters")) {
            opt.iters = (int)parse_int(a, v, 1, INT_MAX), i++;
        } else if (!strcmp(a, "--seed")) {
            opt.seed = (unsigned long long)parse_int(a, v, 0, LLONG_MAX), i++;
        } else if (!strcmp(a, "--sync")) {
            opt.sync = 1;
        } else if (!strcmp(a, "--timeout")) {
            char *end;
            if (!v)
                bad_arg(a, NULL, "missing value");
            errno = 0;
            opt.timeout = strtod(v, &end);
            if (errno || end == v || *end || !(opt.timeout > 0) || opt.timeout > 1e6)
                bad_arg(a, v, "expected seconds > 0");
            i++;
        } else if (!strcmp(a, "--mode")) {
            if (v && !strcmp(v, "comm-per-coll"))
                opt.mode = MODE_COMM_PER_COLL;
            else if (v && !strcmp(v, "shared-comm"))
                opt.mode = MODE_SHARED_COMM;
            else
                bad_arg(a, v, "expected comm-per-coll or shared-comm");
            i++;
        } else if (!strcmp(a, "--streams")) {
            if (v && !strcmp(v, "per-gpu"))
                opt.streams = STREAMS_PER_GPU;
            else if (v && !strcmp(v, "per-coll"))
                opt.streams = STREAMS_PER_COLL;
            else
                bad_arg(a, v, "expected per-gpu or per-coll");
            i++;
        } else if (!strcmp(a, "--print-schedule")) {
            opt.print_schedule = 1;
        } else {
            bad_arg(a, NULL, "unknown option");
        }
    }
}

/* ---- setup and teardown (main thread) ----------------------------------- */

/* Device buffers, streams and events of one GPU; inputs filled once. */
static int setup_gpu(struct gpu_ctx *g)
{
    CUDA_TRY(cudaSetDevice(g->gpu));
    for (int c = 0; c < NCOLL; c++) {
        size_t n = dl_sched_count(c), bytes = dl_sched_bytes[c];
        if (opt.streams == STREAMS_PER_COLL || c == 0)
            CUDA_TRY(cudaStreamCreateWithFlags(&g->stream[c], cudaStreamNonBlocking));
        else
            g->stream[c] = g->stream[0];
        CUDA_TRY(cudaEventCreateWithFlags(&g->done[c], cudaEventDisableTiming));
        CUDA_TRY(cudaMalloc((void **)&g->in[c], bytes));
        CUDA_TRY(cudaMalloc((void **)&g->out[c], bytes));
        CUDA_TRY(cudaMallocHost((void **)&g->host_out[c], bytes));
        for (size_t k = 0; k < n; k++)   /* host_out doubles as staging here */
            g->host_out[c][k] = dl_sched_input(g->gpu, k, c);
        CUDA_TRY(cudaMemcpy(g->in[c], g->host_out[c], bytes, cudaMemcpyHostToDevice));
    }
    return 0;
}

/* Poll until a non-blocking communicator is ready, with a time limit (no
 * watchdog runs during setup). */
static int wait_comm_ready(ncclComm_t comm, const char *what)
{
    double t0 = now_s();
    for (;;) {
        ncclResult_t st = ncclInProgress;
        ncclResult_t q = ncclCommGetAsyncError(comm, &st);
        if (q != ncclSuccess)
            return nccl_fail(q, comm, "ncclCommGetAsyncError", __FILE__, __LINE__);
        if (st == ncclSuccess)
            return 0;
        if (st != ncclInProgress)
            return nccl_fail(st, comm, what, __FILE__, __LINE__);
        if (now_s() - t0 > SETUP_LIMIT_S) {
            fprintf(stderr, "%s:%d: %s still in progress after %.0f s\n", __FILE__, __LINE__,
                    what, SETUP_LIMIT_S);
            real_error();
            return -1;
        }
        sleep_s(1e-3);
    }
}

/* Create communicator c on all GPUs: non-blocking, one ncclCommInitRankConfig
 * per rank inside one group (the single-thread way to create a clique, as
 * ncclCommInitAll does; ncclCommInitAll itself takes no config). */
static int create_comm(int c)
{
    static char names[NCOLL][32];
    ncclUniqueId id;
    ncclResult_t r;

    snprintf(names[c], sizeof names[c], "dl-%s-%d", mode_name(), c);
    r = ncclGetUniqueId(&id);
    if (r != ncclSuccess)
        return nccl_fail(r, NULL, "ncclGetUniqueId", __FILE__, __LINE__);
    r = ncclGroupStart();
    if (r != ncclSuccess)
        return nccl_fail(r, NULL, "ncclGroupStart", __FILE__, __LINE__);
    for (int g = 0; g < ngpus; g++) {
        ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
        cfg.blocking = 0;
        cfg.commName = names[c];
        CUDA_TRY(cudaSetDevice(g));
        r = ncclCommInitRankConfig(&comms[c][g], ngpus, id, g, &cfg);
        if (r != ncclSuccess && r != ncclInProgress)
            return nccl_fail(r, NULL, "ncclCommInitRankConfig", __FILE__, __LINE__);
    }
    r = ncclGroupEnd();   /* ncclInProgress is normal for non-blocking comms */
    if (r != ncclSuccess && r != ncclInProgress)
        return nccl_fail(r, NULL, "ncclGroupEnd (comm init)", __FILE__, __LINE__);
    for (int g = 0; g < ngpus; g++)
        if (wait_comm_ready(comms[c][g], "ncclCommInitRankConfig") != 0)
            return -1;
    return 0;
}

/* Orderly teardown after a run without abort: finalize every rank (a
 * non-blocking finalize returns at once), wait, destroy. */
static int destroy_comms(void)
{
    for (int c = 0; c < ncomms; c++) {
        for (int g = 0; g < ngpus; g++) {
            ncclResult_t r = ncclCommFinalize(comms[c][g]);
            if (r != ncclSuccess && r != ncclInProgress)
                return nccl_fail(r, comms[c][g], "ncclCommFinalize", __FILE__, __LINE__);
        }
        for (int g = 0; g < ngpus; g++)
            if (wait_comm_ready(comms[c][g], "ncclCommFinalize") != 0)
                return -1;
        for (int g = 0; g < ngpus; g++) {
            ncclResult_t r = ncclCommDestroy(comms[c][g]);
            if (r != ncclSuccess)
                return nccl_fail(r, NULL, "ncclCommDestroy", __FILE__, __LINE__);
            comms[c][g] = NULL;
        }
    }
    return 0;
}

static void free_gpu(struct gpu_ctx *g)
{
    cudaSetDevice(g->gpu);
    for (int c = 0; c < NCOLL; c++) {
        cudaFree(g->in[c]);
        cudaFree(g->out[c]);
        cudaFreeHost(g->host_out[c]);
        cudaEventDestroy(g->done[c]);
        if (opt.streams == STREAMS_PER_COLL || c == 0)
            cudaStreamDestroy(g->stream[c]);
    }
}

/* ---- one GPU thread ------------------------------------------------------ */

static ncclComm_t comm_of(int c, int gpu)
{
    return comms[opt.mode == MODE_SHARED_COMM ? 0 : c][gpu];
}

/* Poll the completion events of the collectives issued in this iteration and
 * not yet marked done (polling, so the abort flag is seen); count each
 * completion as progress.  Only issued ones: an event not yet recorded in this
 * iteration still reports the previous iteration's completion. */
static int wait_collectives(struct gpu_ctx *g, const int *issued, int *done, int counted)
{
    for (;;) {
        int left = 0;
        for (int c = 0; c < NCOLL; c++) {
            if (!issued[c] || done[c])
                continue;
            cudaError_t e = cudaEventQuery(g->done[c]);
            if (e == cudaSuccess) {
                done[c] = 1;
                atomic_fetch_add(&progress, 1);
                if (counted)
                    g->colls_done++;
            } else if (e == cudaErrorNotReady) {
                left++;
            } else {
                return cuda_fail(e, "cudaEventQuery", __FILE__, __LINE__);
            }
        }
        if (!left)
            return 0;
        if (aborting())
            return -1;
        sched_yield();
    }
}

/* Poll a stream until it is idle. */
static int wait_stream(cudaStream_t s)
{
    for (;;) {
        cudaError_t e = cudaStreamQuery(s);
        if (e == cudaSuccess)
            return 0;
        if (e != cudaErrorNotReady)
            return cuda_fail(e, "cudaStreamQuery", __FILE__, __LINE__);
        if (aborting())
            return -1;
        sched_yield();
    }
}

/* Copy the outputs back and count elements that differ from the exact sum. */
static int check_outputs(struct gpu_ctx *g)
{
    for (int c = 0; c < NCOLL; c++)
        CUDA_TRY(cudaMemcpyAsync(g->host_out[c], g->out[c], dl_sched_bytes[c],
                                 cudaMemcpyDeviceToHost, g->stream[c]));
    for (int c = 0; c < NCOLL; c++)
        if (wait_stream(g->stream[c]) != 0)
            return -1;
    for (int c = 0; c < NCOLL; c++) {
        size_t n = dl_sched_count(c);
        for (size_t k = 0; k < n; k++)
            if (g->host_out[c][k] != dl_sched_expected(ngpus, k, c))
                g->wrong++;
    }
    return 0;
}

/* One iteration: the 8 all-reduces in `order`, then wait and check.
 * counted = 0 for the warm-up, which is not part of the results. */
static int run_iteration(struct gpu_ctx *g, const int *order, int counted)
{
    int issued[NCOLL] = {0}, done[NCOLL] = {0};

    /* Poison the outputs (0xff bytes = NaN) so an all-reduce that did not
     * write its output cannot pass the check. */
    for (int c = 0; c < NCOLL; c++)
        CUDA_TRY(cudaMemsetAsync(g->out[c], 0xff, dl_sched_bytes[c], g->stream[c]));

    for (int k = 0; k < NCOLL; k++) {
        int c = order[k];
        ncclComm_t comm = comm_of(c, g->gpu);
        if (aborting())
            return -1;
        atomic_store(&g->where, "ncclAllReduce");
        /* Settle right away: before the next call on this communicator, before
         * any synchronization, and so the launch lands on the stream in call
         * order. */
        NCCL_TRY(comm, ncclAllReduce(g->in[c], g->out[c], dl_sched_count(c), ncclFloat,
                                     ncclSum, comm, g->stream[c]));
        CUDA_TRY(cudaEventRecord(g->done[c], g->stream[c]));
        issued[c] = 1;
        if (opt.sync) {
            /* Blocks; only ncclCommAbort from the watchdog gets us out of a
             * deadlock here. */
            atomic_store(&g->where, "cudaDeviceSynchronize");
            cudaError_t e = cudaDeviceSynchronize();
            if (aborting())
                return -1;
            if (e != cudaSuccess)
                return cuda_fail(e, "cudaDeviceSynchronize", __FILE__, __LINE__);
            /* count it now, not at the end of the iteration, so the
             * watchdog sees the progress */
            if (wait_collectives(g, issued, done, counted) != 0)
                return -1;
        }
    }
    atomic_store(&g->where, "waiting for its all-reduces (cudaEventQuery)");
    if (wait_collectives(g, issued, done, counted) != 0)
        return -1;
    atomic_store(&g->where, "checking outputs");
    return check_outputs(g);
}

static void *gpu_thread(void *arg)
{
    struct gpu_ctx *g = arg;
    int order[NCOLL];

    cudaError_t e = cudaSetDevice(g->gpu);
    if (e != cudaSuccess) {
        cuda_fail(e, "cudaSetDevice", __FILE__, __LINE__);
        goto out;
    }
    /* Warm-up: all GPUs in the same order 0..7.  NCCL connects peers lazily at
     * the first collective of a communicator, a host-side handshake; doing that
     * here means the test below exercises only the GPU-side ordering. */
    atomic_store(&g->in_warmup, 1);
    for (int c = 0; c < NCOLL; c++)
        order[c] = c;
    if (run_iteration(g, order, 0) != 0)
        goto out;
    if (g->wrong) {
        fprintf(stderr, "GPU %d: %lld wrong elements in the warm-up (all GPUs in the same "
                "order): harness or library error\n", g->gpu, g->wrong);
        real_error();
        goto out;
    }
    /* Start together so that the timed part is the test alone. */
    atomic_store(&g->in_warmup, 0);
    atomic_fetch_add(&warmed_up, 1);
    while (atomic_load(&warmed_up) < ngpus) {
        if (aborting())
            goto out;
        sched_yield();
    }
    for (int it = 0; it < opt.iters; it++) {
        dl_sched_order(opt.seed, it, g->gpu, NCOLL, order);
        if (run_iteration(g, order, 1) != 0)
            goto out;
        atomic_fetch_add(&g->iters_done, 1);
    }
out:
    atomic_store(&g->where, "finished");
    atomic_store(&g->finished, 1);
    return NULL;
}

/* ---- watchdog ------------------------------------------------------------ */

static int running_threads(void)
{
    int running = 0;
    for (int g = 0; g < ngpus; g++)
        running += !atomic_load(&ctx[g].finished);
    return running;
}

/* Abort every communicator of every rank, all at once, one thread each: an
 * abort can wait on kernels of communicators not aborted yet (seen on the
 * H200s: one after another, the first ncclCommAbort did not return in 60 s).
 * This is what makes NCCL kernels stuck in a deadlock, and host calls waiting
 * on them, return. */
static void *abort_one(void *arg)
{
    ncclComm_t *slot = arg;
    ncclResult_t r = ncclCommAbort(*slot);
    if (r != ncclSuccess)
        fprintf(stderr, "watchdog: ncclCommAbort: %s (ignored)\n", ncclGetErrorString(r));
    return NULL;
}

static void abort_all(void)
{
    pthread_t th[NCOLL * MAX_GPUS];
    int started[NCOLL * MAX_GPUS] = {0};
    atomic_store(&abort_flag, 1);
    t_abort_start = now_s();
    sleep_s(ABORT_GRACE_S);
    for (int c = 0; c < ncomms; c++)
        for (int g = 0; g < ngpus; g++)
            if (comms[c][g])
                started[c * MAX_GPUS + g] = !pthread_create(&th[c * MAX_GPUS + g], NULL, abort_one, &comms[c][g]);
    for (int c = 0; c < ncomms; c++)
        for (int g = 0; g < ngpus; g++)
            if (started[c * MAX_GPUS + g]) {
                pthread_join(th[c * MAX_GPUS + g], NULL);
                comms[c][g] = NULL; /* never used again */
            }
    t_aborts_done = now_s();
    atomic_store(&aborts_done, 1);
}

static void *watchdog_thread(void *arg)
{
    long long last = atomic_load(&progress);
    double t_last = now_s();
    (void)arg;

    while (!atomic_load(&all_finished)) {
        sleep_s(0.05);
        if (atomic_load(&error_flag)) {
            fprintf(stderr, "watchdog: error on a GPU thread, aborting all communicators\n");
            abort_all();
            return NULL;
        }
        if (running_threads() == 0)
            return NULL;
        long long p = atomic_load(&progress);
        if (p != last) {
            last = p;
            t_last = now_s();
        } else if (now_s() - t_last > opt.timeout) {
            atomic_store(&hang_declared, 1);
            fprintf(stderr, "watchdog: no collective completed for %.1f s: hang; "
                    "aborting all communicators\n", opt.timeout);
            for (int g = 0; g < ngpus; g++)
                if (atomic_load(&ctx[g].in_warmup))
                    fprintf(stderr, "watchdog:   GPU %d (warm-up): %s\n", g,
                            atomic_load(&ctx[g].where));
                else
                    fprintf(stderr, "watchdog:   GPU %d (iteration %d): %s\n", g,
                            atomic_load(&ctx[g].iters_done), atomic_load(&ctx[g].where));
            abort_all();
            return NULL;
        }
    }
    return NULL;
}

/* ---- results ------------------------------------------------------------- */

static void print_result(const char *outcome, double seconds)
{
    int iters = opt.iters;
    long long colls = 0, wrong = 0;
    for (int g = 0; g < ngpus; g++) {
        if (atomic_load(&ctx[g].iters_done) < iters)
            iters = atomic_load(&ctx[g].iters_done);
        colls += ctx[g].colls_done;
        wrong += ctx[g].wrong;
    }
    printf("RESULT nccl mode=%s sync=%d gpus=%d iters=%d seed=%llu outcome=%s "
           "completed_iters=%d collectives_completed=%lld wrong_elements=%lld seconds=%.3f\n",
           mode_name(), opt.sync, ngpus, opt.iters, opt.seed, outcome, iters, colls, wrong,
           seconds);
    fflush(stdout);
    fflush(stderr);
}

/* Wait for the GPU threads; after an abort, only for a bounded time. Returns
 * the number of threads still not finished when it gave up (0: all done). */
static int wait_gpu_threads(void)
{
    for (;;) {
        int running = running_threads();
        if (!running && (!atomic_load(&abort_flag) || atomic_load(&aborts_done)))
            return 0;
        if (atomic_load(&abort_flag)) {
            double t = now_s();
            if (atomic_load(&aborts_done) ? t - t_aborts_done > STUCK_AFTER_ABORT_S
                                          : t - t_abort_start > ABORT_CALLS_LIMIT_S) {
                if (!atomic_load(&aborts_done))
                    fprintf(stderr, "ncclCommAbort has not returned after %.0f s\n",
                            ABORT_CALLS_LIMIT_S);
                for (int g = 0; g < ngpus; g++)
                    if (!atomic_load(&ctx[g].finished))
                        fprintf(stderr, "GPU %d still stuck in %s %.0f s after abort\n", g,
                                atomic_load(&ctx[g].where), t - t_abort_start);
                return running ? running : 1;
            }
        }
        sleep_s(0.02);
    }
}

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
    /* First, before any NCCL call: NVLink multicast (NVLS) can take the shared
     * host down when a collective using it is aborted or hangs. */
    setenv("NCCL_NVLS_ENABLE", "0", 1);

    parse_args(argc, argv);

    int visible = 0;
    if (cudaGetDeviceCount(&visible) != cudaSuccess)
        visible = 0;
    if (opt.print_schedule) {
        ngpus = opt.gpus ? opt.gpus : (visible >= 2 ? visible : 2);
        dl_sched_print(stdout, opt.seed, opt.iters, ngpus);
        return EXIT_OK;
    }
    if (visible < 2) {
        printf("SKIP: needs >= 2 GPUs (found %d)\n", visible);
        return EXIT_SKIP;
    }
    if (opt.gpus > visible) {
        char why[64];
        snprintf(why, sizeof why, "only %d GPUs visible", visible);
        char val[16];
        snprintf(val, sizeof val, "%d", opt.gpus);
        bad_arg("--gpus", val, why);
    }
    ngpus = opt.gpus ? opt.gpus : (visible > MAX_GPUS ? MAX_GPUS : visible);
    ncomms = opt.mode == MODE_SHARED_COMM ? 1 : NCOLL;

    int nccl_version = 0;
    ncclGetVersion(&nccl_version);
    printf("nccl-deadlock: mode=%s sync=%d gpus=%d iters=%d seed=%llu timeout=%.1f "
           "streams=%s ncoll=%d bytes=256..1048576 nccl=%d NCCL_NVLS_ENABLE=0\n",
           mode_name(), opt.sync, ngpus, opt.iters, opt.seed, opt.timeout,
           opt.streams == STREAMS_PER_COLL ? "per-coll" : "per-gpu", NCOLL, nccl_version);
    fflush(stdout);

    for (int g = 0; g < ngpus; g++) {
        ctx[g].gpu = g;
        atomic_store(&ctx[g].where, "not started");
        if (setup_gpu(&ctx[g]) != 0) {
            print_result("ERROR", 0);
            return EXIT_ERR;
        }
    }
    for (int c = 0; c < ncomms; c++)
        if (create_comm(c) != 0) {
            print_result("ERROR", 0);
            return EXIT_ERR;
        }

    pthread_t wd;
    if (pthread_create(&wd, NULL, watchdog_thread, NULL) != 0) {
        fprintf(stderr, "%s:%d: pthread_create failed\n", __FILE__, __LINE__);
        print_result("ERROR", 0);
        return EXIT_ERR;
    }
    for (int g = 0; g < ngpus; g++)
        if (pthread_create(&ctx[g].tid, NULL, gpu_thread, &ctx[g]) != 0) {
            fprintf(stderr, "%s:%d: pthread_create failed\n", __FILE__, __LINE__);
            _exit(EXIT_ERR);   /* threads already running hold communicators */
        }

    /* The test's clock starts when every GPU finished the warm-up. */
    double t_end;
    while (atomic_load(&warmed_up) < ngpus && !aborting() && running_threads() > 0)
        sleep_s(1e-3);
    t_test_start = now_s();

    int stuck = wait_gpu_threads();
    t_end = atomic_load(&abort_flag) ? t_abort_start : now_s();
    double seconds = atomic_load(&warmed_up) >= ngpus ? t_end - t_test_start : 0.0;

    const char *outcome;
    int code;
    if (atomic_load(&error_flag) && !atomic_load(&hang_declared)) {
        outcome = "ERROR", code = EXIT_ERR;
    } else if (atomic_load(&hang_declared)) {
        if (atomic_load(&warmed_up) < ngpus)
            fprintf(stderr, "note: the hang happened in the warm-up (all GPUs in the same order)\n");
        outcome = "HANG", code = EXIT_HANG;
    } else {
        long long wrong = 0;
        for (int g = 0; g < ngpus; g++)
            wrong += ctx[g].wrong;
        outcome = wrong ? "WRONG" : "COMPLETED", code = wrong ? EXIT_WRONG : EXIT_OK;
    }
    print_result(outcome, seconds);

    if (stuck)
        _exit(code);   /* a thread may never return from cudaDeviceSynchronize */
    atomic_store(&all_finished, 1);
    pthread_join(wd, NULL);
    for (int g = 0; g < ngpus; g++)
        pthread_join(ctx[g].tid, NULL);
    if (atomic_load(&abort_flag))
        _exit(code);   /* aborted communicators and stuck kernels: no teardown */

    if (destroy_comms() != 0)
        fprintf(stderr, "warning: communicator teardown failed (result stands)\n");
    for (int g = 0; g < ngpus; g++)
        free_gpu(&ctx[g]);
    return code;
}
