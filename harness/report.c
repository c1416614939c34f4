/* report.c: dlreplay's CSV rows and summary (report.h).  CSV through
 * libcsv (quoting on write, parsing on read), the interval through
 * sim/stats.c. */
#include "report.h"

#include <csv.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/engine.h"
#include "../sim/matching.h"
#include "../sim/stats.h"
#include "../sim/util.h"

static const char *const columns[] = {
    "trace", "config", "model", "gpus", "colls", "events", "lib", "comm", "streams", "dlsim",
    "outcome", "agree", "seconds", "wrong", "preemptions", "quits", "stuck", "detail", "matching"};
enum { NCOLUMNS = sizeof columns / sizeof *columns };

int dr_lib_is_baseline(const char *lib)
{
    return !strncmp(lib, "nccl", 4);
}

static const char *const verdicts[] = {"completed", "deadlock", "corrupt", "corrupt-shape"};

const char *dr_verdict_name(int v)
{
    return v >= 0 && v <= DR_V_CORRUPT_SHAPE ? verdicts[v] : "?";
}

static int verdict_parse(const char *s)
{
    for (int v = 0; v <= DR_V_CORRUPT_SHAPE; v++)
        if (!strcmp(s, verdicts[v]))
            return v;
    return -1;
}

int dr_agrees(const dr_row *r)
{
    if (dr_lib_is_baseline(r->lib) && r->dlsim == DR_V_CORRUPT_SHAPE)
        return r->outcome != DR_COMPLETED;
    if (r->outcome == DR_ERROR)
        return -1;
    if (!dr_lib_is_baseline(r->lib))
        return r->outcome == DR_COMPLETED;
    if (strcmp(r->matching, "order"))
        return (r->dlsim == DR_V_DEADLOCK) == (r->outcome != DR_COMPLETED);
    switch (r->dlsim) {
    case DR_V_DEADLOCK: return r->outcome == DR_HANG;
    case DR_V_CORRUPT: return r->outcome == DR_WRONG;
    default: return r->outcome == DR_COMPLETED;
    }
}

/* ---- dlsim's verdict ------------------------------------------------------ */

/* Did a slot of a corrupt round match collectives of different shapes? */
static int shapes_differ(const dl_round *R, const ck_coll *shape)
{
    const dl_layout *L = R->L;
    for (int s = 0; s < L->ncolls; s++) {
        if (R->label[s] != -2) /* not mixed */
            continue;
        for (int p = L->part_off[s]; p < L->part_off[s + 1]; p++) {
            const ck_coll *a = &shape[R->called[L->part_off[s]]], *b = &shape[R->called[p]];
            if (a->type != b->type || a->dtype != b->dtype || a->op != b->op ||
                a->root != b->root || a->count != b->count)
                return 1;
        }
    }
    return 0;
}

int dr_dlsim_verdict(const dl_config *c, int matching, const dr_setup *S, const dl_trace *t,
                     const char *path, char *err, size_t errlen)
{
    if (dl_trace_check_plan(t, &c->layout, path, c->model->syncs, err, errlen) < 0)
        return -1;
    dl_matching M;
    if (matching == DL_MATCH_ORDER &&
        dl_matching_init(&M, &c->layout, S->coll_comm, err, errlen) < 0)
        return -1;
    dl_params P = {.disorder = c->disorder, .sync = c->sync, .slots = c->slots,
                   .match = matching == DL_MATCH_ORDER ? &M : NULL};
    dl_round *R = dl_round_new(&c->layout, &P);
    int st = dl_trace_replay_sequenced(t, R, path, c->model->syncs, NULL, err, errlen);
    int v = st == DL_DEADLOCK                         ? DR_V_DEADLOCK
            : dl_round_verdict(R) != DL_CORRUPT        ? DR_V_COMPLETED
            : shapes_differ(R, S->coll)                ? DR_V_CORRUPT_SHAPE
                                                       : DR_V_CORRUPT;
    dl_round_free(R);
    if (P.match)
        dl_matching_free(&M);
    return st < 0 ? -1 : v;
}

/* ---- writing ------------------------------------------------------------ */

/* Quoted (libcsv) only where needed, so that plain tools read the numbers. */
static void field(FILE *f, const char *s, int last)
{
    if (strpbrk(s, ",\"\r\n"))
        csv_fwrite(f, s, strlen(s));
    else
        fputs(s, f);
    fputc(last ? '\n' : ',', f);
}

