/* lib_nccl.c: NCCL under replay (CUDA builds only).
 *
 * Non-blocking communicators, one per group (or per collective), created
 * with NCCL_RUNTIME_CONNECT=0 and warmed up by one all-reduce each, so that
 * no connection is set up while the trace runs (a lazy connection would make
 * a call wait on host-side handshakes that the sequencer's order may never
 * allow).  Streams: one per GPU (the collectives run in trace order) or one
 * per collective; an event recorded after each call tells its completion.
 * A sync is cudaDeviceSynchronize().  After a call returns ncclInProgress,
 * ncclCommGetAsyncError is polled until it settles, before anything else
 * touches that communicator (nccl-facts.md).  A hang is ended by aborting
 * every communicator at once, one thread each (one after another, the first
 * abort can wait on kernels of communicators not aborted yet). */
#include "libs.h"

#include <nccl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/util.h"
#include "calls.h"

#define SETUP_LIMIT_S 120.0

typedef struct npart {
    void *send, *recv;
    cudaStream_t stream; /* its own, or its GPU's */
    cudaEvent_t done;
    int comm, rank;
} npart;

typedef struct nstate {
    const dr_setup *S;
    int ncomms;
    int *comm_n;
    ncclComm_t **comm; /* [ncomms][ranks] */
    npart *part;       /* [nparts] */
    cudaStream_t *gpu_stream;
    atomic_int aborted;
} nstate;


static int nccl_fail(char *err, size_t errlen, const char *call, ncclResult_t r, ncclComm_t c)
{
    const char *last = c ? ncclGetLastError(c) : ncclGetLastError(NULL);
    return dl_fail(err, errlen, "%s: %s%s%s", call, ncclGetErrorString(r),
                   last && *last ? ": " : "", last ? last : "");
}

/* Waits until an operation on a non-blocking communicator left
 * ncclInProgress; r is what the call returned.  limit < 0: until aborted. */
static int settle(nstate *N, ncclComm_t c, ncclResult_t r, const char *call, double limit,
                  char *err, size_t errlen)
{
    double t0 = dl_now();
    for (;;) {
        if (r != ncclSuccess && r != ncclInProgress)
            return nccl_fail(err, errlen, call, r, c);
        ncclResult_t st = ncclInProgress;
        ncclResult_t q = ncclCommGetAsyncError(c, &st);
        if (q != ncclSuccess)
            return nccl_fail(err, errlen, "ncclCommGetAsyncError", q, c);
        if (st == ncclSuccess)
            return 0;
        if (st != ncclInProgress)
            return nccl_fail(err, errlen, call, st, c);
        if (atomic_load(&N->aborted))
            return dl_fail(err, errlen, "%s: aborted", call);
        if (limit >= 0 && dl_now() - t0 > limit)
            return dl_fail(err, errlen, "%s: still in progress after %.0f s", call, limit);
        r = st;
        sched_yield();
    }
}

static const dl_group *comm_group(const nstate *N, int k)
{
    return dr_comm_members(N->S, k);
}

/* Communicator k on its members: one ncclCommInitRankConfig per rank inside
 * one group call (the single-thread way to create a clique). */
static int create_comm(nstate *N, int k, char *err, size_t errlen)
{
    const dl_group *g = comm_group(N, k);
    ncclUniqueId id;
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess)
        return nccl_fail(err, errlen, "ncclGetUniqueId", r, NULL);
    N->comm_n[k] = g->n;
    N->comm[k] = dl_xcalloc((size_t)g->n, sizeof **N->comm);
    if ((r = ncclGroupStart()) != ncclSuccess)
        return nccl_fail(err, errlen, "ncclGroupStart", r, NULL);
    for (int m = 0; m < g->n; m++) {
        ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
        cfg.blocking = 0;
        DR_CUDA(cudaSetDevice(g->gpus[m]));
        r = ncclCommInitRankConfig(&N->comm[k][m], g->n, id, m, &cfg);
        if (r != ncclSuccess && r != ncclInProgress)
            return nccl_fail(err, errlen, "ncclCommInitRankConfig", r, NULL);
    }
    r = ncclGroupEnd();
    if (r != ncclSuccess && r != ncclInProgress)
        return nccl_fail(err, errlen, "ncclGroupEnd (init)", r, NULL);
    for (int m = 0; m < g->n; m++)
        if (settle(N, N->comm[k][m], ncclInProgress, "ncclCommInitRankConfig", SETUP_LIMIT_S, err,
                   errlen))
            return -1;
    return 0;
}

