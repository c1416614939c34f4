/* check.c: inputs, CPU reference and comparison for pccl tests (see check.h).
 * Written independently of lib/ (its own half and bfloat16 conversions), so
 * that a bug shared by the library's host and GPU arithmetic shows up. */
#include "check.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- names and sizes ---------------------------------------------------- */

size_t ck_type_size(pcclDataType_t t)
{
    static const size_t sz[pcclNumTypes] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
    return ((int)t >= 0 && t < pcclNumTypes) ? sz[t] : 0;
}

int ck_is_float(pcclDataType_t t) { return t >= pcclFloat16 && t <= pcclBfloat16; }

double ck_tolerance(pcclDataType_t t)
{
    switch (t) {
    case pcclFloat16: return 2e-3;  /* 2 ulp of an 11-bit significand */
    case pcclBfloat16: return 1e-2; /* 2 ulp of an 8-bit significand  */
    case pcclFloat32: return 1e-6;
    case pcclFloat64: return 1e-12;
    default: return 0;
    }
}

const char *ck_type_name(pcclDataType_t t)
{
    static const char *n[pcclNumTypes] = {"int8",    "uint8", "int32",   "uint32",  "int64",
                                          "uint64",  "half",  "float32", "float64", "bfloat16"};
    return ((int)t >= 0 && t < pcclNumTypes) ? n[t] : "?type";
}

const char *ck_op_name(pcclRedOp_t op)
{
    static const char *n[pcclNumOps] = {"sum", "prod", "max", "min", "avg"};
    return ((int)op >= 0 && op < pcclNumOps) ? n[op] : "?op";
}

const char *ck_coll_name(pcclCollType_t t)
{
    static const char *n[pcclNumColls] = {"allreduce", "allgather", "reducescatter", "reduce", "broadcast"};
    return ((int)t >= 0 && t < pcclNumColls) ? n[t] : "?coll";
}

int ck_has_op(pcclCollType_t t) { return t != pcclCollAllGather && t != pcclCollBroadcast; }

const char *ck_describe(const ck_coll *c, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s %s", ck_coll_name(c->type), ck_type_name(c->dtype));
    if (n >= 0 && (size_t)n < len && ck_has_op(c->type))
        n += snprintf(buf + n, len - (size_t)n, " %s", ck_op_name(c->op));
    if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " count=%zu nranks=%d", c->count, c->nranks);
    if (n >= 0 && (size_t)n < len && (c->type == pcclCollReduce || c->type == pcclCollBroadcast))
        snprintf(buf + n, len - (size_t)n, " root=%d", c->root);
    return buf;
}

/* ---- buffers -------------------------------------------------------------- */

size_t ck_send_count(const ck_coll *c)
{
    return c->type == pcclCollReduceScatter ? c->count * (size_t)c->nranks : c->count;
}

size_t ck_recv_count(const ck_coll *c)
{
    return c->type == pcclCollAllGather ? c->count * (size_t)c->nranks : c->count;
}

size_t ck_send_bytes(const ck_coll *c) { return ck_send_count(c) * ck_type_size(c->dtype); }
size_t ck_recv_bytes(const ck_coll *c) { return ck_recv_count(c) * ck_type_size(c->dtype); }

int ck_reads_send(const ck_coll *c, int rank) { return !(c->type == pcclCollBroadcast && rank != c->root); }
int ck_writes_recv(const ck_coll *c, int rank) { return !(c->type == pcclCollReduce && rank != c->root); }

size_t ck_inplace_bytes(const ck_coll *c)
{
    size_t s = ck_send_bytes(c), r = ck_recv_bytes(c);
    return s > r ? s : r;
}

void ck_inplace_ptrs(const ck_coll *c, int rank, void *buf, void **send, void **recv)
{
    size_t off = (size_t)rank * c->count * ck_type_size(c->dtype);
    *send = buf;
    *recv = buf;
    if (c->type == pcclCollAllGather) *send = (char *)buf + off;
    if (c->type == pcclCollReduceScatter) *recv = (char *)buf + off;
}

/* ---- half and bfloat16 ------------------------------------------------------ */

static float bits_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t float_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static double half_to_double(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0x1f) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp((double)m, -24);
    else v = ldexp((double)(m | 0x400), e - 25);
    return s ? -v : v;
}