int dr_row_append(const char *path, const dr_row *r, char *err, size_t errlen)
{
    FILE *f = fopen(path, "a");
    if (!f)
        return dl_fail(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    if (ftell(f) == 0)
        for (int i = 0; i < NCOLUMNS; i++)
            fprintf(f, "%s%c", columns[i], i + 1 < NCOLUMNS ? ',' : '\n');
    char num[8][32];
    int a = dr_agrees(r);
    snprintf(num[0], 32, "%d", r->gpus);
    snprintf(num[1], 32, "%d", r->colls);
    snprintf(num[2], 32, "%ld", r->events);
    snprintf(num[3], 32, "%.3f", r->seconds);
    snprintf(num[4], 32, "%ld", r->wrong);
    snprintf(num[5], 32, "%llu", r->preemptions);
    snprintf(num[6], 32, "%llu", r->quits);
    const char *v[NCOLUMNS] = {r->trace, r->config, r->model, num[0], num[1], num[2], r->lib,
                               r->comm, r->streams, dr_verdict_name(r->dlsim),
                               dr_outcome_name(r->outcome), a < 0 ? "" : a ? "1" : "0", num[3],
                               num[4], num[5], num[6], r->stuck, r->detail,
                               *r->matching ? r->matching : "identity"};
    for (int i = 0; i < NCOLUMNS; i++)
        field(f, v[i], i + 1 == NCOLUMNS);
    if (fclose(f) != 0)
        return dl_fail(err, errlen, "%s: write error", path);
    return 0;
}

/* ---- reading -------------------------------------------------------------- */

typedef struct rd {
    const char *path;
    long line;
    int col[NCOLUMNS]; /* field index of each column, or -1 */
    int have_header, nf;
    char fields[NCOLUMNS * 2][512];
    dr_row **rows;
    long *n, *cap;
    char *err;
    size_t errlen;
    int failed;
} rd;

static void on_field(void *s, size_t len, void *ctx)
{
    rd *r = ctx;
    if (r->nf < NCOLUMNS * 2) {
        size_t k = len < 511 ? len : 511;
        memcpy(r->fields[r->nf], s, k);
        r->fields[r->nf][k] = 0;
    }
    r->nf++;
}

static const char *get(rd *r, int c)
{
    return r->col[c] >= 0 ? r->fields[r->col[c]] : "";
}

static void copy(char *dst, size_t n, const char *s)
{
    snprintf(dst, n, "%s", s);
}

static void on_record(int term, void *ctx)
{
    rd *r = ctx;
    (void)term;
    r->line++;
    if (r->failed)
        return;
    if (!r->have_header) {
        for (int c = 0; c < NCOLUMNS; c++) {
            r->col[c] = -1;
            for (int i = 0; i < r->nf && i < NCOLUMNS * 2; i++)
                if (!strcmp(r->fields[i], columns[c]))
                    r->col[c] = i;
        }
        static const int need[] = {0, 2, 6, 9, 10};
        for (size_t k = 0; k < sizeof need / sizeof *need; k++)
            if (r->col[need[k]] < 0) {
                dl_fail(r->err, r->errlen, "%s:1: missing column '%s' (not a dlreplay CSV?)",
                        r->path, columns[need[k]]);
                r->failed = 1;
                return;
            }
        r->have_header = 1;
        r->nf = 0;
        return;
    }
    dr_row w = {0};
    copy(w.trace, sizeof w.trace, get(r, 0));
    copy(w.config, sizeof w.config, get(r, 1));
    copy(w.model, sizeof w.model, get(r, 2));
    w.gpus = atoi(get(r, 3));
    w.colls = atoi(get(r, 4));
    w.events = atol(get(r, 5));
    copy(w.lib, sizeof w.lib, get(r, 6));
    copy(w.comm, sizeof w.comm, get(r, 7));
    copy(w.streams, sizeof w.streams, get(r, 8));
    const char *d = get(r, 9);
    w.outcome = dr_outcome_parse(get(r, 10));
    w.dlsim = verdict_parse(d);
    /* rows written before the column existed were matched by identity */
    copy(w.matching, sizeof w.matching, *get(r, 18) ? get(r, 18) : "identity");
    if (w.dlsim < 0) {
        dl_fail(r->err, r->errlen,
                "%s:%ld: column 'dlsim': '%s' (expected completed, deadlock, corrupt or "
                "corrupt-shape)",
                r->path, r->line, d);
        r->failed = 1;
    } else if (strcmp(w.matching, "identity") && strcmp(w.matching, "order")) {
        dl_fail(r->err, r->errlen, "%s:%ld: column 'matching': '%s' (expected identity or order)",
                r->path, r->line, w.matching);
        r->failed = 1;
    } else if (w.outcome < 0) {
        dl_fail(r->err, r->errlen, "%s:%ld: column 'outcome': unknown outcome '%s'", r->path,
                r->line, get(r, 10));
        r->failed = 1;
    }
    w.seconds = atof(get(r, 12));
    w.wrong = atol(get(r, 13));
    w.preemptions = strtoull(get(r, 14), NULL, 10);
    w.quits = strtoull(get(r, 15), NULL, 10);
    copy(w.stuck, sizeof w.stuck, get(r, 16));
    copy(w.detail, sizeof w.detail, get(r, 17));
    r->nf = 0;
    if (r->failed)
        return;
    if (*r->n == *r->cap) {
        *r->cap = *r->cap ? 2 * *r->cap : 64;
        *r->rows = dl_xrealloc(*r->rows, (size_t)*r->cap * sizeof **r->rows);
    }
    (*r->rows)[(*r->n)++] = w;
}

int dr_rows_read(const char *path, dr_row **rows, long *n, long *cap, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return dl_fail(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    struct csv_parser p;
    csv_init(&p, CSV_APPEND_NULL);
    rd r = {.path = path, .rows = rows, .n = n, .cap = cap, .err = err, .errlen = errlen};
    char b[65536];
    size_t got;
    int bad = 0;
    while (!r.failed && (got = fread(b, 1, sizeof b, f)) > 0)
        if (csv_parse(&p, b, got, on_field, on_record, &r) != got)
            bad = 1;
    if (!bad && !r.failed)
        csv_fini(&p, on_field, on_record, &r);
    csv_free(&p);
    fclose(f);
    if (bad && !r.failed)
        return dl_fail(err, errlen, "%s: CSV syntax error near line %ld", path, r.line + 1);
    if (!r.failed && !r.have_header)
        return dl_fail(err, errlen, "%s:1: empty file (expected dlreplay's CSV header)", path);
    return r.failed ? -1 : 0;
}

/* ---- the summary ---------------------------------------------------------- */

typedef struct tally {
    char model[16], lib[24], comm[12];
    long traces, dlsim_deadlocks, dlsim_corrupts, by[DR_NOUTCOMES], agree;
} tally;

static tally *tally_of(tally *t, int *nt, const dr_row *r)
{
    for (int i = 0; i < *nt; i++)
        if (!strcmp(t[i].model, r->model) && !strcmp(t[i].lib, r->lib) && !strcmp(t[i].comm, r->comm))
            return &t[i];
    tally *x = &t[(*nt)++];
    memset(x, 0, sizeof *x);
    copy(x->model, sizeof x->model, r->model);
    copy(x->lib, sizeof x->lib, r->lib);
    copy(x->comm, sizeof x->comm, r->comm);
    return x;
}

int dr_summary(FILE *f, const dr_row *rows, long n, const char *csv, char *err, size_t errlen)
{
    tally *t = dl_xcalloc((size_t)n + 1, sizeof *t);
    int nt = 0;
    for (long i = 0; i < n; i++) {
        tally *x = tally_of(t, &nt, &rows[i]);
        x->traces++;
        x->dlsim_deadlocks += rows[i].dlsim == DR_V_DEADLOCK;
        x->dlsim_corrupts += rows[i].dlsim >= DR_V_CORRUPT;
        x->by[rows[i].outcome]++;
        x->agree += dr_agrees(&rows[i]) == 1;
    }
    fprintf(f, "%-8s %-14s %-8s %6s %8s %8s %9s %5s %10s %5s  %s\n", "model", "lib", "comm",
            "traces", "dlsim-dl", "dlsim-co", "completed", "hang", "wrong-data", "error",
            "agreement");
    for (int i = 0; i < nt; i++) {
        tally *x = &t[i];
        fprintf(f, "%-8s %-14s %-8s %6ld %8ld %8ld %9ld %5ld %10ld %5ld  ", x->model, x->lib,
                x->comm, x->traces, x->dlsim_deadlocks, x->dlsim_corrupts, x->by[DR_COMPLETED],
                x->by[DR_HANG], x->by[DR_WRONG], x->by[DR_ERROR]);
        if (dr_lib_is_baseline(x->lib)) {
            fprintf(f, "%ld/%ld with dlsim\n", x->agree, x->traces);
        } else {
            long bad = x->traces - x->by[DR_COMPLETED];
            double lo, hi;
            dl_binom_ci(bad, x->traces, 0.95, &lo, &hi);
            fprintf(f, "%ld deadlocks or failures in %ld (95%% upper bound %.2f%%)\n", bad,
                    x->traces, 100 * hi);
        }
    }
    for (long i = 0; i < n; i++) {
        const dr_row *r = &rows[i];
        if (dr_lib_is_baseline(r->lib) && dr_agrees(r) == 0)
            fprintf(f, "disagreement: %s (%s) on %s (--comm %s): dlsim (matching %s) says %s, %s%s%s\n",
                    r->trace, r->config, r->lib, r->comm, r->matching,
                    dr_verdict_name(r->dlsim), dr_outcome_name(r->outcome),
                    *r->stuck ? ": " : "", r->stuck);
    }
    int rc = 0;
    if (csv) {
        FILE *o = fopen(csv, "w");
        if (!o) {
            rc = dl_fail(err, errlen, "%s: cannot write: %s", csv, strerror(errno));
        } else {
            fprintf(o, "model,lib,comm,traces,dlsim_deadlocks,completed,hang,wrong_data,error,agree,"
                       "dlsim_corrupts\n");
            for (int i = 0; i < nt; i++)
                fprintf(o, "%s,%s,%s,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld\n", t[i].model, t[i].lib,
                        t[i].comm, t[i].traces, t[i].dlsim_deadlocks, t[i].by[DR_COMPLETED],
                        t[i].by[DR_HANG], t[i].by[DR_WRONG], t[i].by[DR_ERROR], t[i].agree,
                        t[i].dlsim_corrupts);
            if (fclose(o) != 0)
                rc = dl_fail(err, errlen, "%s: write error", csv);
        }
    }
    free(t);
    return rc;
}
