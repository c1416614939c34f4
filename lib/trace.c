/* PCCL_TRACE_LAT=1: where a small invocation's time goes, hop by hop.
 *
 * Stamps: the host's at pcclRun's entry, at the SQ store and where the
 * completion is seen (the poller's or a waiter's drain, poller.c), at the
 * callback's start and at the waiter's wake-up; the daemon's (its own clock:
 * the GPU's globaltimer, the host backend's monotonic clock) at the SQ read
 * and at completion, stored by the completing block next to the CQ entry
 * (scheduler.h, pccl_complete).  Each completion is one record; destroy
 * prints the medians per collective shape and consumer to stderr.
 *
 * The two clocks are not one: on the GPU, sq->fetch and cq->seen compare the
 * host's CLOCK_REALTIME with the globaltimer, which the driver keeps near it
 * but not exactly (either may then be off by the same amount, with opposite
 * signs); their sum, "crossings" (SQ store to seen, less the daemon's
 * share), takes each clock's differences only and is exact. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

enum { TR_RUN, TR_SQ_FETCH, TR_DEV, TR_CQ_SEEN, TR_XFER, TR_SEEN_CB, TR_SEEN_WAKE, TR_TOTAL, TR_BY_WAITER, TR_N };
static const char *const tr_name[TR_N] = {"run",        "sq->fetch", "daemon", "cq->seen",     "crossings",
                                          "seen->cb",   "seen->wake", "total", "waiter-drained"};

#define TR_CAP (1 << 17) /* the latest records are kept */

typedef struct {
    int32_t id;
    int32_t via;    /* who saw it complete: TR_VIA_* */
    float us[TR_N]; /* NAN: not measured for this invocation */
} tr_rec;
enum { TR_VIA_NONE, TR_VIA_CB, TR_VIA_WAIT, TR_VIAS };
static const char *const tr_via[TR_VIAS] = {"neither", "callback", "pcclWait"};

struct pccl_trace {
    tr_rec *rec;
    uint64_t n; /* records ever */
};

