/* pccl's GPU correctness suite: one communicator (pcclCommInitAll) over the
 * GPUs, one host thread per rank, every result checked against the CPU
 * reference of tests/pccl/check.h.
 *
 *   correctness   every collective x op x data type (reduce and broadcast with
 *                 root 0 and root nranks-1) at counts 1, 7 and a large odd one
 *                 (1000003, raised where needed so that a rank's share spans
 *                 more than one chunk), out of place, then in place with other
 *                 buffers (a second invocation of the same collective); out of
 *                 place, sendbuff is read back: it must be unchanged;
 *   sizes         all-reduce float/int32 sum, all-gather and reduce-scatter
 *                 int8, from 4 B to --max-bytes (4 B, 4 KiB+4, 1 MiB-4,
 *                 16 MiB+12, 256 MiB);
 *   misuse        pcclRun with a host pointer, another GPU's buffer, a buffer
 *                 too small, NULL, a bad collId, a second run while in flight
 *                 (each must fail with its code and leave the communicator
 *                 usable);
 *   concurrent    every registered collective invoked at once, in its own
 *                 random order on each rank (in place or not, per rank), then
 *                 waited for and checked;
 *   chaos         a communicator with chaos=1: the five collectives, int32
 *                 sum/max, a multi-chunk count, sequential and concurrent;
 *   behind        a collective behind another's wait in the SQ, which its peer
 *                 waits for on other blocks (2 ranks: behind_suite);
 *   nranks=1      correctness and concurrent on a one-rank communicator.
 *
 * Build (needs build/libpccl.a from `make gpu`):
 *   nvcc -O2 -arch=sm_90 -o build/gpu/pccl-gpu-test tests/gpu/pccl_gpu_test.c \
 *        tests/pccl/check.c build/libpccl.a -lpthread
 * Run: pccl-gpu-test [--gpus N] [--host] [--quick] [--max-bytes B] [--chaos]
 *                    [--seed S] [--help]
 * Exit: 0 all passed, 1 a failure, 2 bad arguments, 77 no GPU (SKIP).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h> /* types only: the driver entry point comes through the runtime */
#include <cuda_runtime.h>

#include "../../lib/pccl.h"
#include "../pccl/check.h"

#define MAXR 64
#ifndef WATCHDOG_S
#define WATCHDOG_S 120.0 /* seconds without progress before a hang is declared */
#endif
#define MAX_PRINTED 20 /* mismatch messages per group */

/* ---- options and totals -------------------------------------------------- */

static int opt_gpus, opt_host, opt_quick, opt_chaos;
static size_t opt_max_bytes; /* 0: the default, 256 MiB (32 MiB with --host) */
#define SUITE_CHUNK ((size_t)128 << 10) /* PCCL_CHUNK_BYTES of the GPU suite, unless set */
static uint64_t opt_seed = 1;

static int total_cases, total_failed;
static double t_start;
static pthread_mutex_t print_mu = PTHREAD_MUTEX_INITIALIZER;

static void print_result(int extra_failed)
{
    printf("RESULT pccl-gpu-test gpus=%d backend=%s cases=%d passed=%d failed=%d seconds=%.1f\n", opt_gpus,
           opt_host ? "host" : "gpu", total_cases + extra_failed, total_cases - total_failed,
           total_failed + extra_failed, ck_now() - t_start);
    fflush(stdout);
}

/* An error that leaves nothing to test (a call that must succeed failed). */
static void fatal(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&print_mu);
    fflush(stdout);
    fprintf(stderr, "FATAL: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    print_result(1);
    _exit(1);
}

#define CUDA(call)                                                                                       \
    do {                                                                                                 \
        cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess) fatal("%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    } while (0)

#define PCCL(comm, call)                                                                                  \
    do {                                                                                                  \
        pcclResult_t r_ = (call);                                                                         \
        if (r_ != pcclSuccess)                                                                            \
            fatal("%s:%d: %s: %s (%s)", __FILE__, __LINE__, #call, pcclGetErrorString(r_),                \
                  pcclGetLastError(comm));                                                                \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) fatal("out of host memory (%zu bytes)", n);
    return p;
}

/* ---- memory: device memory on the GPU backend, host memory on the host one */

static void set_device(int dev)
{
    if (!opt_host) CUDA(cudaSetDevice(dev));
}

static void *dev_alloc(pcclComm_t comm, size_t bytes)
{
    void *p = NULL;
    PCCL(comm, pcclMemAlloc(comm, &p, bytes ? bytes : 1));
    return p;
}

static void h2d(int dev, void *dst, const void *src, size_t n)
{
    if (!n) return;
    if (opt_host) { memcpy(dst, src, n); return; }
    CUDA(cudaSetDevice(dev));
    CUDA(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice));
    /* From pageable memory cudaMemcpy may return before the DMA has landed
     * (CUDA's "API synchronization behavior"), and the daemon runs on a
     * stream of its own: a collective invoked next could read the input
     * before it arrives, or write its output before the poison fill does
     * (seen once: an all-reduce's whole output 0xa5 on one H100). */
    CUDA(cudaStreamSynchronize(0));
}

static void d2h(int dev, void *dst, const void *src, size_t n)
{
    if (!n) return;
    if (opt_host) { memcpy(dst, src, n); return; }
    CUDA(cudaSetDevice(dev));
    CUDA(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost));
}

/* ---- cases ------------------------------------------------------------------- */

typedef struct {
    ck_coll c;
    int id;        /* collId: the same on every rank */
    uint64_t seed; /* of the inputs */
    void *send[MAXR], *recv[MAXR], *inbuf[MAXR]; /* per rank: out-of-place pair, in-place buffer */
    void *exp[MAXR]; /* expected recvbuff: [0] shared (reduce: the root's), reduce-scatter per rank */
    pthread_mutex_t mu;
    int bad[2];       /* this phase's verdicts (sequential: out of place, in place) */
    char msg[2][640]; /* first mismatch of each */
} tcase;

typedef struct {
    const char *name;
    int nranks, devs[MAXR];
    pcclComm_t comm[MAXR];
    tcase *cases;
    int ncases, cap;
} suite;

static suite *cur_suite; /* for the watchdog's dump */
static volatile int rank_at[MAXR]; /* case each rank thread is at, for the dump */
static const char *volatile cur_group = "";
static int printed; /* mismatch messages printed in this group */

