/* lib_nccl.c: NCCL behind perf_lib (GPU build; the host build gets a stub).
 *
 * One communicator per rank for the whole run, created by the main thread as
 * one clique (ncclCommInitRankConfig per rank inside a group), non-blocking
 * (ncclConfig_t.blocking = 0) so that a hang can be aborted: every call is
 * followed by polling ncclCommGetAsyncError until it is no longer
 * ncclInProgress, and streams are waited for by polling cudaStreamQuery, as
 * ../shared/spec/nccl-facts.md prescribes and tests/gpu/nccl_deadlock.c does.
 * main() sets NCCL_NVLS_ENABLE=0 before any NCCL call.
 *
 * Iterations are launched back to back on the rank's stream, then the stream
 * is waited for once: nccl-tests' BenchTime. */
#include "perf.h"

#ifdef PERF_HAVE_NCCL
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include "../calls.h"

#define SETUP_LIMIT_S 120.0 /* communicator creation and teardown */

typedef struct {
    ncclComm_t comm;
    cudaStream_t stream;
} nccl_rank;

static nccl_rank ranks[PERF_MAX_RANKS];
static ncclComm_t abortable[PERF_MAX_RANKS]; /* what the watchdog may abort */

static void nccl_die(int rank, const char *call, ncclResult_t r, ncclComm_t comm)
{
    const char *last = comm ? ncclGetLastError(comm) : "";
    perf_fatal(PERF_EXIT_ERROR, "rank %d: %s: NCCL error %d (%s)%s%s", rank, call, (int)r, ncclGetErrorString(r),
               last && *last ? ": " : "", last ? last : "");
}

static void cuda_die(int rank, const char *call, cudaError_t e)
{
    perf_fatal(PERF_EXIT_ERROR, "rank %d: %s: %s (%s)", rank, call, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* Waits until the last operation on a non-blocking communicator left
 * ncclInProgress (r: what the call returned).  limit > 0: seconds (setup). */
static void settle(int rank, ncclComm_t comm, ncclResult_t r, const char *call, double limit)
{
    double t0 = limit > 0 ? perf_now() : 0;
    for (;;) {
        if (r != ncclSuccess && r != ncclInProgress) nccl_die(rank, call, r, comm);
        ncclResult_t st = ncclInProgress;
        ncclResult_t q = ncclCommGetAsyncError(comm, &st);
        if (q != ncclSuccess) nccl_die(rank, "ncclCommGetAsyncError", q, comm);
        if (st == ncclSuccess) return;
        if (st != ncclInProgress) nccl_die(rank, call, st, comm);
        if (perf_aborting()) perf_fatal(PERF_EXIT_ERROR, "rank %d: aborted", rank);
        if (limit > 0 && perf_now() - t0 > limit)
            perf_fatal(PERF_EXIT_ERROR, "rank %d: %s still in progress after %.0f s", rank, call, limit);
        r = st;
        sched_yield();
    }
}

static int n_setup(perf_team *T)
{
    ncclUniqueId id;
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess) nccl_die(0, "ncclGetUniqueId", r, NULL);
    for (int k = 0; k < T->nranks; k++) {
        cudaError_t e = cudaSetDevice(T->rank[k].dev);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&ranks[k].stream, cudaStreamNonBlocking);
        if (e != cudaSuccess) cuda_die(k, "cudaStreamCreate", e);
    }
    r = ncclGroupStart();
    if (r != ncclSuccess) nccl_die(0, "ncclGroupStart", r, NULL);
    for (int k = 0; k < T->nranks; k++) {
        ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
        cfg.blocking = 0;
        cfg.commName = "pccl-perf";
        cudaSetDevice(T->rank[k].dev);
        r = ncclCommInitRankConfig(&ranks[k].comm, T->nranks, id, k, &cfg);
        if (r != ncclSuccess && r != ncclInProgress) nccl_die(k, "ncclCommInitRankConfig", r, NULL);
    }
    r = ncclGroupEnd(); /* ncclInProgress is normal for non-blocking communicators */
    if (r != ncclSuccess && r != ncclInProgress) nccl_die(0, "ncclGroupEnd (communicator creation)", r, NULL);
    for (int k = 0; k < T->nranks; k++) {
        settle(k, ranks[k].comm, ncclInProgress, "ncclCommInitRankConfig", SETUP_LIMIT_S);
        abortable[k] = ranks[k].comm;
        T->rank[k].nccl = &ranks[k];
    }
    return 0;
}

