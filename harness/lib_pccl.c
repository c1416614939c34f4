/* lib_pccl.c: pccl under replay, on GPUs ("pccl") or on its host backend
 * ("host": threads stand in for GPUs, any number of them).
 *
 * One communicator per group (or per collective), created with
 * pcclCommInitAllConfig over the member GPUs; every collective registered
 * once on its communicator; an invocation is a pcclRun, a sync
 * cudaDeviceSynchronize (pcclDeviceSynchronize of each of the GPU's
 * communicators on the host backend).  pccl has no streams: the replay's
 * stream choice does not apply to it.  Buffers are our own allocations
 * (cudaMalloc on the GPU, host memory on the host backend), so that they can
 * be freed after an abort too. */
#include "libs.h"

#include "calls.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/pccl.h"
#include "../sim/util.h"
typedef struct part_buf {
    void *send, *recv;
    int comm, rank, id; /* its communicator, its rank there, the collective's id */
} part_buf;

typedef struct pstate {
    const dr_setup *S;
    int gpu_backend;
    int ncomms;
    int *comm_n;         /* [ncomms] ranks */
    pcclComm_t **comm;   /* [ncomms][ranks] */
    part_buf *part;      /* [nparts] */
    atomic_int aborted;
} pstate;

static int fail_pccl(char *err, size_t errlen, const char *call, pcclResult_t r, pcclComm_t c)
{
    return dl_fail(err, errlen, "%s: %s (%s)", call, pcclGetErrorString(r), pcclGetLastError(c));
}


static int alloc_buf(pstate *P, int gpu, size_t bytes, void **p, char *err, size_t errlen)
{
    if (bytes == 0)
        bytes = 1;
#ifdef PCCL_HAVE_CUDA
    if (P->gpu_backend) {
        DR_CUDA(cudaSetDevice(gpu));
        DR_CUDA(cudaMalloc(p, bytes));
        return 0;
    }
#endif
    (void)P, (void)gpu;
    *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
    return *p ? 0 : dl_fail(err, errlen, "out of host memory (%zu bytes)", bytes);
}

static void free_buf(pstate *P, int gpu, void *p)
{
#ifdef PCCL_HAVE_CUDA
    if (P->gpu_backend) {
        cudaSetDevice(gpu);
        cudaFree(p);
        return;
    }
#endif
    (void)P, (void)gpu;
    free(p);
}

static int copy_to(pstate *P, int gpu, void *dst, const void *src, size_t n, char *err, size_t errlen)
{
#ifdef PCCL_HAVE_CUDA
    if (P->gpu_backend) {
        DR_CUDA(cudaSetDevice(gpu));
        DR_CUDA(cudaMemcpy(dst, src, n, cudaMemcpyDefault));
        return 0;
    }
#endif
    (void)P, (void)gpu, (void)err, (void)errlen;
    memcpy(dst, src, n);
    return 0;
}

/* A part: its collective registered on its rank, its buffers filled. */
static int stage_part(void *ctx, const dr_image *im, char *err, size_t errlen)
{
    pstate *P = ctx;
    part_buf *pb = &P->part[im->part];
    pb->comm = P->S->coll_comm[im->coll];
    pb->rank = im->rank;
    pcclComm_t c = P->comm[pb->comm][pb->rank];
    pcclResult_t r = dr_pccl_register(c, &P->S->coll[im->coll], &pb->id);
    if (r != pcclSuccess)
        return fail_pccl(err, errlen, "pcclRegister", r, c);
    if (im->rank > 0 && pb->id != P->part[im->part - im->rank].id)
        return dl_fail(err, errlen, "collective %d got different ids on its ranks", im->coll);
    if (alloc_buf(P, im->gpu, im->send_bytes, &pb->send, err, errlen) ||
        alloc_buf(P, im->gpu, im->recv_bytes, &pb->recv, err, errlen) ||
        copy_to(P, im->gpu, pb->send, im->send, im->send_bytes, err, errlen) ||
        copy_to(P, im->gpu, pb->recv, im->recv, im->recv_bytes, err, errlen))
        return -1;
    return 0;
}

static int setup(void **state, const dr_setup *S, int gpu_backend, char *err, size_t errlen)
{
    const dl_layout *L = S->L;
    pstate *P = dl_xcalloc(1, sizeof *P);
    *state = P;
    P->S = S;
    P->gpu_backend = gpu_backend;
    P->ncomms = S->ncomms;
    P->comm_n = dl_xcalloc((size_t)P->ncomms, sizeof *P->comm_n);
    P->comm = dl_xcalloc((size_t)P->ncomms, sizeof *P->comm);
    P->part = dl_xcalloc((size_t)L->nparts, sizeof *P->part);
#ifdef PCCL_HAVE_CUDA
    if (gpu_backend) {
        int ndev = 0;
        DR_CUDA(cudaGetDeviceCount(&ndev));
        if (L->ngpus > ndev)
            return dl_fail(err, errlen, "the layout has %d GPUs, this host %d", L->ngpus, ndev);
    }
#else
    if (gpu_backend)
        return dl_fail(err, errlen, "built without CUDA: only the host backend is available");
#endif
    pcclConfig_t cfg = PCCL_CONFIG_INITIALIZER;
    cfg.backend = gpu_backend ? PCCL_BACKEND_GPU : PCCL_BACKEND_HOST;
    /* A trace without syncs may invoke all of a GPU's collectives before the
     * first completes: let pccl's queues hold them (unless PCCL_QUEUE_DEPTH
     * says otherwise). */
    int most = 0;
    for (int g = 0; g < L->ngpus; g++)
        if (L->plan_off[g + 1] - L->plan_off[g] > most)
            most = L->plan_off[g + 1] - L->plan_off[g];
    if (!getenv("PCCL_QUEUE_DEPTH") && most > 512) {
        if (most > 8192)
            return dl_fail(err, errlen, "a GPU has %d collectives, more than pccl can hold in "
                           "flight (PCCL_QUEUE_DEPTH at most 8192)", most);
        cfg.queueDepth = most;
    }
    for (int k = 0; k < P->ncomms; k++) {
        const dl_group *g = dr_comm_members(S, k);
        P->comm_n[k] = g->n;
        P->comm[k] = dl_xcalloc((size_t)g->n, sizeof **P->comm);
        pcclResult_t r = pcclCommInitAllConfig(P->comm[k], g->n, g->gpus, &cfg);
        if (r != pcclSuccess)
            return fail_pccl(err, errlen, "pcclCommInitAllConfig", r, NULL);
    }
    return dr_stage_inputs(S, stage_part, P, err, errlen);
}

