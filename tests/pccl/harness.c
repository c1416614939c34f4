/* harness.c: see harness.h. */
#include "harness.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pt_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n  FAIL %s:%d: %s\n", file, line, msg);
    CU_assertImplementation(CU_FALSE, (unsigned)line, msg, file, "", CU_FALSE);
}

void pt_begin(const char *test, double seconds) { ck_watchdog_arm(test, seconds, NULL, NULL); }
void pt_end(void) { ck_watchdog_disarm(); }

pcclConfig_t pt_config(int blocks, long chunk_bytes)
{
    pcclConfig_t c = PCCL_CONFIG_INITIALIZER;
    c.backend = PCCL_BACKEND_HOST;
    c.blocks = blocks;
    c.chunkBytes = chunk_bytes;
    c.arenaBytes = 256L << 20;
    c.maxColls = 1024;
    return c;
}

int pt_init(pcclComm_t *comms, int n, const pcclConfig_t *cfg)
{
    memset(comms, 0, sizeof *comms * (size_t)n);
    pcclResult_t r = pcclCommInitAllConfig(comms, n, NULL, cfg);
    PT_CHECK(r == pcclSuccess, "pcclCommInitAllConfig(%d ranks) -> %s: %s", n, pcclGetErrorString(r),
             pcclGetLastError(NULL));
    return r == pcclSuccess ? 0 : -1;
}

void pt_check_env_refused(const char *env, const char *const *bad, int nbad)
{
    for (int i = 0; i < nbad; i++) {
        pcclComm_t c[2];
        pcclConfig_t cfg = pt_config(1, 256);
        setenv(env, bad[i], 1);
        pcclResult_t r = pcclCommInitAllConfig(c, 2, NULL, &cfg);
        unsetenv(env);
        PT_CHECK(r == pcclInvalidArgument, "%s=%s: %s, not pcclInvalidArgument", env, bad[i], pcclGetErrorString(r));
        if (r == pcclSuccess) pt_destroy(c, 2);
        else PT_CHECK(strstr(pcclGetLastError(NULL), env) != NULL, "message: %s", pcclGetLastError(NULL));
    }
}

void pt_destroy(pcclComm_t *comms, int n)
{
    for (int i = 0; i < n; i++)
        if (comms[i]) {
            PT_OK(pcclCommDestroy(comms[i]));
            comms[i] = NULL;
        }
}

pcclResult_t pt_register(pcclComm_t comm, const ck_coll *c, int prio, int *id)
{
    switch (c->type) {
    case pcclCollAllReduce: return pcclRegisterAllReduce(comm, c->count, c->dtype, c->op, prio, id);
    case pcclCollAllGather: return pcclRegisterAllGather(comm, c->count, c->dtype, prio, id);
    case pcclCollReduceScatter: return pcclRegisterReduceScatter(comm, c->count, c->dtype, c->op, prio, id);
    case pcclCollReduce: return pcclRegisterReduce(comm, c->count, c->dtype, c->op, c->root, prio, id);
    case pcclCollBroadcast: return pcclRegisterBroadcast(comm, c->count, c->dtype, c->root, prio, id);
    default: return pcclInvalidArgument;
    }
}

void pt_dump_stats(void *arg)
{
    pt_comms *p = arg;
    for (int i = 0; p && i < p->n; i++) {
        pcclStats_t s;
        if (!p->comms[i] || pcclCommGetStats(p->comms[i], &s) != pcclSuccess) continue;
        fprintf(stderr,
                "  rank %d: completed %llu preemptions %llu quits %llu launches %llu primitives %llu blocks %d\n", i,
                (unsigned long long)s.completed, (unsigned long long)s.preemptions, (unsigned long long)s.quits,
                (unsigned long long)s.launches, (unsigned long long)s.primitives, s.blocks);
    }
}

/* ---- batch runner ------------------------------------------------------------ */

typedef struct {
    void *send, *recv; /* out of place; in place: send is the one buffer */
} bufs;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    return p;
}