static int add_case(suite *s, pcclCollType_t type, pcclDataType_t dt, pcclRedOp_t op, int root, size_t count)
{
    if (s->ncases == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->cases = realloc(s->cases, (size_t)s->cap * sizeof *s->cases);
        if (!s->cases) fatal("out of host memory");
    }
    tcase *t = &s->cases[s->ncases];
    memset(t, 0, sizeof *t);
    t->c.type = type;
    t->c.dtype = dt;
    t->c.op = ck_has_op(type) ? op : pcclSum;
    t->c.root = root;
    t->c.count = count;
    t->c.nranks = s->nranks;
    t->seed = opt_seed * 1000003ull + (uint64_t)s->ncases * 7919ull + (uint64_t)s->nranks;
    t->id = -1;
    return s->ncases++;
}

static size_t largest_buf(const ck_coll *c) { return ck_inplace_bytes(c); }

static const char *mode_name(int m) { return m == 1 ? "in place" : m == 2 ? "out of place, NULL unused" : "out of place"; }

/* ---- communicators -------------------------------------------------------------- */

static void suite_open(suite *s, const char *name, int nranks, int chaos, int depth)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->nranks = nranks;
    for (int r = 0; r < nranks; r++) s->devs[r] = r;
    pcclConfig_t cfg = PCCL_CONFIG_INITIALIZER;
    cfg.backend = opt_host ? PCCL_BACKEND_HOST : PCCL_BACKEND_GPU;
    if (chaos) cfg.chaos = 1;
    if (depth > 512) cfg.queueDepth = depth; /* the concurrent test has every case in flight */
    if (!opt_host) {
        /* Hundreds of multi-chunk collectives registered at once: a smaller
         * chunk than the default (256 KiB) keeps their buffers and connector
         * rings within several GiB, and a larger arena holds the rings (with
         * 64 blocks, 4 GiB filled up before the last case). */
        if (!getenv("PCCL_CHUNK_BYTES")) cfg.chunkBytes = SUITE_CHUNK;
        if (!getenv("PCCL_ARENA_BYTES")) cfg.arenaBytes = 16L << 30;
    }
    PCCL(NULL, pcclCommInitAllConfig(s->comm, nranks, s->devs, &cfg));
}

/* Registers every case on every rank, in the same order, and allocates its
 * buffers.  Call after all add_case calls of the suite. */
static void suite_register(suite *s)
{
    for (int k = 0; k < s->ncases; k++) {
        tcase *t = &s->cases[k];
        const ck_coll *c = &t->c;
        pthread_mutex_init(&t->mu, NULL); /* here: add_case may move the cases */
        for (int r = 0; r < s->nranks; r++) {
            pcclComm_t cm = s->comm[r];
            int id = -1;
            switch (c->type) {
            case pcclCollAllReduce: PCCL(cm, pcclRegisterAllReduce(cm, c->count, c->dtype, c->op, 0, &id)); break;
            case pcclCollAllGather: PCCL(cm, pcclRegisterAllGather(cm, c->count, c->dtype, 0, &id)); break;
            case pcclCollReduceScatter:
                PCCL(cm, pcclRegisterReduceScatter(cm, c->count, c->dtype, c->op, 0, &id));
                break;
            case pcclCollReduce: PCCL(cm, pcclRegisterReduce(cm, c->count, c->dtype, c->op, c->root, 0, &id)); break;
            default: PCCL(cm, pcclRegisterBroadcast(cm, c->count, c->dtype, c->root, 0, &id)); break;
            }
            if (r == 0) t->id = id;
            else if (id != t->id) fatal("registration: rank %d got collId %d, rank 0 got %d", r, id, t->id);
            set_device(s->devs[r]);
            t->send[r] = dev_alloc(cm, ck_send_bytes(c));
            t->recv[r] = dev_alloc(cm, ck_recv_bytes(c));
            t->inbuf[r] = dev_alloc(cm, ck_inplace_bytes(c));
        }
    }
}

static void suite_close(suite *s)
{
    for (int k = 0; k < s->ncases; k++) {
        tcase *t = &s->cases[k];
        for (int r = 0; r < s->nranks; r++) {
            pcclMemFree(s->comm[r], t->send[r]);
            pcclMemFree(s->comm[r], t->recv[r]);
            pcclMemFree(s->comm[r], t->inbuf[r]);
            free(t->exp[r]);
        }
        pthread_mutex_destroy(&t->mu);
    }
    for (int r = 0; r < s->nranks; r++) PCCL(NULL, pcclCommDestroy(s->comm[r]));
    free(s->cases);
    memset(s, 0, sizeof *s);
}

static void watchdog_dump(void *arg)
{
    (void)arg;
    suite *s = cur_suite;
    fprintf(stderr, "group %s\n", cur_group);
    for (int r = 0; s && r < s->nranks; r++) {
        pcclStats_t st;
        memset(&st, 0, sizeof st);
        pcclCommGetStats(s->comm[r], &st);
        int k = rank_at[r];
        char d[160] = "-";
        if (k >= 0 && k < s->ncases) ck_describe(&s->cases[k].c, d, sizeof d);
        fprintf(stderr,
                "  rank %d: at case %d (%s); completed=%llu launches=%llu quits=%llu preemptions=%llu blocks=%d\n", r,
                k, d, (unsigned long long)st.completed, (unsigned long long)st.launches,
                (unsigned long long)st.quits, (unsigned long long)st.preemptions, st.blocks);
    }
    printf("FAIL %s: hang (no progress for %.0f s)\n", cur_group, (double)WATCHDOG_S);
    print_result(1);
    fflush(stderr);
    _exit(1); /* rank threads are stuck: no cleanup */
}

/* ---- the reference, computed once per case, by a pool of threads -------------- */

typedef struct {
    tcase *t;
    int slot, rank;
    size_t bytes;
} ref_job;

static ref_job *jobs;
static int njobs, next_job;
static pthread_mutex_t job_mu = PTHREAD_MUTEX_INITIALIZER;

static void *ref_worker(void *unused)
{
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&job_mu);
        int j = next_job < njobs ? next_job++ : -1;
        pthread_mutex_unlock(&job_mu);
        if (j < 0) return NULL;
        ref_job *b = &jobs[j];
        void *e = xmalloc(b->bytes);
        ck_expected(&b->t->c, b->rank, b->t->seed, 0, e);
        b->t->exp[b->slot] = e;
        ck_watchdog_kick();
    }
}