/* The clock the daemon stamps with, read on the host. */
static uint64_t daemon_clock(pcclComm_t c)
{
    if (c->be == &pccl_host_backend) return pccl_now_ns();
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

pcclResult_t pccl_trace_open(pcclComm_t c)
{
    if (!c->G.k.trace) return pcclSuccess;
    c->trace = calloc(1, sizeof *c->trace);
    if (c->trace) c->trace->rec = calloc(TR_CAP, sizeof(tr_rec));
    if (!c->trace || !c->trace->rec) return pccl_err(NULL, pcclSystemError, "PCCL_TRACE_LAT: out of host memory");
    return pcclSuccess;
}

void pccl_trace_submit_locked(pcclComm_t c, pccl_hcoll *h)
{
    if (!c->trace) return;
    h->tr_sq = pccl_now_ns();
    h->tr_sq_clk = daemon_clock(c);
    h->tr_ret = h->tr_sq; /* pcclRun stamps its own return, later */
    if (!h->tr_call) h->tr_call = h->tr_sq; /* a stream invocation leaving the pending list */
}

static float us(int64_t ns) { return (float)ns / 1000.0f; }

/* The completion of id was seen (by the poller, or by a waiter: waiter). */
void pccl_trace_seen_locked(pcclComm_t c, int id, int waiter)
{
    if (!c->trace) return;
    pccl_hcoll *h = &c->colls[id];
    uint64_t now = pccl_now_ns(), clk = daemon_clock(c);
    uint64_t fetch = pccl_ld_acq(&c->G.tstamp[2 * (size_t)id]), done = pccl_ld_acq(&c->G.tstamp[2 * (size_t)id + 1]);
    tr_rec *r = &c->trace->rec[c->trace->n % TR_CAP];
    h->tr_rec = (int64_t)(c->trace->n++ % TR_CAP);
    r->id = id;
    r->via = TR_VIA_NONE;
    for (int i = 0; i < TR_N; i++) r->us[i] = NAN;
    r->us[TR_RUN] = us((int64_t)(h->tr_ret - h->tr_call));
    r->us[TR_SQ_FETCH] = us((int64_t)(fetch - h->tr_sq_clk));
    r->us[TR_DEV] = us((int64_t)(done - fetch));
    r->us[TR_CQ_SEEN] = us((int64_t)(clk - done));
    r->us[TR_XFER] = us((int64_t)(now - h->tr_sq) - (int64_t)(done - fetch));
    r->us[TR_BY_WAITER] = waiter ? 1.0f : 0.0f;
    h->tr_seen = now;
    h->tr_call = 0;
}

/* The callback starts, or a waiter woke up (wake), after the completion
 * was seen. */
void pccl_trace_consumed_locked(pcclComm_t c, int id, int wake)
{
    if (!c->trace) return;
    pccl_hcoll *h = &c->colls[id];
    if (h->tr_rec < 0) return;
    tr_rec *r = &c->trace->rec[h->tr_rec];
    uint64_t now = pccl_now_ns();
    if (r->id != id || !isnan(r->us[wake ? TR_SEEN_WAKE : TR_SEEN_CB])) return;
    r->us[wake ? TR_SEEN_WAKE : TR_SEEN_CB] = us((int64_t)(now - h->tr_seen));
    if (r->via == TR_VIA_NONE) r->via = wake ? TR_VIA_WAIT : TR_VIA_CB;
    if (isnan(r->us[TR_TOTAL])) r->us[TR_TOTAL] = us((int64_t)(now - h->tr_sq)) + r->us[TR_RUN];
    if (wake) h->tr_rec = -1;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static const char *coll_name(int type)
{
    static const char *const n[] = {"all_reduce", "all_gather", "reduce_scatter", "reduce", "broadcast"};
    return type >= 0 && type < 5 ? n[type] : "?";
}

/* Does record r belong to the shape of collective h, seen by via? */
static int tr_match(pcclComm_t c, const tr_rec *r, const pccl_hcoll *h, int via)
{
    const pccl_hcoll *o = &c->colls[r->id];
    return r->via == via && o->dev.type == h->dev.type && o->in_bytes == h->in_bytes;
}

/* One line per collective shape (type and bytes; pccl-perf's copies of a
 * size are one shape) and consumer (a callback, pcclWait: pccl-perf's
 * back-to-back and round-trip timings): the invocations, then each hop's
 * median in us and how many invocations had it. */
void pccl_trace_report(pcclComm_t c, FILE *f)
{
    if (!c->trace || !c->trace->n) return;
    uint64_t n = c->trace->n < TR_CAP ? c->trace->n : TR_CAP;
    float *v = malloc(sizeof(float) * n);
    char *seen = calloc((size_t)c->ncolls, 1);
    if (!v || !seen) { free(v); free(seen); return; }
    for (int id = 0; id < c->ncolls; id++) {
        if (seen[id]) continue;
        const pccl_hcoll *h = &c->colls[id];
        for (int j = id; j < c->ncolls; j++)
            if (c->colls[j].dev.type == h->dev.type && c->colls[j].in_bytes == h->in_bytes) seen[j] = 1;
        for (int via = 0; via < TR_VIAS; via++) {
            uint64_t cnt = 0;
            for (uint64_t i = 0; i < n; i++) cnt += tr_match(c, &c->trace->rec[i], h, via);
            if (!cnt) continue;
            fprintf(f, "pccl-trace rank %d: %s %zu B via %s: %llu invocations; median us (count):", c->rank,
                    coll_name(h->dev.type), h->in_bytes, tr_via[via], (unsigned long long)cnt);
            for (int k = 0; k < TR_N; k++) {
                uint64_t m = 0;
                for (uint64_t i = 0; i < n; i++) {
                    const tr_rec *r = &c->trace->rec[i];
                    if (tr_match(c, r, h, via) && !isnan(r->us[k])) v[m++] = r->us[k];
                }
                if (!m) continue;
                qsort(v, m, sizeof *v, cmp_float);
                if (k == TR_BY_WAITER) {
                    double s = 0;
                    for (uint64_t i = 0; i < m; i++) s += v[i];
                    fprintf(f, " %s %.2f", tr_name[k], s / (double)m); /* a fraction, not a time */
                } else {
                    fprintf(f, " %s %.2f (%llu)", tr_name[k], v[m / 2], (unsigned long long)m);
                }
            }
            fputc('\n', f);
        }
    }
    fflush(f);
    free(v);
    free(seen);
}

void pccl_trace_close(pcclComm_t c)
{
    if (!c->trace) return;
    pccl_trace_report(c, stderr);
    free(c->trace->rec);
    free(c->trace);
    c->trace = NULL;
}
