/* trace.c: reading, writing and replaying event traces (docs/trace.md).
 *
 * The reader feeds libcsv one physical line at a time, so that every record
 * and every syntax error can be given the line it starts on; libcsv itself
 * knows no line numbers. */
#include "trace.h"

#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

enum { COL_STEP, COL_GPU, COL_ACTION, COL_COLL, NCOLS };
static const char *const col_name[NCOLS] = {"step", "gpu", "action", "coll"};

/* What the libcsv callbacks share. */
typedef struct reader {
    const char *name;
    long lineno;   /* physical line being fed */
    long rec_line; /* line the current record started on */
    int need_start;

    /* fields of the current record (copies: libcsv reuses its buffer) */
    char **field;
    size_t *len;
    int nf, capf;

    int have_header, ncols;
    int col[NCOLS]; /* index of each required column */

    dl_trace *t;
    long last_step;
    char *err;
    size_t errlen;
    int failed;
} reader;

static const char *shown(const char *path)
{
    return strcmp(path, "-") ? path : "<stdin>";
}

/* Records the first error only: libcsv cannot be stopped from a callback,
 * so later callbacks see `failed` and do nothing. */
static int rd_fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int rd_fail(reader *r, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    if (r->failed)
        return -1;
    r->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return dl_fail(r->err, r->errlen, "%s:%ld: %s", r->name, r->rec_line, msg);
}

static void on_field(void *s, size_t n, void *ctx)
{
    reader *r = ctx;
    if (r->failed)
        return;
    if (r->nf == r->capf) {
        r->capf = r->capf ? 2 * r->capf : 8;
        r->field = dl_xrealloc(r->field, (size_t)r->capf * sizeof *r->field);
        r->len = dl_xrealloc(r->len, (size_t)r->capf * sizeof *r->len);
    }
    char *copy = dl_xmalloc(n + 1);
    memcpy(copy, s, n);
    copy[n] = '\0';
    r->field[r->nf] = copy;
    r->len[r->nf++] = n;
}

static void clear_fields(reader *r)
{
    for (int i = 0; i < r->nf; i++)
        free(r->field[i]);
    r->nf = 0;
}

static int parse_header(reader *r)
{
    for (int k = 0; k < NCOLS; k++)
        r->col[k] = -1;
    for (int i = 0; i < r->nf; i++)
        for (int k = 0; k < NCOLS; k++) {
            if (strcmp(r->field[i], col_name[k]))
                continue;
            if (r->col[k] >= 0)
                return rd_fail(r, "duplicated column '%s'", col_name[k]);
            r->col[k] = i;
        }
    for (int k = 0; k < NCOLS; k++)
        if (r->col[k] < 0)
            return rd_fail(r, "missing required column '%s' (the header needs "
                           "step,gpu,action,coll)", col_name[k]);
    r->ncols = r->nf;
    r->have_header = 1;
    return 0;
}

/* Parses a non-negative integer no larger than max.  Returns 0, or -1 after
 * reporting why, naming the column. */
static int parse_count(reader *r, int k, long max, long *out)
{
    const char *s = r->field[r->col[k]];
    size_t n = r->len[r->col[k]];
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (n == 0 || end != s + n || (*s != '-' && *s != '+' && (*s < '0' || *s > '9')))
        return rd_fail(r, "column '%s': '%s' is not an integer", col_name[k], s);
    if (v < 0)
        return rd_fail(r, "column '%s': %s is negative", col_name[k], s);
    if (errno == ERANGE || v > max)
        return rd_fail(r, "column '%s': %s is too large", col_name[k], s);
    *out = v;
    return 0;
}

static void push_event(dl_trace *t, const dl_trace_event *e)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->ev = dl_xrealloc(t->ev, (size_t)t->cap * sizeof *t->ev);
    }
    t->ev[t->n++] = *e;
}

static int parse_event(reader *r)
{
    if (r->nf != r->ncols)
        return rd_fail(r, "%d fields, but the header has %d", r->nf, r->ncols);
    dl_trace_event e = {.line = r->rec_line, .coll = -1};
    long v;
    if (parse_count(r, COL_STEP, LONG_MAX, &e.step) || parse_count(r, COL_GPU, INT_MAX, &v))
        return -1;
    e.gpu = (int)v;

    const char *act = r->field[r->col[COL_ACTION]];
    if (!strcmp(act, "invoke"))
        e.action = DL_ACT_INVOKE;
    else if (!strcmp(act, "sync"))
        e.action = DL_ACT_SYNC;
    else
        return rd_fail(r, "column 'action': unknown action '%s' (expected invoke or sync)", act);

    const char *coll = r->field[r->col[COL_COLL]];
    if (e.action == DL_ACT_SYNC && r->len[r->col[COL_COLL]] > 0)
        return rd_fail(r, "column 'coll': a sync has no collective (got '%s')", coll);
    if (e.action == DL_ACT_INVOKE) {
        if (r->len[r->col[COL_COLL]] == 0)
            return rd_fail(r, "column 'coll': missing collective id for invoke");
        if (parse_count(r, COL_COLL, INT_MAX, &v))
            return -1;
        e.coll = (int)v;
    }

    if (e.step < r->last_step)
        return rd_fail(r, "column 'step': step %ld after step %ld (steps must not decrease)",
                       e.step, r->last_step);
    r->last_step = e.step;
    push_event(r->t, &e);
    return 0;
}

