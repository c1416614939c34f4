/* lib_nccl.c: NCCL behind perf_lib (GPU build; the host build gets a stub).
 *
 * NCCL is driven as nccl-tests 2.19.6 drives it (src/common.cu: startColl,
 * completeColl, testStreamSynchronize), so that pccl-perf's NCCL figures are
 * the ones users know:
 *   - blocking communicators (the default config), one per rank for the whole
 *     run, created by the main thread as one clique inside a group;
 *   - one host thread drives the GPUs of a "thread group" as nccl-tests' -t T
 *     -g G does: rank r belongs to thread r / G, whose first rank (the leader)
 *     issues every iteration for all G ranks between ncclGroupStart and
 *     ncclGroupEnd (G > 1), each on its rank's stream; the other rank threads
 *     return at once (rank.c meets them in barriers around the work);
 *   - completion: cudaStreamQuery on every stream of the group in a busy loop,
 *     with ncclCommGetAsyncError for errors, no yield.
 * Back to back (b2b) is n launches then one wait; round trip (rt) is rank.c
 * calling run() once per iteration.
 *
 * Abortability costs no time: nothing is polled after a launch.  A hang in a
 * kernel leaves the leader in its stream poll, which checks perf_aborting()
 * before touching a communicator; the watchdog (watchdog.c) calls
 * ncclCommAbort on every communicator, one thread each (NCCL 2.28's nccl.h:
 * "aborts any operations that might still be running on the device", for a
 * blocking communicator as for a non-blocking one) and _exits, so a thread
 * stuck inside an NCCL call is never waited for.
 *
 * --delay-us, --interfere and --split need every rank to issue its own
 * iterations at its own time: there each rank thread launches on its own
 * communicator (legal with blocking communicators: a communicator is used by
 * one thread at a time).  main() sets NCCL_NVLS_ENABLE=0 before any NCCL
 * call. */
#include "perf.h"

#ifdef PERF_HAVE_NCCL
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include "../calls.h"

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
    /* blocking: ncclGroupEnd returns with the clique made; a hang there is
     * the watchdog's (armed, nothing in abortable yet: it exits 3) */
    perf_set_where(0, "NCCL communicator creation");
    perf_wd_arm();
    r = ncclGroupStart();
    if (r != ncclSuccess) nccl_die(0, "ncclGroupStart", r, NULL);
    for (int k = 0; k < T->nranks; k++) {
        ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
        cfg.commName = "pccl-perf";
        cudaSetDevice(T->rank[k].dev);
        r = ncclCommInitRankConfig(&ranks[k].comm, T->nranks, id, k, &cfg);
        if (r != ncclSuccess) nccl_die(k, "ncclCommInitRankConfig", r, NULL);
    }
    r = ncclGroupEnd();
    if (r != ncclSuccess) nccl_die(0, "ncclGroupEnd (communicator creation)", r, NULL);
    perf_wd_disarm();
    perf_wd_progress();
    for (int k = 0; k < T->nranks; k++) {
        abortable[k] = ranks[k].comm;
        T->rank[k].nccl = &ranks[k];
    }
    return 0;
}

/* As nccl-tests ends: ncclCommDestroy on each communicator in turn, from
 * one thread (a blocking ncclCommFinalize per communicator in turn could
 * wait for peers that this thread has not reached yet). */
static void n_teardown(perf_team *T)
{
    perf_wd_arm();
    for (int k = 0; k < T->nranks; k++) {
        abortable[k] = NULL;
        cudaSetDevice(T->rank[k].dev);
        ncclResult_t r = ncclCommDestroy(ranks[k].comm);
        if (r != ncclSuccess) nccl_die(k, "ncclCommDestroy", r, NULL);
        cudaStreamDestroy(ranks[k].stream);
    }
    perf_wd_disarm();
}

static int n_test_begin(perf_rank *R, const perf_case *cases, int ncases) { return 0; }
static int n_test_end(perf_rank *R) { return 0; }

int perf_nccl_grouped(const perf_opts *o) { return !(o->ndelays || o->interfere || o->split); }
int perf_nccl_leader(const perf_opts *o, int rank) { return perf_nccl_grouped(o) ? rank - rank % o->ngpus : rank; }

/* One iteration on ranks [r0, r0 + n): nccl-tests' startColl. */
static void launch(perf_team *T, const perf_case *k, int inplace, int iter, int r0, int n)
{
    ncclResult_t res;
    if (n > 1 && (res = ncclGroupStart()) != ncclSuccess) nccl_die(r0, "ncclGroupStart", res, NULL);
    for (int x = r0; x < r0 + n; x++) {
        void *s, *r;
        perf_ptrs(k, x, T->rank[x].send, T->rank[x].recv, T->alloc, inplace, iter, &s, &r);
        const char *call;
        res = dr_nccl_call(&k->c, s, r, ranks[x].comm, ranks[x].stream, &call);
        if (res != ncclSuccess) nccl_die(x, call, res, ranks[x].comm);
    }
    if (n > 1 && (res = ncclGroupEnd()) != ncclSuccess) nccl_die(r0, "ncclGroupEnd", res, NULL);
}

/* nccl-tests' testStreamSynchronize: every stream of the group, busy. */
static void wait_streams(int r0, int n)
{
    unsigned long long done = 0, all = n >= 64 ? ~0ull : (1ull << n) - 1;
    while (done != all) {
        if (perf_aborting()) perf_fatal(PERF_EXIT_ERROR, "rank %d: aborted", r0);
        for (int i = 0; i < n; i++) {
            if (done >> i & 1) continue;
            cudaError_t e = cudaStreamQuery(ranks[r0 + i].stream);
            if (e == cudaSuccess) {
                done |= 1ull << i;
                continue;
            }
            if (e != cudaErrorNotReady) cuda_die(r0 + i, "cudaStreamQuery", e);
            ncclResult_t st = ncclSuccess, q = ncclCommGetAsyncError(ranks[r0 + i].comm, &st);
            if (q != ncclSuccess) nccl_die(r0 + i, "ncclCommGetAsyncError", q, ranks[r0 + i].comm);
            if (st != ncclSuccess) nccl_die(r0 + i, "collective (asynchronous error)", st, ranks[r0 + i].comm);
        }
    }
}

static int n_run(perf_rank *R, const perf_case *k, int inplace, int iter0, int n)
{
    const perf_opts *o = R->T->o;
    int r0 = R->rank, g = 1;
    if (perf_nccl_grouped(o)) {
        if (perf_nccl_leader(o, R->rank) != R->rank) return 0; /* the leader issues this rank's work */
        g = o->ngpus;
    }
    if (R->rt_timed && iter0 == 0) perf_times_begin(R, k->iters);
    perf_wd_arm();
    for (int i = 0; i < n; i++) launch(R->T, k, inplace, iter0 + i, r0, g);
    wait_streams(r0, g);
    perf_wd_disarm();
    perf_wd_progress();
    if (R->rt_timed) { /* the group's round trip ended: --times (b2b has one wait, no per-iteration end) */
        perf_times_add(R);
        if (iter0 == k->iters - 1) perf_times_end(R, k, inplace, PERF_TIMING_RT, PERF_LIB_NCCL);
    }
    return 0;
}

static int n_quiesce(perf_rank *R) { return 0; /* n_run returns with the streams idle */ }

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
int perf_nccl_grouped(const perf_opts *o) { return 0; }
int perf_nccl_leader(const perf_opts *o, int rank) { return rank; }

#endif

const perf_lib *perf_lib_get(int lib) { return lib == PERF_LIB_NCCL ? &perf_lib_nccl : &perf_lib_pccl; }