static int cmp_job(const void *a, const void *b)
{
    size_t x = ((const ref_job *)a)->bytes, y = ((const ref_job *)b)->bytes;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The expected recvbuff of every case in [lo, hi) that needs one: all-reduce,
 * all-gather and broadcast once (the same on every rank), reduce the root's,
 * reduce-scatter each rank's. */
static void precompute(suite *s, int lo, int hi)
{
    njobs = 0;
    next_job = 0;
    jobs = xmalloc(sizeof *jobs * (size_t)(hi - lo) * (size_t)s->nranks);
    for (int k = lo; k < hi; k++) {
        tcase *t = &s->cases[k];
        int rs = t->c.type == pcclCollReduceScatter;
        for (int slot = 0; slot < (rs ? s->nranks : 1); slot++) {
            if (t->exp[slot]) continue;
            ref_job *b = &jobs[njobs++];
            b->t = t;
            b->slot = slot;
            b->rank = rs ? slot : t->c.type == pcclCollReduce ? t->c.root : 0;
            b->bytes = ck_recv_bytes(&t->c);
        }
    }
    qsort(jobs, (size_t)njobs, sizeof *jobs, cmp_job);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = ncpu < 1 ? 1 : ncpu > 32 ? 32 : (int)ncpu;
    if (nt > njobs) nt = njobs;
    pthread_t th[32];
    for (int i = 0; i < nt; i++)
        if (pthread_create(&th[i], NULL, ref_worker, NULL)) fatal("pthread_create failed");
    for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
    free(jobs);
    jobs = NULL;
}

/* What rank's recvbuff must hold (scratch: ck_recv_bytes, for a reduce's
 * non-root, whose buffer is untouched and so depends on the mode). */
static const void *expected_for(tcase *t, int rank, int inplace, void *scratch)
{
    if (t->c.type == pcclCollReduce && rank != t->c.root) {
        ck_expected(&t->c, rank, t->seed, inplace, scratch);
        return scratch;
    }
    return t->exp[t->c.type == pcclCollReduceScatter ? rank : 0];
}

/* ---- per-rank running and checking -------------------------------------------- */

static void record_fail(tcase *t, int slot, int mode, const char *msg)
{
    pthread_mutex_lock(&t->mu);
    int first = !t->bad[slot];
    t->bad[slot] = 1;
    if (first) snprintf(t->msg[slot], sizeof t->msg[slot], "%s [%s]", msg, mode_name(mode));
    pthread_mutex_unlock(&t->mu);
    if (!first) return;
    pthread_mutex_lock(&print_mu);
    if (printed < MAX_PRINTED) printf("  mismatch in %s: %s [%s]\n", cur_group, msg, mode_name(mode));
    else if (printed == MAX_PRINTED) printf("  (more mismatches in %s not printed)\n", cur_group);
    printed++;
    fflush(stdout);
    pthread_mutex_unlock(&print_mu);
}

typedef struct {
    void *a, *b, *got, *scratch, *sent; /* staging: send (or in place), recv sentinel, result,
                                          * reduce non-root reference, sendbuff read back */
    size_t na, nb, ns;
} stage;

static void stage_init(stage *st, const suite *s, int lo, int hi)
{
    memset(st, 0, sizeof *st);
    for (int k = lo; k < hi; k++) {
        const ck_coll *c = &s->cases[k].c;
        size_t a = ck_inplace_bytes(c), b = ck_recv_bytes(c);
        if (a > st->na) st->na = a;
        if (b > st->nb) st->nb = b;
        if (c->type == pcclCollReduce && b > st->ns) st->ns = b;
    }
    st->a = xmalloc(st->na);
    st->b = xmalloc(st->nb);
    st->got = xmalloc(st->nb);
    st->scratch = xmalloc(st->ns);
    st->sent = xmalloc(st->na);
}

static void stage_free(stage *st)
{
    free(st->a);
    free(st->b);
    free(st->got);
    free(st->scratch);
    free(st->sent);
}

/* ck_fill_send, split over helper threads for large buffers: element i is
 * ck_input_elem(i) either way.  (Generating inputs is the bulk of the host
 * work: billions of elements in a full run.) */
static int fill_threads = 1;

typedef struct {
    const ck_coll *c;
    int rank;
    uint64_t seed;
    char *dst;
    size_t lo, hi;
} fill_arg;

static void *fill_part(void *p)
{
    fill_arg *f = p;
    size_t es = ck_type_size(f->c->dtype);
    for (size_t i = f->lo; i < f->hi; i++) ck_input_elem(f->c, f->rank, f->seed, i, f->dst + i * es);
    return NULL;
}

static void fill_send(const ck_coll *c, int rank, uint64_t seed, void *dst)
{
    size_t n = ck_send_count(c);
    int nt = fill_threads;
    if (n < ((size_t)1 << 20) || nt < 2) {
        ck_fill_send(c, rank, seed, dst);
        return;
    }
    pthread_t th[16];
    fill_arg fa[16];
    for (int i = 0; i < nt; i++) {
        fa[i] = (fill_arg){c, rank, seed, dst, n * (size_t)i / (size_t)nt, n * (size_t)(i + 1) / (size_t)nt};
        if (i && pthread_create(&th[i], NULL, fill_part, &fa[i])) fatal("pthread_create failed");
    }
    fill_part(&fa[0]);
    for (int i = 1; i < nt; i++) pthread_join(th[i], NULL);
}

/* ck_prepare, with the parallel fill_send for large inputs. */
static void prepare_host(const ck_coll *c, int rank, uint64_t seed, int inplace, void *send, void *recv)
{
    if (ck_send_count(c) < ((size_t)1 << 20) || fill_threads < 2) {
        ck_prepare(c, rank, seed, inplace, send, recv);
        return;
    }
    if (inplace) {
        void *sp, *rp;
        ck_fill_sentinel(send, ck_inplace_bytes(c));
        ck_inplace_ptrs(c, rank, send, &sp, &rp);
        fill_send(c, rank, seed, sp);
        return;
    }
    fill_send(c, rank, seed, send);
    ck_fill_sentinel(recv, ck_recv_bytes(c));
}

/* Inputs of case t on rank r for mode m (0 out of place, 1 in place, 2 out of
 * place with NULL for a buffer the rank does not use) into its buffers; sets
 * the pointers to invoke with. */
static void prepare(const suite *s, tcase *t, int r, int m, stage *st, void **sb, void **rb)
{
    const ck_coll *c = &t->c;
    int dev = s->devs[r];
    if (m == 1) {
        prepare_host(c, r, t->seed, 1, st->a, NULL);
        h2d(dev, t->inbuf[r], st->a, ck_inplace_bytes(c));
        ck_inplace_ptrs(c, r, t->inbuf[r], sb, rb);
        return;
    }
    prepare_host(c, r, t->seed, 0, st->a, st->b);
    h2d(dev, t->send[r], st->a, ck_send_bytes(c));
    h2d(dev, t->recv[r], st->b, ck_recv_bytes(c));
    *sb = t->send[r];
    *rb = t->recv[r];
    if (m == 2 && !ck_reads_send(c, r)) *sb = NULL;
    if (m == 2 && !ck_writes_recv(c, r)) *rb = NULL;
}

/* After the invocation completed with status st: fetch and compare. */
static void check(const suite *s, tcase *t, int r, int m, int slot, pcclResult_t status, void *rb, stage *st)
{
    char msg[600];
    char d[160];
    if (status != pcclSuccess) {
        snprintf(msg, sizeof msg, "%s, rank %d: completed with %s (%s)", ck_describe(&t->c, d, sizeof d), r,
                 pcclGetErrorString(status), pcclGetLastError(s->comm[r]));
        record_fail(t, slot, m, msg);
        return;
    }
    if (!rb) return; /* reduce, not root, NULL recvbuff: nothing written */
    size_t n = ck_recv_bytes(&t->c);
    d2h(s->devs[r], st->got, rb, n);
    const void *e = expected_for(t, r, m == 1, st->scratch);
    if (!e) fatal("no reference for case");
    if (ck_compare(&t->c, r, e, st->got, msg, sizeof msg)) record_fail(t, slot, m, msg);
}

typedef struct {
    suite *s;
    int rank, lo, hi;
    uint64_t seed;
    pthread_barrier_t *bar;
} rank_arg;

static void on_done(int id, pcclResult_t status, void *arg)
{
    (void)id;
    (void)status;
    __atomic_fetch_add((long *)arg, 1, __ATOMIC_RELAXED);
    ck_watchdog_kick();
}

/* Sequential: each case out of place, then in place (the same collective with
 * other buffers), waiting for each. */
static void *seq_rank(void *p)
{
    rank_arg *a = p;
    suite *s = a->s;
    int r = a->rank;
    set_device(s->devs[r]);
    stage st;
    stage_init(&st, s, a->lo, a->hi);
    for (int k = a->lo; k < a->hi; k++) {
        tcase *t = &s->cases[k];
        rank_at[r] = k;
        for (int m = 0; m < 2; m++) {
            void *sb, *rb;
            prepare(s, t, r, m, &st, &sb, &rb);
            PCCL(s->comm[r], pcclRun(s->comm[r], t->id, sb, rb, NULL, NULL));
            pcclResult_t w = pcclWait(s->comm[r], t->id);
            check(s, t, r, m, m, w, rb, &st);
            if (m == 0 && w == pcclSuccess) { /* out of place: sendbuff is read only */
                size_t n = ck_send_bytes(&t->c);
                d2h(s->devs[r], st.sent, sb, n);
                if (memcmp(st.sent, st.a, n)) {
                    size_t i = 0;
                    while (((unsigned char *)st.sent)[i] == ((unsigned char *)st.a)[i]) i++;
                    char msg[400], d[160];
                    snprintf(msg, sizeof msg, "%s, rank %d: sendbuff was written (byte %zu of %zu)",
                             ck_describe(&t->c, d, sizeof d), r, i, n);
                    record_fail(t, m, m, msg);
                }
            }
            ck_watchdog_kick();
        }
    }
    rank_at[r] = -1;
    stage_free(&st);
    return NULL;
}

static int conc_mode(uint64_t seed, int k, int r)
{
    uint64_t x = seed ^ ((uint64_t)k << 20) ^ ((uint64_t)r << 48);
    return (int)(ck_rand(&x) % 3);
}

/* Concurrent: every case of [lo, hi) prepared (a random mode per case and
 * rank), then all invoked in this rank's own random order, then waited for
 * and checked. */
static void *conc_rank(void *p)
{
    rank_arg *a = p;
    suite *s = a->s;
    int r = a->rank, n = a->hi - a->lo;
    set_device(s->devs[r]);
    stage st;
    stage_init(&st, s, a->lo, a->hi);
    void **sb = xmalloc(sizeof(void *) * (size_t)n), **rb = xmalloc(sizeof(void *) * (size_t)n);
    int *order = xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int k = a->lo + i;
        rank_at[r] = k;
        prepare(s, &s->cases[k], r, conc_mode(a->seed, k, r), &st, &sb[i], &rb[i]);
        order[i] = i;
        ck_watchdog_kick();
    }
    ck_shuffle(order, n, a->seed * 31 + (uint64_t)r * 1000003ull + 17);
    pthread_barrier_wait(a->bar);
    long done = 0;
    for (int j = 0; j < n; j++) {
        int i = order[j], k = a->lo + i;
        rank_at[r] = k;
        PCCL(s->comm[r], pcclRun(s->comm[r], s->cases[k].id, sb[i], rb[i], on_done, &done));
    }
    PCCL(s->comm[r], pcclWaitAll(s->comm[r]));
    for (int i = 0; i < n; i++) {
        int k = a->lo + i;
        tcase *t = &s->cases[k];
        rank_at[r] = k;
        pcclResult_t w = pcclWait(s->comm[r], t->id);
        check(s, t, r, conc_mode(a->seed, k, r), 0, w, rb[i], &st);
        ck_watchdog_kick();
    }
    if (__atomic_load_n(&done, __ATOMIC_RELAXED) != n)
        fatal("rank %d: %ld callbacks for %d invocations", r, done, n);
    rank_at[r] = -1;
    free(sb);
    free(rb);
    free(order);
    stage_free(&st);
    return NULL;
}