/* One small all-reduce on every rank of communicator k, from this thread. */
static int warm_up(nstate *N, int k, float *scratch[], char *err, size_t errlen)
{
    const dl_group *g = comm_group(N, k);
    ncclResult_t r = ncclGroupStart();
    if (r != ncclSuccess)
        return nccl_fail(err, errlen, "ncclGroupStart", r, NULL);
    for (int m = 0; m < g->n; m++) {
        DR_CUDA(cudaSetDevice(g->gpus[m]));
        r = ncclAllReduce(scratch[g->gpus[m]], scratch[g->gpus[m]], 64, ncclFloat, ncclSum,
                          N->comm[k][m], N->gpu_stream[g->gpus[m]]);
        if (r != ncclSuccess && r != ncclInProgress)
            return nccl_fail(err, errlen, "ncclAllReduce (warm-up)", r, N->comm[k][m]);
    }
    r = ncclGroupEnd();
    if (r != ncclSuccess && r != ncclInProgress)
        return nccl_fail(err, errlen, "ncclGroupEnd (warm-up)", r, NULL);
    for (int m = 0; m < g->n; m++)
        if (settle(N, N->comm[k][m], ncclInProgress, "warm-up", SETUP_LIMIT_S, err, errlen))
            return -1;
    for (int m = 0; m < g->n; m++)
        DR_CUDA(cudaStreamSynchronize(N->gpu_stream[g->gpus[m]]));
    return 0;
}

static int setup_gpus(nstate *N, char *err, size_t errlen)
{
    const dl_layout *L = N->S->L;
    int ndev = 0;
    DR_CUDA(cudaGetDeviceCount(&ndev));
    if (L->ngpus > ndev)
        return dl_fail(err, errlen, "the layout has %d GPUs, this host %d", L->ngpus, ndev);
    N->gpu_stream = dl_xcalloc((size_t)L->ngpus, sizeof *N->gpu_stream);
    for (int g = 0; g < L->ngpus; g++) {
        DR_CUDA(cudaSetDevice(g));
        DR_CUDA(cudaStreamCreateWithFlags(&N->gpu_stream[g], cudaStreamNonBlocking));
    }
    return 0;
}

/* A part's buffers, filled, its completion event and its stream. */
static int stage_part(void *ctx, const dr_image *im, char *err, size_t errlen)
{
    nstate *N = ctx;
    npart *p = &N->part[im->part];
    p->comm = N->S->coll_comm[im->coll];
    p->rank = im->rank;
    cudaError_t e = cudaSetDevice(im->gpu);
    if (!e) e = cudaMalloc(&p->send, im->send_bytes + 1);
    if (!e) e = cudaMalloc(&p->recv, im->recv_bytes + 1);
    if (!e) e = cudaMemcpy(p->send, im->send, im->send_bytes, cudaMemcpyHostToDevice);
    if (!e) e = cudaMemcpy(p->recv, im->recv, im->recv_bytes, cudaMemcpyHostToDevice);
    if (!e) e = cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming);
    if (!e && N->S->stream_per_coll)
        e = cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking);
    else if (!e)
        p->stream = N->gpu_stream[im->gpu];
    if (e)
        return dl_fail(err, errlen, "buffers of collective %d on GPU %d: %s", im->coll, im->gpu,
                       cudaGetErrorString(e));
    return 0;
}

static int nsetup(void **state, const dr_setup *S, char *err, size_t errlen)
{
    const dl_layout *L = S->L;
    nstate *N = dl_xcalloc(1, sizeof *N);
    *state = N;
    N->S = S;
    N->ncomms = S->ncomms;
    N->comm_n = dl_xcalloc((size_t)N->ncomms, sizeof *N->comm_n);
    N->comm = dl_xcalloc((size_t)N->ncomms, sizeof *N->comm);
    N->part = dl_xcalloc((size_t)L->nparts, sizeof *N->part);
    setenv("NCCL_RUNTIME_CONNECT", "0", 0);
    if (setup_gpus(N, err, errlen))
        return -1;
    float **scratch = dl_xcalloc((size_t)L->ngpus, sizeof *scratch);
    int rc = 0;
    for (int g = 0; g < L->ngpus && !rc; g++) {
        cudaError_t e = cudaSetDevice(g);
        if (!e) e = cudaMalloc((void **)&scratch[g], 64 * sizeof(float));
        if (!e) e = cudaMemset(scratch[g], 0, 64 * sizeof(float));
        if (e)
            rc = dl_fail(err, errlen, "warm-up buffer on GPU %d: %s", g, cudaGetErrorString(e));
    }
    for (int k = 0; k < N->ncomms && !rc; k++)
        rc = create_comm(N, k, err, errlen) || warm_up(N, k, scratch, err, errlen);
    for (int g = 0; g < L->ngpus; g++)
        if (scratch[g]) {
            cudaSetDevice(g);
            cudaFree(scratch[g]);
        }
    free(scratch);
    return rc ? -1 : dr_stage_inputs(S, stage_part, N, err, errlen);
}

static npart *part_of(nstate *N, int gpu, int coll)
{
    return &N->part[dr_part(N->S->L, gpu, coll)];
}

static int ninvoke(void *state, int gpu, int coll, char *err, size_t errlen)
{
    nstate *N = state;
    npart *p = part_of(N, gpu, coll);
    if (atomic_load(&N->aborted))
        return dl_fail(err, errlen, "aborted");
    ncclComm_t c = N->comm[p->comm][p->rank];
    DR_CUDA(cudaSetDevice(gpu));
    if (settle(N, c, dr_nccl_call(&N->S->coll[coll], p->send, p->recv, c, p->stream, NULL),
               "collective call", -1, err, errlen))
        return -1;
    DR_CUDA(cudaEventRecord(p->done, p->stream));
    return 0;
}