static int setup_gpu(void **state, const dr_setup *S, char *err, size_t errlen)
{
    return setup(state, S, 1, err, errlen);
}

static int setup_host(void **state, const dr_setup *S, char *err, size_t errlen)
{
    return setup(state, S, 0, err, errlen);
}

static part_buf *part_of(pstate *P, int gpu, int coll)
{
    return &P->part[dr_part(P->S->L, gpu, coll)];
}

static int invoke(void *state, int gpu, int coll, char *err, size_t errlen)
{
    pstate *P = state;
    part_buf *pb = part_of(P, gpu, coll);
    pcclComm_t c = P->comm[pb->comm][pb->rank];
    pcclResult_t r = pcclRun(c, pb->id, pb->send, pb->recv, NULL, NULL);
    return r == pcclSuccess ? 0 : fail_pccl(err, errlen, "pcclRun", r, c);
}

static int sync_gpu(void *state, int gpu, char *err, size_t errlen)
{
    pstate *P = state;
#ifdef PCCL_HAVE_CUDA
    if (P->gpu_backend) {
        DR_CUDA(cudaSetDevice(gpu));
        DR_CUDA(cudaDeviceSynchronize());
        return atomic_load(&P->aborted) ? -1 : 0;
    }
#endif
    /* The host backend's device synchronization is per communicator: all of
     * the GPU's, one after another, as cudaDeviceSynchronize waits for all. */
    for (int k = 0; k < P->ncomms; k++) {
        const dl_group *g = dr_comm_members(P->S, k);
        for (int m = 0; m < g->n; m++)
            if (g->gpus[m] == gpu) {
                if (atomic_load(&P->aborted))
                    return dl_fail(err, errlen, "aborted");
                pcclResult_t r = pcclDeviceSynchronize(P->comm[k][m]);
                if (r != pcclSuccess)
                    return fail_pccl(err, errlen, "pcclDeviceSynchronize", r, NULL);
            }
    }
    return 0;
}

static int done(void *state, int gpu, int coll, char *err, size_t errlen)
{
    pstate *P = state;
    part_buf *pb = part_of(P, gpu, coll);
    pcclComm_t c = P->comm[pb->comm][pb->rank];
    int d = 0;
    pcclResult_t r = pcclTest(c, pb->id, &d);
    if (r != pcclSuccess)
        return fail_pccl(err, errlen, "pcclTest", r, c);
    return d;
}

static void abort_all(void *state)
{
    pstate *P = state;
    atomic_store(&P->aborted, 1);
    for (int k = 0; k < P->ncomms; k++)
        for (int m = 0; m < P->comm_n[k]; m++)
            if (P->comm[k][m]) {
                pcclCommAbort(P->comm[k][m]);
                P->comm[k][m] = NULL;
            }
}

static int output(void *state, int gpu, int coll, void *host, char *err, size_t errlen)
{
    pstate *P = state;
    part_buf *pb = part_of(P, gpu, coll);
    return copy_to(P, gpu, host, pb->recv, ck_recv_bytes(&P->S->coll[coll]), err, errlen);
}

/* pccl adds a daemon's counters when it quits: synchronize first. */
static void stats(void *state, dr_stats *st)
{
    pstate *P = state;
    char err[256];
    for (int g = 0; g < P->S->L->ngpus; g++)
        sync_gpu(P, g, err, sizeof err);
    for (int k = 0; k < P->ncomms; k++)
        for (int m = 0; m < P->comm_n[k]; m++) {
            pcclStats_t s;
            if (P->comm[k][m] && pcclCommGetStats(P->comm[k][m], &s) == pcclSuccess) {
                st->preemptions += s.preemptions;
                st->quits += s.quits;
                st->launches += s.launches;
            }
        }
}

static void teardown(void *state, int aborted)
{
    pstate *P = state;
    if (!P)
        return;
    const dl_layout *L = P->S->L;
    for (int k = 0; k < P->ncomms; k++) {
        for (int m = 0; m < P->comm_n[k] && P->comm[k]; m++)
            if (P->comm[k][m])
                pcclCommDestroy(P->comm[k][m]);
        free(P->comm[k]);
    }
    for (int p = 0; p < L->nparts; p++) {
        if (P->part[p].send)
            free_buf(P, L->part_gpu[p], P->part[p].send);
        if (P->part[p].recv)
            free_buf(P, L->part_gpu[p], P->part[p].recv);
    }
    free(P->comm);
    free(P->comm_n);
    free(P->part);
    free(P);
    (void)aborted;
}

const dr_lib dr_lib_pccl = {"pccl", setup_gpu, invoke, sync_gpu, done, NULL,
                            abort_all, output, stats, teardown};
const dr_lib dr_lib_host = {"host", setup_host, invoke, sync_gpu, done, NULL,
                            abort_all, output, stats, teardown};