/* ---- groups ------------------------------------------------------------------------ */

static double group_t0;
static int group_cases, group_failed;

static void group_begin(suite *s, const char *name)
{
    cur_suite = s;
    cur_group = name;
    printed = 0;
    group_cases = group_failed = 0;
    group_t0 = ck_now();
    ck_watchdog_arm(name, WATCHDOG_S, watchdog_dump, NULL);
}

static void group_end(const char *extra)
{
    ck_watchdog_disarm();
    total_cases += group_cases;
    total_failed += group_failed;
    printf("%s %-22s nranks=%d cases=%d passed=%d failed=%d seconds=%.1f%s%s\n", group_failed ? "FAIL" : "PASS",
           cur_group, cur_suite ? cur_suite->nranks : 0, group_cases, group_cases - group_failed, group_failed,
           ck_now() - group_t0, extra ? " " : "", extra ? extra : "");
    fflush(stdout);
}

/* Runs fn on one thread per rank over cases [lo, hi) and tallies `nslots`
 * verdicts per case. */
static void run_ranks(suite *s, void *(*fn)(void *), int lo, int hi, uint64_t seed, int nslots)
{
    pthread_t th[MAXR];
    rank_arg args[MAXR];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)s->nranks);
    for (int k = lo; k < hi; k++) {
        tcase *t = &s->cases[k];
        t->bad[0] = t->bad[1] = 0;
        t->msg[0][0] = t->msg[1][0] = 0;
    }
    for (int r = 0; r < s->nranks; r++) {
        args[r] = (rank_arg){s, r, lo, hi, seed, &bar};
        if (pthread_create(&th[r], NULL, fn, &args[r])) fatal("pthread_create failed");
    }
    for (int r = 0; r < s->nranks; r++) pthread_join(th[r], NULL);
    pthread_barrier_destroy(&bar);
    for (int k = lo; k < hi; k++)
        for (int j = 0; j < nslots; j++) {
            group_cases++;
            group_failed += s->cases[k].bad[j] != 0;
        }
}