int pt_run_cases(pcclComm_t *comms, int n, const pt_case *cases, int nc, uint64_t seed, int rounds, int reverse_odd)
{
    int bad = 0, reported = 0;
    int *ids = xmalloc(sizeof(int) * (size_t)nc);
    bufs *b = xmalloc(sizeof(bufs) * (size_t)nc * (size_t)n);
    memset(b, 0, sizeof(bufs) * (size_t)nc * (size_t)n);
    char d[200];

    for (int k = 0; k < nc; k++) {
        const ck_coll *c = &cases[k].c;
        for (int r = 0; r < n; r++) {
            int id = -1;
            pcclResult_t e = pt_register(comms[r], c, cases[k].priority, &id);
            if (e != pcclSuccess) {
                PT_FAIL("register %s on rank %d -> %s: %s", ck_describe(c, d, sizeof d), r, pcclGetErrorString(e),
                        pcclGetLastError(comms[r]));
                bad++;
                goto out;
            }
            if (r == 0) ids[k] = id;
            else if (id != ids[k]) {
                PT_FAIL("register %s: rank %d got id %d, rank 0 got %d", ck_describe(c, d, sizeof d), r, id, ids[k]);
                bad++;
                goto out;
            }
            bufs *x = &b[(size_t)k * n + r];
            if (cases[k].inplace) {
                x->send = xmalloc(ck_inplace_bytes(c));
            } else {
                int nu = cases[k].null_unused;
                x->send = (nu && !ck_reads_send(c, r)) ? NULL : xmalloc(ck_send_bytes(c));
                x->recv = (nu && !ck_writes_recv(c, r)) ? NULL : xmalloc(ck_recv_bytes(c));
            }
        }
    }

    for (int round = 0; round < rounds; round++) {
        uint64_t s0 = seed * 1000003ull + (uint64_t)round * 7919ull;
        for (int k = 0; k < nc; k++)
            for (int r = 0; r < n; r++) {
                bufs *x = &b[(size_t)k * n + r];
                ck_prepare(&cases[k].c, r, s0 + (uint64_t)k, cases[k].inplace, x->send, x->recv);
            }
        for (int r = 0; r < n; r++)
            for (int i = 0; i < nc; i++) {
                int k = (reverse_odd && (r & 1)) ? nc - 1 - i : i;
                bufs *x = &b[(size_t)k * n + r];
                void *s = x->send, *rv = x->recv;
                if (cases[k].inplace) ck_inplace_ptrs(&cases[k].c, r, x->send, &s, &rv);
                pcclResult_t e = pcclRun(comms[r], ids[k], s, rv, NULL, NULL);
                if (e != pcclSuccess) {
                    PT_FAIL("pcclRun %s on rank %d -> %s: %s", ck_describe(&cases[k].c, d, sizeof d), r,
                            pcclGetErrorString(e), pcclGetLastError(comms[r]));
                    /* the other ranks' invocations can never complete now:
                     * abort the communicators (the caller's pt_destroy skips
                     * the NULLs) */
                    for (int q = 0; q < n; q++) {
                        pcclCommAbort(comms[q]);
                        comms[q] = NULL;
                    }
                    bad++;
                    goto out;
                }
            }
        for (int r = 0; r < n; r++) {
            pcclResult_t e = pcclWaitAll(comms[r]);
            if (e != pcclSuccess) {
                PT_FAIL("pcclWaitAll rank %d -> %s", r, pcclGetErrorString(e));
                bad++;
            }
        }
        ck_watchdog_kick();
        for (int k = 0; k < nc; k++)
            for (int r = 0; r < n; r++) {
                const ck_coll *c = &cases[k].c;
                bufs *x = &b[(size_t)k * n + r];
                void *s = x->send, *rv = x->recv;
                if (cases[k].inplace) ck_inplace_ptrs(c, r, x->send, &s, &rv);
                if (!rv) continue; /* reduce, not root, NULL recvbuff: nothing to see */
                char msg[512];
                size_t nb = ck_verify(c, r, s0 + (uint64_t)k, cases[k].inplace, rv, msg, sizeof msg);
                if (nb) {
                    bad++;
                    if (reported++ < 8)
                        PT_FAIL("round %d, %s: %s", round, cases[k].inplace ? "in place" : "out of place", msg);
                }
                /* the input must not have been modified (out of place) */
                if (!cases[k].inplace && s && ck_reads_send(c, r)) {
                    void *in = xmalloc(ck_send_bytes(c));
                    ck_fill_send(c, r, s0 + (uint64_t)k, in);
                    if (memcmp(in, s, ck_send_bytes(c))) {
                        bad++;
                        if (reported++ < 8)
                            PT_FAIL("round %d, %s, rank %d: sendbuff was modified", round,
                                    ck_describe(c, d, sizeof d), r);
                    }
                    free(in);
                }
            }
    }
    if (reported > 8) PT_FAIL("%d wrong results in all (first 8 shown)", reported);
    CU_ASSERT_EQUAL(bad, 0);

out:
    for (size_t i = 0; i < (size_t)nc * (size_t)n; i++) {
        free(b[i].send);
        free(b[i].recv);
    }
    free(b);
    free(ids);
    return bad;
}

