/* data.c: the data check, with tests/pccl/check.h's inputs, reference and
 * comparison (the ones tests/gpu/pccl_gpu_test.c uses): integers bit for bit,
 * floating types within ck_tolerance(), inputs small integers exact in every
 * floating type.
 *
 * check.c computes a reduction reference for a whole buffer, in one thread;
 * at 1 GiB that is minutes.  So every rank thread computes a share:
 *   all-reduce, reduce  the inputs are check.c's inputs of a reduce-scatter
 *                       over nranks x ceil(count/nranks) elements (its first
 *                       count elements): then the reference is the
 *                       concatenation of that reduce-scatter's per-rank
 *                       references, rank r computing slice r with
 *                       ck_expected; the reduce's root compares with all of it;
 *   reduce-scatter      each rank its own reference (ck_expected);
 *   all-gather          slice r of the reference is rank r's input, which is
 *                       what ck_expected writes there: rank r copies its own;
 *   broadcast           the root's input, copied by the root;
 *   reduce, not root    unchanged: the sentinel out of place, the rank's own
 *                       input in place (check.h's rule).
 * Outputs start as check.h's sentinel, so an element not written is wrong. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

#define FILL_PARALLEL_MIN (1u << 20) /* elements: below, one thread fills */
#define FILL_MAX_THREADS 8

static int reduces(pcclCollType_t t) { return t == pcclCollAllReduce || t == pcclCollReduce; }

/* The collective whose check.c inputs this case uses (see above). */
static ck_coll input_coll(const perf_case *k)
{
    ck_coll v = k->c;
    if (reduces(k->c.type)) {
        v.type = pcclCollReduceScatter;
        v.root = 0;
        v.count = (k->c.count + (size_t)k->c.nranks - 1) / (size_t)k->c.nranks;
    }
    return v;
}

static void *xalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) perf_fatal(PERF_EXIT_ERROR, "out of host memory (%zu bytes for the data check)", bytes);
    return p;
}

int perf_data_alloc(perf_team *T)
{
    /* a reduce-scatter-shaped reference may pass count by nranks-1 elements */
    T->hexp_bytes = T->alloc + (size_t)T->nranks * 16;
    T->hexp = xalloc(T->hexp_bytes);
    for (int r = 0; r < T->nranks; r++) {
        perf_rank *R = &T->rank[r];
        R->hin = xalloc(T->alloc);
        R->hgot = xalloc(T->alloc);
        R->hown = xalloc(T->alloc);
    }
    return 0;
}

typedef struct {
    const ck_coll *v;
    int rank;
    uint64_t seed;
    char *dst;
    size_t lo, hi;
} fill_part;

static void *fill_run(void *p)
{
    fill_part *f = p;
    size_t es = ck_type_size(f->v->dtype);
    for (size_t i = f->lo; i < f->hi; i++) ck_input_elem(f->v, f->rank, f->seed, i, f->dst + i * es);
    return NULL;
}

/* Elements [0, n) of rank's input, ck_input_elem each (element i does not
 * depend on the others), split over this rank's share of the CPUs. */
static void fill_inputs(const perf_team *T, const ck_coll *v, int rank, uint64_t seed, char *dst, size_t n)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = n < FILL_PARALLEL_MIN ? 1 : (int)(ncpu / T->nranks);
    if (nt > FILL_MAX_THREADS) nt = FILL_MAX_THREADS;
    if (nt < 1) nt = 1;
    pthread_t th[FILL_MAX_THREADS];
    fill_part fp[FILL_MAX_THREADS];
    int started[FILL_MAX_THREADS] = {0};
    for (int i = 0; i < nt; i++) {
        fp[i] = (fill_part){v, rank, seed, dst, n * (size_t)i / (size_t)nt, n * (size_t)(i + 1) / (size_t)nt};
        if (i) started[i] = !pthread_create(&th[i], NULL, fill_run, &fp[i]);
    }
    fill_run(&fp[0]);
    for (int i = 1; i < nt; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        else fill_run(&fp[i]); /* no thread: do it here */
    }
}

void perf_data_prepare(perf_rank *R, const perf_case *k, uint64_t seed)
{
    perf_team *T = R->T;
    const ck_coll *c = &k->c;
    ck_coll v = input_coll(k);
    int r = R->rank;
    size_t es = ck_type_size(c->dtype), n = ck_send_count(c);
    if (ck_reads_send(c, r)) fill_inputs(T, &v, r, seed, R->hin, n);
    switch (c->type) {
    case pcclCollAllReduce:
    case pcclCollReduce:
        ck_expected(&v, r, seed, 0, T->hexp + (size_t)r * v.count * es);
        break;
    case pcclCollReduceScatter: ck_expected(c, r, seed, 0, R->hown); break;
    case pcclCollAllGather: memcpy(T->hexp + (size_t)r * c->count * es, R->hin, c->count * es); break;
    default:
        if (r == c->root) memcpy(T->hexp, R->hin, c->count * es);
        break;
    }
    if (c->type == pcclCollReduce && r != c->root) ck_fill_sentinel(R->hown, c->count * es);
}

static int load_error(perf_rank *R, const char *what)
{
    perf_fatal(PERF_EXIT_ERROR, "rank %d: %s: %s", R->rank, what, dev_last_error());
}

int perf_data_load(perf_rank *R, const perf_case *k, int inplace)
{
    const ck_coll *c = &k->c;
    int r = R->rank;
    void *s, *d;
    perf_ptrs(k, r, R->send, R->recv, R->T->alloc, inplace, 0, &s, &d);
    if (inplace) { /* one buffer: the sentinel, the input where sendbuff is */
        size_t all = ck_inplace_bytes(c);
        char *base = R->recv;
        ck_fill_sentinel(R->hgot, all);
        if (ck_reads_send(c, r)) memcpy(R->hgot + ((char *)s - base), R->hin, ck_send_bytes(c));
        if (dev_h2d(base, R->hgot, all)) return load_error(R, "loading the input");
        return 0;
    }
    if (ck_reads_send(c, r) && dev_h2d(s, R->hin, ck_send_bytes(c))) return load_error(R, "loading the input");
    ck_fill_sentinel(R->hgot, ck_recv_bytes(c));
    if (dev_h2d(d, R->hgot, ck_recv_bytes(c))) return load_error(R, "loading the sentinel");
    return 0;
}

long long perf_data_verify(perf_rank *R, const perf_case *k, int inplace)
{
    perf_team *T = R->T;
    const ck_coll *c = &k->c;
    int r = R->rank;
    void *s, *d;
    perf_ptrs(k, r, R->send, R->recv, T->alloc, inplace, 0, &s, &d);
    if (dev_d2h(R->hgot, d, ck_recv_bytes(c))) load_error(R, "fetching the output");
    const void *exp = T->hexp;
    if (c->type == pcclCollReduceScatter) exp = R->hown;
    if (c->type == pcclCollReduce && r != c->root) exp = inplace ? R->hin : R->hown;
    R->msg[0] = 0;
    return (long long)ck_compare(c, r, exp, R->hgot, R->msg, sizeof R->msg);
}
