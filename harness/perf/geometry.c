/* geometry.c: names, the size sweep, counts and bus bandwidth, as nccl-tests
 * defines them (its src/common.cu and doc/PERFORMANCE.md):
 *
 *   count        size / sizeof(type); all-gather passes count/nranks per rank
 *                (sendcount), reduce-scatter count/nranks (recvcount);
 *   size column  max(send bytes, recv bytes) after that rounding;
 *   algbw        size column / time;
 *   busbw        algbw x 2(n-1)/n (all-reduce), (n-1)/n (all-gather,
 *                reduce-scatter), 1 (reduce, broadcast).
 */
#include <string.h>
#include <strings.h>

#include "perf.h"

static const char *coll_names[pcclNumColls] = {"all_reduce", "all_gather", "reduce_scatter", "reduce", "broadcast"};
/* nccl-tests' type names; check.h's (float32 ...) are accepted too. */
static const char *type_names[pcclNumTypes] = {"int8",  "uint8", "int32",  "uint32", "int64",
                                               "uint64", "half", "float", "double", "bfloat16"};
static const char *op_names[pcclNumOps] = {"sum", "prod", "max", "min", "avg"};

const char *perf_coll_name(pcclCollType_t c) { return (int)c >= 0 && c < pcclNumColls ? coll_names[c] : "?"; }
const char *perf_type_name(pcclDataType_t t) { return (int)t >= 0 && t < pcclNumTypes ? type_names[t] : "?"; }

const char *perf_op_name(const perf_test *t)
{
    return ck_has_op(t->coll) ? op_names[t->op] : "none";
}

int perf_parse_coll(const char *s)
{
    static const char *alias[pcclNumColls] = {"allreduce", "allgather", "reducescatter", "reduce", "bcast"};
    for (int i = 0; i < pcclNumColls; i++)
        if (!strcasecmp(s, coll_names[i]) || !strcasecmp(s, alias[i])) return i;
    return -1;
}

int perf_parse_type(const char *s)
{
    static const struct { const char *name; int type; } alias[] = {
        {"char", pcclInt8},     {"int", pcclInt32},      {"float16", pcclFloat16}, {"fp16", pcclFloat16},
        {"float32", pcclFloat}, {"fp32", pcclFloat},     {"float64", pcclDouble},  {"fp64", pcclDouble},
        {"bf16", pcclBfloat16},
    };
    for (int i = 0; i < pcclNumTypes; i++)
        if (!strcasecmp(s, type_names[i])) return i;
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcasecmp(s, alias[i].name)) return alias[i].type;
    return -1;
}

int perf_parse_op(const char *s)
{
    for (int i = 0; i < pcclNumOps; i++)
        if (!strcasecmp(s, op_names[i])) return i;
    return -1;
}

int perf_sizes(const perf_opts *o, size_t *out, int cap)
{
    int n = 0;
    for (size_t s = o->minbytes; s <= o->maxbytes && n < cap;) {
        out[n++] = s;
        size_t next = o->stepfactor > 1 ? (size_t)((double)s * o->stepfactor) : s + o->stepbytes;
        if (next <= s) break; /* a factor too close to 1 for small sizes, or overflow */
        s = next;
    }
    return n;
}

/* Iterations for a size: -n, or with --iter-bytes about iter_bytes / size,
 * at least --min-iters; the warm-up shrinks in proportion (at least 1). */
static void iterations(const perf_opts *o, size_t bytes, int *iters, int *warmup)
{
    *iters = o->iters;
    *warmup = o->warmup;
    if (!o->iter_bytes || !bytes) return;
    size_t n = o->iter_bytes / bytes;
    if (n < (size_t)o->min_iters) n = (size_t)o->min_iters;
    if (n < (size_t)*iters) {
        long w = ((long)o->warmup * (long)n + o->iters - 1) / o->iters;
        *iters = (int)n;
        *warmup = o->warmup && w < 1 ? 1 : (int)w;
    }
}

int perf_case_make(const perf_opts *o, const perf_test *t, size_t bytes, int nranks, int size_idx, perf_case *k)
{
    memset(k, 0, sizeof *k);
    k->t = *t;
    size_t count = bytes / ck_type_size(t->dtype);
    if (t->coll == pcclCollAllGather || t->coll == pcclCollReduceScatter) count /= (size_t)nranks;
    if (!count) return 0;
    k->c.type = t->coll;
    k->c.dtype = t->dtype;
    k->c.op = t->op;
    k->c.root = t->root < 0 ? 0 : t->root;
    k->c.count = count;
    k->c.nranks = nranks;
    k->bytes = ck_inplace_bytes(&k->c);
    k->size_idx = size_idx;
    iterations(o, k->bytes, &k->iters, &k->warmup);
    return 1;
}

double perf_busbw_factor(pcclCollType_t c, int n)
{
    switch (c) {
    case pcclCollAllReduce: return 2.0 * (n - 1) / n;
    case pcclCollAllGather:
    case pcclCollReduceScatter: return (double)(n - 1) / n;
    default: return 1.0;
    }
}

void perf_ptrs(const perf_case *k, int rank, char *send, char *recv, size_t alloc, int inplace, int iter,
               void **s, void **r)
{
    size_t total = k->bytes, steps = total ? alloc / total : 1;
    size_t shift = steps ? total * ((size_t)iter % steps) : 0;
    if (inplace) {
        ck_inplace_ptrs(&k->c, rank, recv + shift, s, r);
        return;
    }
    *s = send + shift;
    *r = recv + shift;
}