static void on_record(int term, void *ctx)
{
    reader *r = ctx;
    (void)term;
    if (!r->failed) {
        if (r->have_header)
            parse_event(r);
        else
            parse_header(r);
    }
    clear_fields(r);
    r->need_start = 1;
}

static int blank_line(const char *s, ssize_t n)
{
    for (ssize_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}

/* Feeds the stream to the parser line by line; 0 or -1 (error recorded). */
static int feed(reader *r, struct csv_parser *p, FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (!r->failed && (n = getline(&line, &cap, f)) > 0) {
        char *s = line;
        if (++r->lineno == 1 && n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
            s += 3; /* a UTF-8 byte order mark, as spreadsheets write */
            n -= 3;
        }
        if (r->need_start) {
            if (blank_line(s, n))
                continue; /* between records: a blank line, not an empty record */
            r->rec_line = r->lineno;
            r->need_start = 0;
        }
        if (csv_parse(p, s, (size_t)n, on_field, on_record, r) != (size_t)n) {
            r->rec_line = r->lineno;
            int e = csv_error(p);
            rd_fail(r, "CSV syntax error: %s", e == CSV_EPARSE
                    ? "a quote inside an unquoted field, or text after a closing quote"
                    : csv_strerror(e));
        }
    }
    free(line);
    if (!r->failed && ferror(f))
        rd_fail(r, "read error: %s", strerror(errno));
    if (!r->failed && csv_fini(p, on_field, on_record, r) != 0)
        rd_fail(r, "CSV syntax error: unterminated quoted field");
    return r->failed ? -1 : 0;
}

int dl_trace_read_stream(FILE *f, const char *name, dl_trace *t, char *err, size_t errlen)
{
    struct csv_parser p;
    reader r = {.name = name, .need_start = 1, .rec_line = 1, .t = t, .last_step = 0,
                .err = err, .errlen = errlen};
    memset(t, 0, sizeof *t);
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
        return dl_fail(err, errlen, "%s: cannot initialise the CSV parser", name);
    feed(&r, &p, f);
    if (!r.failed && !r.have_header) {
        r.rec_line = 1;
        rd_fail(&r, "empty file (expected a header line: step,gpu,action,coll)");
    }
    clear_fields(&r);
    free(r.field);
    free(r.len);
    csv_free(&p);
    if (r.failed) {
        dl_trace_free(t);
        return -1;
    }
    return 0;
}

int dl_trace_read(const char *path, dl_trace *t, char *err, size_t errlen)
{
    if (!strcmp(path, "-"))
        return dl_trace_read_stream(stdin, shown(path), t, err, errlen);
    FILE *f = fopen(path, "r");
    if (!f) {
        memset(t, 0, sizeof *t);
        return dl_fail(err, errlen, "%s: %s", path, strerror(errno));
    }
    int rc = dl_trace_read_stream(f, path, t, err, errlen);
    fclose(f);
    return rc;
}

void dl_trace_free(dl_trace *t)
{
    free(t->ev);
    memset(t, 0, sizeof *t);
}

/* ---- writer ---- */

void dl_trace_write_header(FILE *f)
{
    fputs("step,gpu,action,coll,group,skipped\n", f);
}

void dl_trace_write_event(FILE *f, const dl_layout *L, long step, int gpu, int action,
                          int coll, int skipped)
{
    if (action == DL_ACT_SYNC)
        fprintf(f, "%ld,%d,sync,,,0\n", step, gpu);
    else
        fprintf(f, "%ld,%d,invoke,%d,%d,%d\n", step, gpu, coll, L->coll_group[coll], skipped);
}

static void sink_event(void *ctx, long step, int gpu, int action, int coll, int skipped)
{
    dl_trace_writer *w = ctx;
    dl_trace_write_event(w->f, w->L, step, gpu, action, coll, skipped);
}

dl_sink dl_trace_sink(dl_trace_writer *w)
{
    return (dl_sink){.event = sink_event, .ctx = w};
}

/* ---- replay ---- */

/* 0 if event e may be applied to R now, else -1 with the reason in err.
 * The engine's own checks are the authority on what a GPU may do. */
static int check_event(const dl_round *R, const dl_trace_event *e, int syncs_allowed,
                       char *err, size_t errlen)
{
    if (e->action == DL_ACT_SYNC) {
        if (!syncs_allowed)
            return dl_fail(err, errlen, "GPU %d syncs, but this model has no syncs", e->gpu);
        return dl_round_can_sync(R, e->gpu, err, errlen);
    }
    if (R->status == DL_COMPLETED)
        return dl_fail(err, errlen, "every collective has already completed");
    return dl_round_can_invoke(R, e->gpu, e->coll, err, errlen);
}

static int replay(const dl_trace *t, dl_round *R, const char *path, int syncs_allowed,
                  int sequencer, long *at, char *err, size_t errlen)
{
    long dummy;
    char why[256];
    if (!at)
        at = &dummy;
    dl_round_reset(R);
    for (long i = 0; i < t->n; i++) {
        const dl_trace_event *e = &t->ev[i];
        *at = i;
        if (sequencer && e->gpu >= 0 && e->gpu < R->L->ngpus && R->suspended[e->gpu]) {
            /* The sequencer waits for this GPU, which only a completion
             * could release, and none can come before the next event. */
            R->status = DL_DEADLOCK;
            R->deadlock_step = e->step;
            R->deadlock_event = R->events;
            R->ncycle = 0;
            return DL_DEADLOCK;
        }
        if (check_event(R, e, syncs_allowed, why, sizeof why) != 0)
            return dl_fail(err, errlen, "%s:%ld: %s", shown(path), e->line, why);
        R->step = e->step; /* reported as the deadlock's step; never used to order */
        int st = e->action == DL_ACT_INVOKE ? dl_round_invoke(R, e->gpu, e->coll)
                                            : dl_round_sync(R, e->gpu);
        if (st == DL_DEADLOCK)
            return DL_DEADLOCK;
    }
    *at = -1;
    if (R->status == DL_COMPLETED)
        return DL_COMPLETED;
    long line = t->n ? t->ev[t->n - 1].line : 1;
    return dl_fail(err, errlen,
                   "%s:%ld: trace ends with %d collectives incomplete and no deadlock: truncated?",
                   shown(path), line, R->L->ncolls - R->ndone);
}

int dl_trace_replay(const dl_trace *t, dl_round *R, const char *path, int syncs_allowed,
                    long *at, char *err, size_t errlen)
{
    return replay(t, R, path, syncs_allowed, 0, at, err, errlen);
}

int dl_trace_replay_sequenced(const dl_trace *t, dl_round *R, const char *path,
                              int syncs_allowed, long *at, char *err, size_t errlen)
{
    return replay(t, R, path, syncs_allowed, 1, at, err, errlen);
}

/* ---- whole plans, for replays on hardware ---- */

int dl_trace_check_plan(const dl_trace *t, const dl_layout *L, const char *path,
                        int syncs_allowed, char *err, size_t errlen)
{
    uint8_t *seen = dl_xcalloc((size_t)L->nparts, 1);
    int rc = -1;
    for (long i = 0; i < t->n; i++) {
        const dl_trace_event *e = &t->ev[i];
        const char *f = shown(path);
        if (e->gpu >= L->ngpus) {
            dl_fail(err, errlen, "%s:%ld: GPU %d does not exist (the layout has GPUs 0..%d)", f,
                    e->line, e->gpu, L->ngpus - 1);
            goto out;
        }
        if (e->action == DL_ACT_SYNC) {
            if (!syncs_allowed) {
                dl_fail(err, errlen, "%s:%ld: GPU %d syncs, but this model has no syncs", f,
                        e->line, e->gpu);
                goto out;
            }
            continue;
        }
        if (e->coll >= L->ncolls) {
            dl_fail(err, errlen, "%s:%ld: collective %d does not exist (the layout has 0..%d)", f,
                    e->line, e->coll, L->ncolls - 1);
            goto out;
        }
        int m = dl_layout_member(L, e->coll, e->gpu);
        if (m < 0) {
            dl_fail(err, errlen, "%s:%ld: GPU %d is not a member of collective %d's group %d", f,
                    e->line, e->gpu, e->coll, L->coll_group[e->coll]);
            goto out;
        }
        int p = L->part_off[e->coll] + m;
        if (seen[p]) {
            dl_fail(err, errlen, "%s:%ld: GPU %d has already invoked collective %d", f, e->line,
                    e->gpu, e->coll);
            goto out;
        }
        seen[p] = 1;
    }
    for (int g = 0; g < L->ngpus; g++)
        for (int k = L->plan_off[g]; k < L->plan_off[g + 1]; k++) {
            const dl_plan_entry *pe = &L->plan[k];
            if (!seen[L->part_off[pe->coll] + pe->member]) {
                dl_fail(err, errlen,
                        "%s:%ld: the trace ends before GPU %d invokes collective %d (group %d); "
                        "a replay needs every GPU's whole plan: write it with dlsim gen --full",
                        shown(path), t->n ? t->ev[t->n - 1].line : 1, g, pe->coll,
                        L->coll_group[pe->coll]);
                goto out;
            }
        }
    rc = 0;
out:
    free(seen);
    return rc;
}