static int nsync(void *state, int gpu, char *err, size_t errlen)
{
    nstate *N = state;
    DR_CUDA(cudaSetDevice(gpu));
    cudaError_t e = cudaDeviceSynchronize();
    if (atomic_load(&N->aborted))
        return dl_fail(err, errlen, "aborted");
    if (e != cudaSuccess)
        return dl_fail(err, errlen, "cudaDeviceSynchronize: %s", cudaGetErrorString(e));
    return 0;
}

static int ndone(void *state, int gpu, int coll, char *err, size_t errlen)
{
    nstate *N = state;
    DR_CUDA(cudaSetDevice(gpu));
    cudaError_t e = cudaEventQuery(part_of(N, gpu, coll)->done);
    if (e == cudaSuccess)
        return 1;
    if (e == cudaErrorNotReady)
        return 0;
    return dl_fail(err, errlen, "cudaEventQuery: %s", cudaGetErrorString(e));
}

static int nerror(void *state, char *err, size_t errlen)
{
    nstate *N = state;
    for (int k = 0; k < N->ncomms; k++)
        for (int m = 0; m < N->comm_n[k]; m++) {
            ncclResult_t st = ncclSuccess;
            if (ncclCommGetAsyncError(N->comm[k][m], &st) == ncclSuccess && st != ncclSuccess &&
                st != ncclInProgress)
                return nccl_fail(err, errlen, "asynchronous error", st, N->comm[k][m]);
        }
    return 0;
}

static void *abort_one(void *arg)
{
    ncclCommAbort(*(ncclComm_t *)arg);
    return NULL;
}

static void nabort(void *state)
{
    nstate *N = state;
    atomic_store(&N->aborted, 1);
    int total = 0;
    for (int k = 0; k < N->ncomms; k++)
        total += N->comm_n[k];
    pthread_t *th = dl_xcalloc((size_t)total + 1, sizeof *th);
    int *ok = dl_xcalloc((size_t)total + 1, sizeof *ok);
    int i = 0;
    for (int k = 0; k < N->ncomms; k++)
        for (int m = 0; m < N->comm_n[k]; m++, i++)
            if (N->comm[k][m])
                ok[i] = !pthread_create(&th[i], NULL, abort_one, &N->comm[k][m]);
    i = 0;
    for (int k = 0; k < N->ncomms; k++)
        for (int m = 0; m < N->comm_n[k]; m++, i++)
            if (ok[i]) {
                pthread_join(th[i], NULL);
                N->comm[k][m] = NULL; /* never used again */
            }
    free(th);
    free(ok);
}

static int noutput(void *state, int gpu, int coll, void *host, char *err, size_t errlen)
{
    nstate *N = state;
    DR_CUDA(cudaSetDevice(gpu));
    DR_CUDA(cudaMemcpy(host, part_of(N, gpu, coll)->recv, ck_recv_bytes(&N->S->coll[coll]),
                            cudaMemcpyDeviceToHost));
    return 0;
}

/* After an abort the process ends right after (dlreplay's child): only an
 * orderly run frees its communicators here. */
static void nteardown(void *state, int aborted)
{
    nstate *N = state;
    if (!N || aborted)
        return;
    char err[256];
    for (int k = 0; k < N->ncomms; k++) {
        for (int m = 0; m < N->comm_n[k] && N->comm[k]; m++)
            if (N->comm[k][m])
                settle(N, N->comm[k][m], ncclCommFinalize(N->comm[k][m]), "ncclCommFinalize",
                       SETUP_LIMIT_S, err, sizeof err);
        for (int m = 0; m < N->comm_n[k] && N->comm[k]; m++)
            if (N->comm[k][m])
                ncclCommDestroy(N->comm[k][m]);
        free(N->comm[k]);
    }
    const dl_layout *L = N->S->L;
    for (int p = 0; p < L->nparts; p++) {
        cudaSetDevice(L->part_gpu[p]);
        cudaFree(N->part[p].send);
        cudaFree(N->part[p].recv);
        if (N->part[p].done)
            cudaEventDestroy(N->part[p].done);
        if (N->S->stream_per_coll && N->part[p].stream)
            cudaStreamDestroy(N->part[p].stream);
    }
    for (int g = 0; g < L->ngpus && N->gpu_stream; g++) {
        cudaSetDevice(g);
        if (N->gpu_stream[g])
            cudaStreamDestroy(N->gpu_stream[g]);
    }
    free(N->gpu_stream);
    free(N->comm);
    free(N->comm_n);
    free(N->part);
    free(N);
}

const dr_lib dr_lib_nccl = {"nccl", nsetup, ninvoke, nsync, ndone, nerror,
                            nabort, noutput, NULL, nteardown};