/* The large count: odd, and (GPU) big enough that one rank's share of each
 * of 16 blocks spans more than one chunk (an all-reduce splits its count over
 * blocks and ranks).  pccl gives a collective that large 16 blocks or more
 * at its defaults (lib/register.c, reg), each with more than one chunk. */
static size_t big_count(pcclCollType_t type, pcclDataType_t dt, int nranks)
{
    size_t es = ck_type_size(dt), n = opt_host && opt_quick ? 20011 : 1000003;
    if (!opt_host) {
        const char *e = getenv("PCCL_BLOCKS");
        size_t blocks = e && atoi(e) > 0 ? (size_t)atoi(e) : 16;
        e = getenv("PCCL_CHUNK_BYTES");
        size_t chunk = e && atol(e) > 0 ? (size_t)atol(e) : SUITE_CHUNK;
        size_t parts = blocks * (type == pcclCollAllReduce ? (size_t)nranks : 1);
        while (n * es <= parts * chunk && n < ((size_t)1 << 30)) n = 2 * n + 1;
    }
    /* within --max-bytes (the largest buffer), still odd where possible */
    size_t per = es * (type == pcclCollAllGather || type == pcclCollReduceScatter ? (size_t)nranks : 1);
    if (n * per > opt_max_bytes) {
        n = opt_max_bytes / per;
        if (n > 1 && !(n & 1)) n--;
        if (n < 1) n = 1;
    }
    return n;
}

static const pcclDataType_t all_types[pcclNumTypes] = {pcclInt8,    pcclUint8,   pcclInt32, pcclUint32,
                                                       pcclInt64,   pcclUint64,  pcclFloat16, pcclFloat32,
                                                       pcclFloat64, pcclBfloat16};

/* Quick mode keeps the large count for these types only. */
static int quick_big_type(pcclDataType_t t)
{
    return t == pcclInt8 || t == pcclUint32 || t == pcclFloat16 || t == pcclFloat32 || t == pcclBfloat16;
}

/* Every collective x op x type (reduce, broadcast: root 0 and nranks-1) at
 * counts 1, 7 and large.  Returns the number of cases added. */
static int add_matrix(suite *s)
{
    int before = s->ncases, n = s->nranks;
    for (int ci = 0; ci < 3; ci++)
        for (int ti = 0; ti < pcclNumTypes; ti++) {
            pcclDataType_t dt = all_types[ti];
            if (ci == 2 && opt_quick && !quick_big_type(dt)) continue;
            for (int ct = 0; ct < pcclNumColls; ct++) {
                pcclCollType_t type = (pcclCollType_t)ct;
                size_t count = ci == 0 ? 1 : ci == 1 ? 7 : big_count(type, dt, n);
                int rooted = type == pcclCollReduce || type == pcclCollBroadcast;
                for (int ri = 0; ri < (rooted && n > 1 ? 2 : 1); ri++)
                    for (int op = 0; op < (ck_has_op(type) ? pcclNumOps : 1); op++)
                        add_case(s, type, dt, (pcclRedOp_t)op, ri ? n - 1 : 0, count);
            }
        }
    return s->ncases - before;
}

/* all-reduce float and int32 sum, all-gather and reduce-scatter int8: the
 * largest buffer at 4 B, 4 KiB+4, 1 MiB-4, 16 MiB+12, 256 MiB (within
 * --max-bytes; all-gather and reduce-scatter: per rank count = bytes/nranks). */
static int add_sizes(suite *s)
{
    static const size_t bytes[] = {4, 4096 + 4, (1 << 20) - 4, (16 << 20) + 12, (size_t)256 << 20};
    int before = s->ncases, n = s->nranks;
    for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
        size_t b = bytes[i];
        if (b > opt_max_bytes) continue;
        add_case(s, pcclCollAllReduce, pcclFloat32, pcclSum, 0, b / 4);
        add_case(s, pcclCollAllReduce, pcclInt32, pcclSum, 0, b / 4);
        size_t per = b / (size_t)n ? b / (size_t)n : 1;
        add_case(s, pcclCollAllGather, pcclInt8, pcclSum, 0, per);
        add_case(s, pcclCollReduceScatter, pcclInt8, pcclSum, 0, per);
    }
    return s->ncases - before;
}

static void run_seq_group(suite *s, const char *name, int lo, int hi)
{
    group_begin(s, name);
    precompute(s, lo, hi);
    run_ranks(s, seq_rank, lo, hi, 0, 2);
    char extra[64];
    snprintf(extra, sizeof extra, "(%d collectives x out of place, in place)", hi - lo);
    group_end(extra);
}

static void run_conc_group(suite *s, const char *name, int lo, int hi, int iters)
{
    group_begin(s, name);
    precompute(s, lo, hi);
    for (int it = 0; it < iters; it++) run_ranks(s, conc_rank, lo, hi, opt_seed * 7777 + (uint64_t)it * 131 + 5, 1);
    char extra[80];
    snprintf(extra, sizeof extra, "(%d collectives in flight per rank, random orders, %d round%s)", hi - lo, iters,
             iters > 1 ? "s" : "");
    group_end(extra);
}

/* ---- misuse --------------------------------------------------------------------- */