void pt_boot_path(const pcclUniqueId *id, char *buf, size_t len)
{
    const unsigned char *u = (const unsigned char *)id->internal + 8;
    int k = snprintf(buf, len, "/dev/shm/pccl-");
    for (int i = 0; i < 24 && k + 2 < (int)len; i++) k += snprintf(buf + k, len - (size_t)k, "%02x", u[i]);
}

int pt_boot_unlink(const pcclUniqueId *id)
{
    char p[128];
    pt_boot_path(id, p, sizeof p);
    return unlink(p) == 0;
}

int pt_thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

int pt_threads_settle(int base)
{
    double t0 = ck_now();
    int now = pt_thread_count();
    while (now > base && ck_now() - t0 < 10) {
        ck_sleep_ms(2);
        now = pt_thread_count();
    }
    return now;
}

int pt_stderr_begin(pt_stderr *s)
{
    snprintf(s->path, sizeof s->path, "/tmp/pccl-stderr-test-XXXXXX");
    s->fd = mkstemp(s->path);
    if (s->fd < 0) return -1;
    fflush(stderr);
    s->saved = dup(2);
    dup2(s->fd, 2);
    return 0;
}

int pt_count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

char *pt_stderr_end(pt_stderr *s)
{
    fflush(stderr);
    dup2(s->saved, 2);
    close(s->saved);
    off_t n = lseek(s->fd, 0, SEEK_END);
    char *out = n >= 0 ? calloc((size_t)n + 1, 1) : NULL;
    if (out && pread(s->fd, out, (size_t)n, 0) != n) out[0] = 0;
    close(s->fd);
    unlink(s->path);
    return out;
}

/* TSan checks the library's threads: a type's arithmetic (lib/host/reduce.c)
 * is the same code in every schedule, so one narrow integer, one 16-bit
 * float and one 64-bit type stand for the ten there; the optimized and
 * ASan+UBSan builds run all ten.  With all ten the TSan build took 274 s,
 * nearly half of make test, most of it in these matrices (the runner's
 * slowest test: the direct all-reduce on 3-5 ranks, 43 s; now 10-12 s). */
int pt_types(const pcclDataType_t **types)
{
#if defined(__SANITIZE_THREAD__)
    static const pcclDataType_t t[] = {pcclInt8, pcclBfloat16, pcclFloat64};
#else
    static const pcclDataType_t t[] = {pcclInt8,  pcclUint8,  pcclInt32,   pcclUint32,  pcclInt64,
                                       pcclUint64, pcclFloat16, pcclFloat32, pcclFloat64, pcclBfloat16};
#endif
    *types = t;
    return (int)(sizeof t / sizeof *t);
}

/* The same reasoning for a test that names its own few types: under TSan
 * the first alone (the 3-rank count-30011 matrix took 19.4 s of a 171 s
 * TSan run with three, the 8-rank one 12.9 s with four). */
int pt_tsan_types(int n)
{
    return pt_under_tsan() && n > 0 ? 1 : n;
}

pt_env pt_env_push(const char *name, const char *value)
{
    const char *o = getenv(name);
    pt_env e = {name, o ? strdup(o) : NULL};
    if (value) setenv(name, value, 1);
    else unsetenv(name);
    return e;
}

void pt_env_pop(pt_env e)
{
    if (e.old) setenv(e.name, e.old, 1);
    else unsetenv(e.name);
    free(e.old);
}

int pt_under_tsan(void)
{
#if defined(__SANITIZE_THREAD__)
    return 1;
#else
    return 0;
#endif
}