static void n_teardown(perf_team *T)
{
    for (int k = 0; k < T->nranks; k++) {
        abortable[k] = NULL;
        ncclResult_t r = ncclCommFinalize(ranks[k].comm);
        if (r != ncclSuccess && r != ncclInProgress) nccl_die(k, "ncclCommFinalize", r, ranks[k].comm);
    }
    for (int k = 0; k < T->nranks; k++) settle(k, ranks[k].comm, ncclInProgress, "ncclCommFinalize", SETUP_LIMIT_S);
    for (int k = 0; k < T->nranks; k++) {
        ncclCommDestroy(ranks[k].comm);
        cudaSetDevice(T->rank[k].dev);
        cudaStreamDestroy(ranks[k].stream);
    }
}

static int n_test_begin(perf_rank *R, const perf_case *cases, int ncases) { return 0; }
static int n_test_end(perf_rank *R) { return 0; }

static void launch(perf_rank *R, nccl_rank *N, const perf_case *k, int inplace, int iter)
{
    void *s, *r;
    perf_ptrs(k, R->rank, R->send, R->recv, R->T->alloc, inplace, iter, &s, &r);
    const char *call;
    ncclResult_t res = dr_nccl_call(&k->c, s, r, N->comm, N->stream, &call);
    /* settle before the next call on this communicator (nccl-facts.md) */
    settle(R->rank, N->comm, res, call, 0);
}

static int n_run(perf_rank *R, const perf_case *k, int inplace, int iter0, int n)
{
    nccl_rank *N = R->nccl;
    perf_wd_arm();
    for (int i = 0; i < n; i++) launch(R, N, k, inplace, iter0 + i);
    for (;;) {
        cudaError_t e = cudaStreamQuery(N->stream);
        if (e == cudaSuccess) break;
        if (e != cudaErrorNotReady) cuda_die(R->rank, "cudaStreamQuery", e);
        if (perf_aborting()) perf_fatal(PERF_EXIT_ERROR, "rank %d: aborted", R->rank);
        sched_yield();
    }
    perf_wd_disarm();
    perf_wd_progress();
    return 0;
}

static int n_quiesce(perf_rank *R) { return 0; /* n_run returns with the stream idle */ }

static void *abort_one(void *arg)
{
    ncclComm_t *slot = arg;
    ncclResult_t r = ncclCommAbort(*slot);
    if (r != ncclSuccess) fprintf(stderr, "pccl-perf: ncclCommAbort: %s (ignored)\n", ncclGetErrorString(r));
    return NULL;
}

/* All at once, one thread each (one after another, the first did not return
 * on the H200s: tests/gpu/README.md). */
static void n_abort_all(perf_team *T)
{
    pthread_t th[PERF_MAX_RANKS];
    int started[PERF_MAX_RANKS] = {0};
    for (int k = 0; k < T->nranks; k++)
        if (abortable[k]) started[k] = !pthread_create(&th[k], NULL, abort_one, &abortable[k]);
    for (int k = 0; k < T->nranks; k++)
        if (started[k]) {
            pthread_join(th[k], NULL);
            abortable[k] = NULL;
        }
}

static const char *n_version(void)
{
    static char v[32];
    int x = 0;
    ncclGetVersion(&x);
    snprintf(v, sizeof v, "NCCL %d.%d.%d", x / 10000, x / 100 % 100, x % 100);
    return v;
}

const perf_lib perf_lib_nccl = {
    "nccl", 1, n_setup, n_teardown, n_test_begin, n_test_end, n_run, n_quiesce, NULL, n_abort_all, n_version,
};

#else /* host build: no NCCL */

const perf_lib perf_lib_nccl = {"nccl", 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};

#endif

const perf_lib *perf_lib_get(int lib) { return lib == PERF_LIB_NCCL ? &perf_lib_nccl : &perf_lib_pccl; }