static void expect_code(suite *s, int r, const char *what, pcclResult_t want, pcclResult_t got)
{
    group_cases++;
    int ok = got == want;
    if (!ok) group_failed++;
    printf("  %s %s: rank %d: %s (want %s): %s\n", ok ? "ok  " : "FAIL", what, r, pcclGetErrorString(got),
           pcclGetErrorString(want), got ? pcclGetLastError(s->comm[r]) : "-");
    fflush(stdout);
}

/* Bytes from p to the end of its allocation as the driver reports them
 * (cuMemGetAddressRange, as pccl finds it: through the runtime), 0 if unknown.
 * A too-small-buffer check applies only where this is below what the
 * collective needs: a driver that rounded allocations up would make it moot. */
typedef CUresult (*range_fn_t)(CUdeviceptr *, size_t *, CUdeviceptr);
static size_t bytes_to_alloc_end(const void *p)
{
    static range_fn_t fn;
    if (!fn) {
        enum cudaDriverEntryPointQueryResult q;
        void *f = NULL;
        if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault, &q) ==
                cudaSuccess && q == cudaDriverEntryPointSuccess)
            fn = (range_fn_t)f;
        cudaGetLastError();
    }
    CUdeviceptr base = 0;
    size_t size = 0;
    if (!fn || fn(&base, &size, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS) return 0;
    return (size_t)(base + size - (CUdeviceptr)(uintptr_t)p);
}

static void expect_too_small(suite *s, const char *what, const void *p, size_t need, int id, const void *sb, void *rb)
{
    size_t left = bytes_to_alloc_end(p);
    if (!left || left >= need) {
        printf("  skip %s: the driver reports %zu bytes to the end of the allocation (%s), the collective needs %zu\n",
               what, left, left ? "rounded up" : "unknown", need);
        return;
    }
    expect_code(s, 0, what, pcclInvalidArgument, pcclRun(s->comm[0], id, sb, rb, NULL, NULL));
}

/* Calls that must fail, on the 1 MiB all-reduce case k, then a proper run of
 * it on every rank (the communicator must still work). */
static void run_misuse(suite *s, int k)
{
    group_begin(s, "misuse");
    precompute(s, k, k + 1);
    tcase *t = &s->cases[k];
    pcclComm_t c0 = s->comm[0];
    int id = t->id, dev0 = s->devs[0];
    size_t bytes = ck_recv_bytes(&t->c);
    set_device(dev0);
    if (!opt_host) {
        void *h = xmalloc(bytes);
        memset(h, 0, bytes);
        expect_code(s, 0, "recvbuff is host memory (malloc)", pcclInvalidArgument,
                    pcclRun(c0, id, t->send[0], h, NULL, NULL));
        expect_code(s, 0, "sendbuff is host memory (malloc)", pcclInvalidArgument,
                    pcclRun(c0, id, h, t->recv[0], NULL, NULL));
        free(h);
        if (s->nranks >= 2) {
            void *other = NULL;
            CUDA(cudaSetDevice(s->devs[1]));
            CUDA(cudaMalloc(&other, bytes));
            CUDA(cudaSetDevice(dev0));
            expect_code(s, 0, "recvbuff is memory of another GPU", pcclInvalidArgument,
                        pcclRun(c0, id, t->send[0], other, NULL, NULL));
            expect_code(s, 0, "sendbuff is memory of another GPU", pcclInvalidArgument,
                        pcclRun(c0, id, other, t->recv[0], NULL, NULL));
            CUDA(cudaSetDevice(s->devs[1]));
            CUDA(cudaFree(other));
            CUDA(cudaSetDevice(dev0));
        }
        void *small = NULL;
        CUDA(cudaMalloc(&small, 16));
        expect_too_small(s, "recvbuff is 16 bytes (cudaMalloc) for a 1 MiB collective", small, bytes, id, t->send[0],
                         small);
        expect_too_small(s, "sendbuff is 16 bytes (cudaMalloc) for a 1 MiB collective", small, bytes, id, small,
                         t->recv[0]);
        CUDA(cudaFree(small));
        char *late = (char *)t->recv[0] + 256;
        expect_too_small(s, "recvbuff 256 B into its 1 MiB allocation (too short)", late, bytes, id, t->send[0], late);
    }
    expect_code(s, 0, "recvbuff is NULL", pcclInvalidArgument, pcclRun(c0, id, t->send[0], NULL, NULL, NULL));
    expect_code(s, 0, "sendbuff is NULL", pcclInvalidArgument, pcclRun(c0, id, NULL, t->recv[0], NULL, NULL));
    expect_code(s, 0, "both buffers NULL", pcclInvalidArgument, pcclRun(c0, id, NULL, NULL, NULL, NULL));
    expect_code(s, 0, "collId -1", pcclInvalidArgument, pcclRun(c0, -1, t->send[0], t->recv[0], NULL, NULL));
    expect_code(s, 0, "collId not registered", pcclInvalidArgument,
                pcclRun(c0, s->ncases + 1000, t->send[0], t->recv[0], NULL, NULL));

    /* The communicator still works: the case itself, on every rank, both
     * modes; with >= 2 ranks, rank 0 first tries a second pcclRun while its
     * first cannot complete (the other ranks have not invoked yet). */
    group_cases += 2;
    for (int m = 0; m < 2; m++) {
        t->bad[m] = 0;
        t->msg[m][0] = 0;
    }
    stage st[MAXR];
    void *sb[MAXR], *rb[MAXR];
    for (int m = 0; m < 2; m++) {
        for (int r = 0; r < s->nranks; r++) {
            set_device(s->devs[r]);
            if (m == 0) stage_init(&st[r], s, k, k + 1);
            prepare(s, t, r, m, &st[r], &sb[r], &rb[r]);
        }
        PCCL(c0, pcclRun(c0, id, sb[0], rb[0], NULL, NULL));
        if (m == 0 && s->nranks >= 2) {
            int done = -1;
            PCCL(c0, pcclTest(c0, id, &done));
            expect_code(s, 0, "pcclTest before the peers joined says not done", pcclSuccess,
                        done == 0 ? pcclSuccess : pcclInternalError);
            expect_code(s, 0, "second pcclRun while in flight", pcclInvalidUsage,
                        pcclRun(c0, id, sb[0], rb[0], NULL, NULL));
        }
        for (int r = 1; r < s->nranks; r++) PCCL(s->comm[r], pcclRun(s->comm[r], id, sb[r], rb[r], NULL, NULL));
        for (int r = 0; r < s->nranks; r++) {
            pcclResult_t w = pcclWait(s->comm[r], id);
            set_device(s->devs[r]);
            check(s, t, r, m, m, w, rb[r], &st[r]);
        }
    }
    for (int r = 0; r < s->nranks; r++) stage_free(&st[r]);
    group_failed += (t->bad[0] != 0) + (t->bad[1] != 0);
    printf("  %s valid runs afterwards (out of place, in place) on all %d ranks\n",
           t->bad[0] || t->bad[1] ? "FAIL" : "ok  ", s->nranks);
    group_end(NULL);
}