/* Round to nearest even. */
static uint16_t float_to_half(float f)
{
    uint32_t x = float_bits(f), sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
    int fe = (int)((x >> 23) & 0xff), e = fe - 127 + 15;
    if (fe == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) { /* subnormal half (or zero) */
        if (e < -10) return (uint16_t)sign;
        mant |= 0x800000;
        int shift = 14 - e;
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; /* may carry into inf: right */
    return (uint16_t)(sign | h);
}

static double bf16_to_double(uint16_t b) { return (double)bits_float((uint32_t)b << 16); }

static uint16_t float_to_bf16(float f)
{
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffff) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

static double load_double(pcclDataType_t t, const void *p)
{
    uint16_t h;
    float f;
    double d;
    switch (t) {
    case pcclFloat16: memcpy(&h, p, 2); return half_to_double(h);
    case pcclBfloat16: memcpy(&h, p, 2); return bf16_to_double(h);
    case pcclFloat32: memcpy(&f, p, 4); return f;
    case pcclFloat64: memcpy(&d, p, 8); return d;
    default: return 0;
    }
}

static void store_double(pcclDataType_t t, double v, void *p)
{
    uint16_t h;
    float f;
    switch (t) {
    case pcclFloat16: h = float_to_half((float)v); memcpy(p, &h, 2); break;
    case pcclBfloat16: h = float_to_bf16((float)v); memcpy(p, &h, 2); break;
    case pcclFloat32: f = (float)v; memcpy(p, &f, 4); break;
    case pcclFloat64: memcpy(p, &v, 8); break;
    default: break;
    }
}

/* Integers as raw bits (zero-extended) and as signed values. */
static int is_signed(pcclDataType_t t) { return t == pcclInt8 || t == pcclInt32 || t == pcclInt64; }

static uint64_t load_bits(size_t es, const void *p)
{
    uint64_t v = 0;
    memcpy(&v, p, es); /* little endian */
    return v;
}

static uint64_t mask_of(size_t es) { return es == 8 ? ~0ull : (1ull << (8 * es)) - 1; }

static int64_t as_signed(uint64_t v, size_t es)
{
    if (es == 8) return (int64_t)v;
    uint64_t sign = 1ull << (8 * es - 1);
    return (int64_t)((v ^ sign) - sign);
}

/* ---- inputs ---------------------------------------------------------------- */

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void ck_input_elem(const ck_coll *c, int rank, uint64_t seed, size_t i, void *dst)
{
    uint64_t h = mix(mix(mix(seed ^ ((uint64_t)c->type << 56) ^ ((uint64_t)c->dtype << 48)) + (uint64_t)rank) + i);
    size_t es = ck_type_size(c->dtype);
    if (!ck_is_float(c->dtype)) {
        memcpy(dst, &h, es); /* low bytes: full range */
        return;
    }
    static const int pm[4] = {-2, -1, 1, 2};
    int v = (ck_has_op(c->type) && c->op == pcclProd) ? pm[h & 3] : (int)(h % 33) - 16;
    store_double(c->dtype, (double)v, dst);
}

void ck_fill_send(const ck_coll *c, int rank, uint64_t seed, void *send)
{
    size_t es = ck_type_size(c->dtype), n = ck_send_count(c);
    for (size_t i = 0; i < n; i++) ck_input_elem(c, rank, seed, i, (char *)send + i * es);
}

void ck_fill_sentinel(void *buf, size_t bytes)
{
    if (buf && bytes) memset(buf, 0xA5, bytes);
}

void ck_prepare(const ck_coll *c, int rank, uint64_t seed, int inplace, void *send, void *recv)
{
    if (inplace) {
        void *s, *r;
        ck_fill_sentinel(send, ck_inplace_bytes(c));
        ck_inplace_ptrs(c, rank, send, &s, &r);
        ck_fill_send(c, rank, seed, s);
        return;
    }
    if (send) ck_fill_send(c, rank, seed, send);
    if (recv) ck_fill_sentinel(recv, ck_recv_bytes(c));
}

/* ---- the reference ------------------------------------------------------- */

/* Reduction over all ranks of input element idx. */
static void ref_reduce(const ck_coll *c, uint64_t seed, size_t idx, void *dst)
{
    size_t es = ck_type_size(c->dtype);
    unsigned char x[8];
    if (ck_is_float(c->dtype)) {
        double acc = 0;
        for (int r = 0; r < c->nranks; r++) {
            ck_input_elem(c, r, seed, idx, x);
            double v = load_double(c->dtype, x);
            if (r == 0) { acc = v; continue; }
            switch (c->op) {
            case pcclProd: acc *= v; break;
            case pcclMax: acc = v > acc ? v : acc; break;
            case pcclMin: acc = v < acc ? v : acc; break;
            default: acc += v; break;
            }
        }
        if (c->op == pcclAvg) acc /= c->nranks;
        store_double(c->dtype, acc, dst);
        return;
    }
    uint64_t m = mask_of(es), acc = 0;
    int sg = is_signed(c->dtype);
    for (int r = 0; r < c->nranks; r++) {
        ck_input_elem(c, r, seed, idx, x);
        uint64_t v = load_bits(es, x) & m;
        if (r == 0) { acc = v; continue; }
        switch (c->op) {
        case pcclProd: acc = (acc * v) & m; break;
        case pcclMax:
            if (sg ? as_signed(v, es) > as_signed(acc, es) : v > acc) acc = v;
            break;
        case pcclMin:
            if (sg ? as_signed(v, es) < as_signed(acc, es) : v < acc) acc = v;
            break;
        default: acc = (acc + v) & m; break;
        }
    }
    if (c->op == pcclAvg) /* the wrapped sum, divided, truncating */
        acc = sg ? (uint64_t)(as_signed(acc, es) / c->nranks) & m : acc / (uint64_t)c->nranks;
    memcpy(dst, &acc, es);
}

void ck_expected(const ck_coll *c, int rank, uint64_t seed, int inplace, void *out)
{
    size_t es = ck_type_size(c->dtype), n = c->count;
    char *o = out;
    switch (c->type) {
    case pcclCollAllReduce:
        for (size_t i = 0; i < n; i++) ref_reduce(c, seed, i, o + i * es);
        break;
    case pcclCollAllGather:
        for (int r = 0; r < c->nranks; r++)
            for (size_t i = 0; i < n; i++) ck_input_elem(c, r, seed, i, o + ((size_t)r * n + i) * es);
        break;
    case pcclCollReduceScatter:
        for (size_t i = 0; i < n; i++) ref_reduce(c, seed, (size_t)rank * n + i, o + i * es);
        break;
    case pcclCollReduce:
        if (rank == c->root)
            for (size_t i = 0; i < n; i++) ref_reduce(c, seed, i, o + i * es);
        else if (inplace)
            ck_fill_send(c, rank, seed, o);
        else
            ck_fill_sentinel(o, n * es);
        break;
    case pcclCollBroadcast:
        for (size_t i = 0; i < n; i++) ck_input_elem(c, c->root, seed, i, o + i * es);
        break;
    default: break;
    }
}

static void fmt_elem(const ck_coll *c, const void *p, char *buf, size_t len)
{
    size_t es = ck_type_size(c->dtype);
    uint64_t bits = load_bits(es, p);
    if (ck_is_float(c->dtype))
        snprintf(buf, len, "%.9g (0x%0*llx)", load_double(c->dtype, p), (int)(2 * es), (unsigned long long)bits);
    else if (is_signed(c->dtype))
        snprintf(buf, len, "%lld (0x%0*llx)", (long long)as_signed(bits, es), (int)(2 * es),
                 (unsigned long long)bits);
    else
        snprintf(buf, len, "%llu (0x%0*llx)", (unsigned long long)bits, (int)(2 * es), (unsigned long long)bits);
}

static int elem_equal(const ck_coll *c, const void *e, const void *g)
{
    size_t es = ck_type_size(c->dtype);
    if (!memcmp(e, g, es)) return 1;
    if (!ck_is_float(c->dtype)) return 0;
    double x = load_double(c->dtype, e), y = load_double(c->dtype, g);
    if (isnan(x) || isnan(y)) return 0;
    return fabs(x - y) <= ck_tolerance(c->dtype) * fabs(x);
}

size_t ck_compare(const ck_coll *c, int rank, const void *expected, const void *got, char *msg, size_t len)
{
    size_t es = ck_type_size(c->dtype), n = ck_recv_count(c), bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (!elem_equal(c, (const char *)expected + i * es, (const char *)got + i * es))
            if (bad++ == 0) first = i;
    if (bad && msg && len) {
        char d[160], g[64], e[64];
        fmt_elem(c, (const char *)got + first * es, g, sizeof g);
        fmt_elem(c, (const char *)expected + first * es, e, sizeof e);
        snprintf(msg, len, "%s, rank %d: element %zu of %zu: got %s, expected %s (%zu elements differ%s)",
                 ck_describe(c, d, sizeof d), rank, first, n, g, e, bad,
                 ck_is_float(c->dtype) ? ", relative tolerance applied" : ", bit for bit");
    } else if (msg && len) {
        msg[0] = 0;
    }
    return bad;
}

size_t ck_verify(const ck_coll *c, int rank, uint64_t seed, int inplace, const void *got, char *msg, size_t len)
{
    size_t bytes = ck_recv_bytes(c);
    void *e = malloc(bytes ? bytes : 1);
    if (!e) {
        if (msg && len) snprintf(msg, len, "ck_verify: out of memory");
        return (size_t)-1;
    }
    ck_expected(c, rank, seed, inplace, e);
    size_t bad = ck_compare(c, rank, e, got, msg, len);
    free(e);
    return bad;
}

/* ---- plumbing ------------------------------------------------------------------ */

int ck_quick(void)
{
    const char *q = getenv("PCCL_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

int ck_scaled(int n, int lo)
{
    if (!ck_quick()) return n;
    n /= 10;
    return n < lo ? lo : n;
}

uint64_t ck_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void ck_shuffle(int *v, int n, uint64_t seed)
{
    uint64_t s = seed;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(ck_rand(&s) % (uint64_t)(i + 1));
        int t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

double ck_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void ck_sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t)) {}
}

void ck_sleep_us(long us)
{
    struct timespec t = {us / 1000000L, (us % 1000000L) * 1000L};
    while (nanosleep(&t, &t)) {}
}

/* ---- watchdog ------------------------------------------------------------------ */

static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cv = PTHREAD_COND_INITIALIZER;
static int wd_started, wd_armed;
static double wd_last, wd_secs;
static const char *wd_what;
static void (*wd_dump)(void *);
static void *wd_arg;

static void *wd_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&wd_mu);
    for (;;) {
        if (wd_armed && ck_now() - wd_last > wd_secs) {
            const char *what = wd_what;
            void (*dump)(void *) = wd_dump;
            void *arg = wd_arg;
            double secs = wd_secs;
            pthread_mutex_unlock(&wd_mu);
            fprintf(stderr, "\nWATCHDOG: %s: no progress for %.0f s; aborting\n", what ? what : "test", secs);
            if (dump) dump(arg);
            fflush(stdout);
            fflush(stderr);
            abort();
        }
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 200000000L;
        if (t.tv_nsec >= 1000000000L) { t.tv_sec++; t.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&wd_cv, &wd_mu, &t);
    }
    return NULL;
}

void ck_watchdog_arm(const char *what, double seconds, void (*dump)(void *), void *arg)
{
    pthread_mutex_lock(&wd_mu);
    if (!wd_started) {
        pthread_t t;
        if (pthread_create(&t, NULL, wd_main, NULL) == 0) {
            pthread_detach(t);
            wd_started = 1;
        }
    }
    wd_what = what;
    wd_secs = seconds;
    wd_dump = dump;
    wd_arg = arg;
    wd_last = ck_now();
    wd_armed = 1;
    pthread_mutex_unlock(&wd_mu);
}

void ck_watchdog_kick(void)
{
    pthread_mutex_lock(&wd_mu);
    wd_last = ck_now();
    pthread_mutex_unlock(&wd_mu);
}

void ck_watchdog_disarm(void)
{
    pthread_mutex_lock(&wd_mu);
    wd_armed = 0;
    wd_dump = NULL;
    wd_arg = NULL;
    pthread_mutex_unlock(&wd_mu);
}