/* ---- suites -------------------------------------------------------------------------- */

/* The N-rank communicator: correctness, sizes, misuse, concurrent. */
static void main_suite(int n)
{
    suite s;
    /* cases first (the queue depth must hold them all), then the communicator */
    suite proto;
    memset(&proto, 0, sizeof proto);
    proto.nranks = n;
    int m0 = 0, m1 = add_matrix(&proto);
    int z1 = m1 + add_sizes(&proto);
    int mis = add_case(&proto, pcclCollAllReduce, pcclFloat32, pcclSum, 0, (1 << 20) / 4);
    int total = proto.ncases;
    char name[32];
    snprintf(name, sizeof name, "main n=%d", n);
    suite_open(&s, name, n, opt_chaos, total + 16);
    s.cases = proto.cases;
    s.ncases = proto.ncases;
    s.cap = proto.cap;
    cur_suite = &s;
    suite_register(&s);
    run_seq_group(&s, "correctness", m0, m1);
    run_seq_group(&s, "sizes", m1, z1);
    run_misuse(&s, mis);
    run_conc_group(&s, "concurrent", 0, total, 1);
    cur_suite = NULL;
    suite_close(&s);
}

/* A chaos=1 communicator: the five collectives, int32 sum and max, one
 * multi-chunk count; sequential, then concurrent (3 rounds). */
static void chaos_suite(int n)
{
    suite s;
    suite_open(&s, "chaos", n, 1, 0);
    cur_suite = &s;
    size_t cnt = opt_host ? (opt_quick ? 20011 : 100003) : 1000003;
    for (int op = 0; op < 2; op++) {
        pcclRedOp_t o = op ? pcclMax : pcclSum;
        add_case(&s, pcclCollAllReduce, pcclInt32, o, 0, cnt);
        add_case(&s, pcclCollReduceScatter, pcclInt32, o, 0, cnt);
        add_case(&s, pcclCollReduce, pcclInt32, o, op ? n - 1 : 0, cnt);
    }
    add_case(&s, pcclCollAllGather, pcclInt32, pcclSum, 0, cnt);
    add_case(&s, pcclCollBroadcast, pcclInt32, pcclSum, n - 1, cnt);
    add_case(&s, pcclCollBroadcast, pcclInt32, pcclSum, 0, cnt);
    for (int k = 0; k < s.ncases; k++) { /* within --max-bytes */
        ck_coll *c = &s.cases[k].c;
        while (largest_buf(c) > opt_max_bytes && c->count > 1) c->count = (c->count / 2) | 1;
    }
    suite_register(&s);
    run_seq_group(&s, "chaos sequential", 0, s.ncases);
    run_conc_group(&s, "chaos concurrent", 0, s.ncases, 3);
    cur_suite = NULL;
    suite_close(&s);
}

/* Behind a wait: ranks 0 and 1 on 6 blocks, spin thresholds no wait runs
 * out of, no slice.  Rank 0 issues X (2 floats, one block: block 0, alone in
 * flight) then Y (32 floats in 256-byte chunks: two blocks, 2-3 or 4-5);
 * rank 1 issues Y and X only once Y completed.  Rank 0's block 0 waits for
 * X, and rank 0's Y runs only once block 0, the one reader of the host's
 * SQ, fetches it while it waits (lib/scheduler.h, pccl_fetch_waiting); no
 * waiting block's ring neighbour waits on the same block, so the
 * neighbour's-wait yield cannot help.  Exact results, Y on rank 1 complete
 * within 5 s, and rank 0 counting the fetch (pcclStats_t.waitFetches).  The
 * host suite's deadlock test "Y in rank 0's SQ behind X's wait", on GPUs. */
static void behind_suite(void)
{
    enum { NX = 2, NY = 32, X = 0, Y = 1 };
    pcclComm_t c[2];
    int devs[2] = {0, 1}, id[2][2], bad = 0;
    pcclConfig_t cfg = PCCL_CONFIG_INITIALIZER;
    cfg.backend = opt_host ? PCCL_BACKEND_HOST : PCCL_BACKEND_GPU;
    cfg.blocks = 6;
    cfg.chunkBytes = 256;
    cfg.spinHead = cfg.spinBase = cfg.spinMin = 1L << 40;
    cfg.sticky = 1;
    cfg.sliceUs = 0;
    PCCL(NULL, pcclCommInitAllConfig(c, 2, devs, &cfg));
    float in[2][2][NY], out[2][2][NY];
    void *din[2][2], *dout[2][2];
    for (int r = 0; r < 2; r++) {
        set_device(r);
        PCCL(c[r], pcclRegisterAllReduce(c[r], NX, pcclFloat32, pcclSum, 0, &id[r][X]));
        PCCL(c[r], pcclRegisterAllReduce(c[r], NY, pcclFloat32, pcclSum, 0, &id[r][Y]));
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < NY; i++) in[r][k][i] = (float)((r + 1) * 100 + k * 10 + i % 7);
            din[r][k] = dev_alloc(c[r], sizeof in[r][k]);
            dout[r][k] = dev_alloc(c[r], sizeof in[r][k]);
            h2d(r, din[r][k], in[r][k], sizeof in[r][k]);
        }
    }
    PCCL(c[0], pcclRun(c[0], id[0][X], din[0][X], dout[0][X], NULL, NULL));
    PCCL(c[0], pcclRun(c[0], id[0][Y], din[0][Y], dout[0][Y], NULL, NULL));
    PCCL(c[1], pcclRun(c[1], id[1][Y], din[1][Y], dout[1][Y], NULL, NULL));
    int done = 0;
    double t0 = ck_now();
    while (!done && ck_now() - t0 < 5.0) {
        PCCL(c[1], pcclTest(c[1], id[1][Y], &done));
        if (!done) usleep(1000);
    }
    if (!done) bad = printf("FAIL behind a wait: rank 1's Y not complete after 5 s\n") > 0;
    /* either way X now: where Y was stuck, it releases rank 0's block 0 */
    PCCL(c[1], pcclRun(c[1], id[1][X], din[1][X], dout[1][X], NULL, NULL));
    for (int r = 0; r < 2; r++) PCCL(c[r], pcclWaitAll(c[r]));
    int wrong = 0;
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++) {
            d2h(r, out[r][k], dout[r][k], sizeof out[r][k]);
            for (int i = 0; i < (k == X ? NX : NY); i++) wrong += out[r][k][i] != in[0][k][i] + in[1][k][i];
        }
    if (wrong) bad = printf("FAIL behind a wait: %d wrong elements\n", wrong) > 0;
    pcclStats_t st;
    PCCL(c[0], pcclDeviceSynchronize(c[0])); /* the counters are published when a launch ends */
    PCCL(c[0], pcclCommGetStats(c[0], &st));
    if (!st.waitFetches) bad = printf("FAIL behind a wait: rank 0 fetched nothing while X waited\n") > 0;
    printf("%s behind a wait: Y in %.2f ms, rank 0 fetched %llu while waiting\n", bad ? "FAIL" : "ok",
           (ck_now() - t0) * 1e3, (unsigned long long)st.waitFetches);
    fflush(stdout);
    total_cases++;
    total_failed += bad;
    for (int r = 0; r < 2; r++) {
        for (int k = 0; k < 2; k++) {
            PCCL(c[r], pcclMemFree(c[r], din[r][k]));
            PCCL(c[r], pcclMemFree(c[r], dout[r][k]));
        }
        PCCL(c[r], pcclCommDestroy(c[r]));
    }
}

/* One rank (GPU 0): correctness and concurrent. */
static void single_suite(void)
{
    suite s;
    suite proto;
    memset(&proto, 0, sizeof proto);
    proto.nranks = 1;
    int total = add_matrix(&proto);
    suite_open(&s, "nranks=1", 1, opt_chaos, total + 16);
    s.cases = proto.cases;
    s.ncases = proto.ncases;
    s.cap = proto.cap;
    cur_suite = &s;
    suite_register(&s);
    run_seq_group(&s, "nranks=1 correctness", 0, total);
    run_conc_group(&s, "nranks=1 concurrent", 0, total, 1);
    cur_suite = NULL;
    suite_close(&s);
}

/* ---- arguments ------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: pccl-gpu-test [--gpus N] [--host] [--quick] [--max-bytes B] [--chaos] [--seed S] [--help]\n"
            "  pccl's GPU correctness suite: every collective x op x type against a CPU reference,\n"
            "  sizes up to --max-bytes, argument checks, all collectives concurrently in random\n"
            "  per-rank orders, a chaos-mode communicator, and a one-rank communicator.\n"
            "  --gpus N       ranks (default: all visible GPUs; with --host: 4)\n"
            "  --host         host backend (threads as GPUs, buffers in host memory)\n"
            "  --quick        fewer cases (large count for 5 of the 10 types; small counts on --host)\n"
            "  --max-bytes B  largest buffer (default 256M, with --host 32M; K, M, G suffixes: KiB, MiB, GiB)\n"
            "  --chaos        the main communicators too with chaos=1\n"
            "  --seed S       inputs and orders (default 1)\n"
            "Exit: 0 all passed, 1 a failure, 2 bad arguments, 77 no GPU.\n");
}

static const char *need_value(int argc, char **argv, int i)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "pccl-gpu-test: %s needs a value\n", argv[i]);
        exit(2);
    }
    return argv[i + 1];
}

static unsigned long long parse_num(const char *opt, const char *v, unsigned long long lo, unsigned long long hi,
                                    int suffixes)
{
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || *v == '-') goto bad;
    if (suffixes && *end) {
        int sh = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : -1;
        if (sh < 0 || end[1]) goto bad;
        if (x > (hi >> sh)) goto bad;
        x <<= sh;
        end++;
    }
    if (*end || x < lo || x > hi) goto bad;
    return x;
bad:
    fprintf(stderr, "pccl-gpu-test: %s: '%s' is not an integer in [%llu, %llu]%s\n", opt, v, lo, hi,
            suffixes ? " (K, M, G suffixes allowed)" : "");
    exit(2);
}

int main(int argc, char **argv)
{
    setenv("NCCL_NVLS_ENABLE", "0", 1); /* house rule: never NVLink multicast */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--gpus")) opt_gpus = (int)parse_num(a, need_value(argc, argv, i), 1, MAXR, 0), i++;
        else if (!strcmp(a, "--max-bytes"))
            opt_max_bytes = (size_t)parse_num(a, need_value(argc, argv, i), 1, 1ull << 40, 1), i++;
        else if (!strcmp(a, "--seed")) opt_seed = parse_num(a, need_value(argc, argv, i), 0, 1ull << 62, 0), i++;
        else if (!strcmp(a, "--host")) opt_host = 1;
        else if (!strcmp(a, "--quick")) opt_quick = 1;
        else if (!strcmp(a, "--chaos")) opt_chaos = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else {
            fprintf(stderr, "pccl-gpu-test: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!opt_max_bytes) opt_max_bytes = opt_host ? (size_t)32 << 20 : (size_t)256 << 20;
    if (opt_quick) setenv("PCCL_TEST_QUICK", "1", 1);
    else opt_quick = ck_quick();
    int have = 0;
    if (opt_host) {
        have = MAXR;
        if (!opt_gpus) opt_gpus = 4;
    } else {
        if (cudaGetDeviceCount(&have) != cudaSuccess) have = 0;
        if (have < 1) {
            printf("SKIP: no GPU\n");
            return 77;
        }
        if (!opt_gpus) opt_gpus = have;
        if (opt_gpus > have) {
            fprintf(stderr, "pccl-gpu-test: --gpus %d: only %d GPU(s) visible\n", opt_gpus, have);
            return 2;
        }
    }
    int version = 0;
    pcclGetVersion(&version);
    printf("pccl-gpu-test: pccl %d backend=%s gpus=%d quick=%d chaos=%d max-bytes=%zu seed=%llu\n", version,
           opt_host ? "host" : "gpu", opt_gpus, opt_quick, opt_chaos, opt_max_bytes, (unsigned long long)opt_seed);
    fflush(stdout);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    fill_threads = ncpu > opt_gpus ? (int)(ncpu / opt_gpus) : 1;
    if (fill_threads > 16) fill_threads = 16;
    t_start = ck_now();
    main_suite(opt_gpus);
    chaos_suite(opt_gpus);
    if (opt_gpus >= 2) behind_suite();
    if (opt_gpus >= 2) single_suite();
    print_result(0);
    return total_failed ? 1 : 0;
}
