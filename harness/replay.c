/* replay.c: the sequencer, the watchdog, the culprit report and the data
 * check of one replay (replay.h). */
#include "replay.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/engine.h"
#include "../sim/util.h"

static const char *const outcome_names[DR_NOUTCOMES] = {"completed", "hang", "wrong-data",
                                                          "error"};

const char *dr_outcome_name(int o)
{
    return o >= 0 && o < DR_NOUTCOMES ? outcome_names[o] : "?";
}

int dr_outcome_parse(const char *s)
{
    for (int o = 0; o < DR_NOUTCOMES; o++)
        if (!strcmp(s, outcome_names[o]))
            return o;
    return -1;
}

/* ---- communicators --------------------------------------------------------- */

const char *dr_comm_name(int mode)
{
    return mode == DR_COMM_COLL ? "coll" : mode == DR_COMM_MEMBERS ? "members" : "group";
}

void dr_setup_comms(dr_setup *S, int mode)
{
    const dl_layout *L = S->L;
    S->comm_mode = mode;
    S->coll_comm = dl_xmalloc((size_t)L->ncolls * sizeof *S->coll_comm);
    S->comm_group = dl_xmalloc(((size_t)L->ncolls + (size_t)L->ngroups) * sizeof *S->comm_group);
    int *group_comm = dl_xmalloc((size_t)L->ngroups * sizeof *group_comm);
    S->ncomms = 0;
    for (int g = 0; g < L->ngroups; g++) {
        group_comm[g] = -1;
        for (int h = 0; mode == DR_COMM_MEMBERS && h < g && group_comm[g] < 0; h++)
            if (dl_group_same_members(&L->groups[g], &L->groups[h]))
                group_comm[g] = group_comm[h];
        if (group_comm[g] < 0 && mode != DR_COMM_COLL) {
            group_comm[g] = S->ncomms;
            S->comm_group[S->ncomms++] = g;
        }
    }
    for (int c = 0; c < L->ncolls; c++) {
        if (mode == DR_COMM_COLL) {
            S->comm_group[S->ncomms] = L->coll_group[c];
            S->coll_comm[c] = S->ncomms++;
        } else {
            S->coll_comm[c] = group_comm[L->coll_group[c]];
        }
    }
    free(group_comm);
}

void dr_setup_free(dr_setup *S)
{
    free(S->coll_comm);
    free(S->comm_group);
    S->coll_comm = S->comm_group = NULL;
}

/* What a GPU's thread is doing, for the watchdog and the culprit report. */
enum { W_TURN, W_INVOKE, W_SYNC, W_FINISHED, W_FAILED };
/* Part states. */
enum { P_NOT_ISSUED, P_ISSUED, P_DONE };

typedef struct gpu_thread {
    struct run *run;
    int gpu;
    long *ev, nev;       /* indices of its events in the trace */
    atomic_int what;     /* W_* */
    atomic_long at;      /* index of the event it is at */
    int *log;            /* parts in the order it issued them */
    atomic_int nlog;
    int lo;              /* watchdog: log[0..lo) are done */
    char err[256];
    pthread_t th;
} gpu_thread;

typedef struct run {
    const dr_lib *lib;
    void *state;
    const dr_setup *S;
    const dl_layout *L;
    const dl_trace *t;
    gpu_thread *g;
    _Atomic uint8_t *part; /* P_* */
    long *part_line;       /* trace line of each part's invocation */

    pthread_mutex_t mu;
    pthread_cond_t cv;
    long cursor;           /* next event to issue; under mu, read atomically elsewhere */
    atomic_long issued;
    atomic_long done;
    atomic_int stop;
} run;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

int dr_stage_inputs(const dr_setup *S, int (*fn)(void *ctx, const dr_image *im, char *err,
                                                 size_t errlen),
                    void *ctx, char *err, size_t errlen)
{
    const dl_layout *L = S->L;
    int rc = 0;
    for (int c = 0; c < L->ncolls && !rc; c++) {
        const dl_group *g = &L->groups[L->coll_group[c]];
        const ck_coll *k = &S->coll[c];
        size_t sb = ck_send_bytes(k), rb = ck_recv_bytes(k), big = (sb > rb ? sb : rb) + 1;
        void *hs = dl_xmalloc(big), *hr = dl_xmalloc(big);
        for (int m = 0; m < g->n && !rc; m++) {
            ck_prepare(k, m, S->seed + (uint64_t)c, 0, hs, hr);
            dr_image im = {L->part_off[c] + m, g->gpus[m], c, m, hs, hr, sb, rb};
            rc = fn(ctx, &im, err, errlen);
        }
        free(hs);
        free(hr);
    }
    return rc;
}

/* ---- the sequencer: one thread per GPU ---------------------------------- */

static long cursor_of(run *R)
{
    pthread_mutex_lock(&R->mu);
    long c = R->cursor;
    pthread_mutex_unlock(&R->mu);
    return c;
}

static void advance(run *R)
{
    pthread_mutex_lock(&R->mu);
    R->cursor++;
    pthread_cond_broadcast(&R->cv);
    pthread_mutex_unlock(&R->mu);
}

/* Blocks until the cursor reaches event k; 0, or -1 when the replay stops. */
static int wait_turn(run *R, long k)
{
    pthread_mutex_lock(&R->mu);
    while (R->cursor != k && !atomic_load(&R->stop))
        pthread_cond_wait(&R->cv, &R->mu);
    pthread_mutex_unlock(&R->mu);
    return atomic_load(&R->stop) ? -1 : 0;
}

static void *gpu_main(void *arg)
{
    gpu_thread *G = arg;
    run *R = G->run;
    for (long i = 0; i < G->nev; i++) {
        long k = G->ev[i];
        const dl_trace_event *e = &R->t->ev[k];
        atomic_store(&G->at, k);
        atomic_store(&G->what, W_TURN);
        if (wait_turn(R, k) < 0)
            break;
        if (e->action == DL_ACT_INVOKE) {
            int p = dr_part(R->L, G->gpu, e->coll);
            atomic_store(&G->what, W_INVOKE);
            if (R->lib->invoke(R->state, G->gpu, e->coll, G->err, sizeof G->err) < 0) {
                atomic_store(&G->what, W_FAILED);
                return NULL;
            }
            R->part_line[p] = e->line;
            atomic_store(&R->part[p], P_ISSUED);
            G->log[atomic_load(&G->nlog)] = p;
            atomic_fetch_add(&G->nlog, 1); /* publishes the log entry */
            atomic_fetch_add(&R->issued, 1);
            advance(R);
        } else {
            /* The cursor moves first: the others go on while this GPU waits. */
            atomic_fetch_add(&R->issued, 1);
            atomic_store(&G->what, W_SYNC);
            advance(R);
            if (R->lib->sync(R->state, G->gpu, G->err, sizeof G->err) < 0) {
                atomic_store(&G->what, atomic_load(&R->stop) ? W_FINISHED : W_FAILED);
                return NULL;
            }
        }
    }
    atomic_store(&G->what, W_FINISHED);
    return NULL;
}

/* ---- the watchdog ---------------------------------------------------------- */

/* Polls the completion of every issued, incomplete part.  -1 on an error. */
static int poll_parts(run *R, char *err, size_t errlen)
{
    for (int g = 0; g < R->L->ngpus; g++) {
        gpu_thread *G = &R->g[g];
        int n = atomic_load(&G->nlog);
        int all_before = 1;
        for (int i = G->lo; i < n; i++) {
            int p = G->log[i];
            if (atomic_load(&R->part[p]) == P_ISSUED) {
                int d = R->lib->done(R->state, g, R->L->part_coll[p], err, errlen);
                if (d < 0)
                    return -1;
                if (d) {
                    atomic_store(&R->part[p], P_DONE);
                    atomic_fetch_add(&R->done, 1);
                }
            }
            if (atomic_load(&R->part[p]) != P_DONE)
                all_before = 0;
            else if (all_before)
                G->lo = i + 1;
        }
    }
    return 0;
}

static int threads_finished(run *R)
{
    for (int g = 0; g < R->L->ngpus; g++)
        if (atomic_load(&R->g[g].what) != W_FINISHED)
            return 0;
    return 1;
}

static int thread_failed(run *R, char *err, size_t errlen)
{
    for (int g = 0; g < R->L->ngpus; g++)
        if (atomic_load(&R->g[g].what) == W_FAILED) {
            snprintf(err, errlen, "GPU %d: %s", g, R->g[g].err);
            return 1;
        }
    return 0;
}

/* ---- the culprit report ----------------------------------------------------- */

typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(buf *b, const char *fmt, ...)
{
    if (b->len + 1 >= b->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len = b->len + (size_t)n < b->cap ? b->len + (size_t)n : b->cap - 1;
}

/* The first part of g's log not done: with one stream per GPU, the only
 * one that can run. */
static int head_part(run *R, int g)
{
    gpu_thread *G = &R->g[g];
    int n = atomic_load(&G->nlog);
    for (int i = G->lo; i < n; i++)
        if (atomic_load(&R->part[G->log[i]]) != P_DONE)
            return G->log[i];
    return -1;
}

/* Has gpu started its part of coll (issued it, and with one stream per GPU,
 * it reached the head of the stream)? */
static int started(run *R, int gpu, int coll)
{
    int p = dr_part(R->L, gpu, coll);
    if (atomic_load(&R->part[p]) == P_NOT_ISSUED)
        return 0;
    return R->S->stream_per_coll || head_part(R, gpu) == p || atomic_load(&R->part[p]) == P_DONE;
}

/* What GPU m is doing, in a few words. */
static void describe_gpu(run *R, int m, buf *b)
{
    gpu_thread *G = &R->g[m];
    int what = atomic_load(&G->what);
    const dl_trace_event *e = &R->t->ev[atomic_load(&G->at)];
    int head = R->S->stream_per_coll ? -1 : head_part(R, m);
    if (what == W_SYNC)
        put(b, "in a sync since line %ld", e->line);
    else if (head >= 0)
        put(b, "stuck in collective %d", R->L->part_coll[head]);
    else if (what == W_INVOKE)
        put(b, "inside the call of line %ld", e->line);
    else if (what == W_FINISHED)
        put(b, "done with its events");
    else
        put(b, "waiting for its turn at line %ld", e->line);
}

/* GPU g waits in coll: the members that have not started it. */
static void waits_for(run *R, int g, int coll, buf *b, buf *line, int *edge)
{
    const dl_group *grp = &R->L->groups[R->L->coll_group[coll]];
    int any = 0;
    for (int k = 0; k < grp->n; k++) {
        int m = grp->gpus[k];
        if (m == g || started(R, m, coll))
            continue;
        int p = dr_part(R->L, m, coll);
        put(b, "%s GPU %d (", any ? "," : "; waits for", m);
        if (atomic_load(&R->part[p]) == P_NOT_ISSUED)
            put(b, "not invoked yet: ");
        else
            put(b, "queued: ");
        describe_gpu(R, m, b);
        put(b, ")");
        put(line, "%s%d", any ? "," : "<-", m);
        edge[g * R->L->ngpus + m] = 1;
        any = 1;
    }
}

/* A cycle in the waits-for graph between GPUs, if any, into b. */
static void find_cycle(run *R, const int *edge, buf *b)
{
    int n = R->L->ngpus;
    int *colour = dl_xcalloc((size_t)n, sizeof *colour), *stack = dl_xmalloc((size_t)n * sizeof *stack),
        *next = dl_xcalloc((size_t)n, sizeof *next);
    for (int s = 0; s < n; s++) {
        if (colour[s])
            continue;
        int sp = 0;
        stack[sp++] = s;
        colour[s] = 1;
        while (sp > 0) {
            int u = stack[sp - 1];
            if (next[u] == n) {
                colour[u] = 2;
                sp--;
                continue;
            }
            int v = next[u]++;
            if (!edge[u * n + v])
                continue;
            if (colour[v] == 1) { /* back edge: the cycle is stack[pos(v)..] */
                int i = sp - 1;
                while (stack[i] != v)
                    i--;
                put(b, "  cycle: ");
                for (int j = i; j < sp; j++)
                    put(b, "GPU %d -> ", stack[j]);
                put(b, "GPU %d\n", v);
                goto out;
            }
            if (!colour[v]) {
                colour[v] = 1;
                stack[sp++] = v;
            }
        }
    }
out:
    free(colour);
    free(stack);
    free(next);
}

static void culprit_report(run *R, double waited, dr_result *res)
{
    buf b = {res->report, 0, sizeof res->report}, s = {res->stuck, 0, sizeof res->stuck};
    const dl_layout *L = R->L;
    int n = L->ngpus;
    int *edge = dl_xcalloc((size_t)n * n, sizeof *edge);
    long cur = cursor_of(R);
    put(&b, "hang: nothing issued or completed for %.1f s; %ld of %ld events issued", waited,
        atomic_load(&R->issued), R->t->n);
    if (cur < R->t->n)
        put(&b, "; the sequencer waits for line %ld (GPU %d)", R->t->ev[cur].line,
            R->t->ev[cur].gpu);
    put(&b, "\n");
    for (int g = 0; g < n; g++) {
        gpu_thread *G = &R->g[g];
        put(&b, "  GPU %d: ", g);
        int head = head_part(R, g);
        if (head < 0) {
            describe_gpu(R, g, &b);
            put(&b, "\n");
            continue;
        }
        put(&s, "%sGPU %d:", s.len ? "; " : "", g);
        int nl = atomic_load(&G->nlog), first = 1;
        for (int i = G->lo; i < nl; i++) {
            int p = G->log[i];
            if (atomic_load(&R->part[p]) == P_DONE)
                continue;
            int c = L->part_coll[p];
            if (!first && !R->S->stream_per_coll) {
                int more = 0;
                for (int j = i; j < nl; j++)
                    more += atomic_load(&R->part[G->log[j]]) != P_DONE;
                put(&b, "; then %d more queued behind it", more);
                break;
            }
            put(&b, "%s%s collective %d (group %d, invoked at line %ld)", first ? "" : "\n         ",
                R->S->stream_per_coll ? "in flight:" : "stuck in", c, L->coll_group[c],
                R->part_line[p]);
            put(&s, " %d", c);
            waits_for(R, g, c, &b, &s, edge);
            first = 0;
        }
        if (atomic_load(&G->what) == W_SYNC)
            put(&b, "\n         and blocked in a sync since line %ld",
                R->t->ev[atomic_load(&G->at)].line);
        put(&b, "\n");
    }
    find_cycle(R, edge, &b);
    free(edge);
}

/* ---- the data check ---------------------------------------------------------- */

static void check_outputs(run *R, dr_result *res)
{
    const dl_layout *L = R->L;
    size_t cap = 0;
    void *host = NULL;
    for (int c = 0; c < L->ncolls; c++) {
        const ck_coll *cc = &R->S->coll[c];
        size_t bytes = ck_recv_bytes(cc);
        if (bytes > cap) {
            free(host);
            host = dl_xmalloc(cap = bytes);
        }
        const dl_group *grp = &L->groups[L->coll_group[c]];
        for (int m = 0; m < grp->n; m++) {
            if (!ck_writes_recv(cc, m))
                continue;
            char err[256], msg[256];
            if (R->lib->output(R->state, grp->gpus[m], c, host, err, sizeof err) < 0) {
                res->outcome = DR_ERROR;
                snprintf(res->detail, sizeof res->detail, "output of collective %d on GPU %d: %s",
                         c, grp->gpus[m], err);
                goto out;
            }
            size_t w = ck_verify(cc, m, R->S->seed + (uint64_t)c, 0, host, msg, sizeof msg);
            if (w && !res->wrong)
                snprintf(res->detail, sizeof res->detail, "collective %d (group %d), GPU %d: %s",
                         c, L->coll_group[c], grp->gpus[m], msg);
            res->wrong += (long)w;
        }
    }
    if (res->wrong)
        res->outcome = DR_WRONG;
out:
    free(host);
}

/* ---- the replay ------------------------------------------------------------ */

static void run_free(run *R)
{
    if (R->g)
        for (int g = 0; g < R->L->ngpus; g++) {
            free(R->g[g].ev);
            free(R->g[g].log);
        }
    free(R->g);
    free((void *)R->part);
    free(R->part_line);
    pthread_mutex_destroy(&R->mu);
    pthread_cond_destroy(&R->cv);
}

static void run_init(run *R, const dr_lib *lib, const dr_setup *S, const dl_trace *t)
{
    const dl_layout *L = S->L;
    memset(R, 0, sizeof *R);
    R->lib = lib;
    R->S = S;
    R->L = L;
    R->t = t;
    R->part = dl_xcalloc((size_t)L->nparts, sizeof *R->part);
    R->part_line = dl_xcalloc((size_t)L->nparts, sizeof *R->part_line);
    R->g = dl_xcalloc((size_t)L->ngpus, sizeof *R->g);
    pthread_mutex_init(&R->mu, NULL);
    pthread_cond_init(&R->cv, NULL);
    for (int g = 0; g < L->ngpus; g++) {
        gpu_thread *G = &R->g[g];
        G->run = R;
        G->gpu = g;
        G->ev = dl_xmalloc(((size_t)t->n + 1) * sizeof *G->ev);
        G->log = dl_xmalloc(((size_t)(L->plan_off[g + 1] - L->plan_off[g]) + 1) * sizeof *G->log);
        atomic_store(&G->at, t->n ? 0 : -1);
    }
    for (long k = 0; k < t->n; k++) {
        gpu_thread *G = &R->g[t->ev[k].gpu];
        G->ev[G->nev++] = k;
    }
    for (int g = 0; g < L->ngpus; g++)
        if (R->g[g].nev)
            atomic_store(&R->g[g].at, R->g[g].ev[0]);
}

int dr_replay(const dr_lib *lib, const dr_setup *S, const dl_trace *t, const dr_options *o,
              dr_result *res)
{
    const dl_layout *L = S->L;
    run R;
    memset(res, 0, sizeof *res);
    res->events = t->n;
    res->parts = L->nparts;
    run_init(&R, lib, S, t);
    if (lib->setup(&R.state, S, res->detail, sizeof res->detail) < 0) {
        res->outcome = DR_ERROR;
        lib->teardown(R.state, 0); /* whatever setup built */
        run_free(&R);
        return res->outcome;
    }
    double t0 = now(), last = t0;
    long seen = -1;
    int started_threads = 0;
    for (; started_threads < L->ngpus; started_threads++)
        if (pthread_create(&R.g[started_threads].th, NULL, gpu_main, &R.g[started_threads])) {
            res->outcome = DR_ERROR;
            snprintf(res->detail, sizeof res->detail, "cannot start a thread for GPU %d",
                     started_threads);
            break;
        }
    int aborted = 0;
    while (res->outcome != DR_ERROR) {
        sleep_s(o->poll_s > 0 ? o->poll_s : 1e-3);
        char err[400] = "";
        if (poll_parts(&R, err, sizeof err) < 0 || (lib->error && lib->error(R.state, err, sizeof err) < 0) ||
            thread_failed(&R, err, sizeof err)) {
            res->outcome = DR_ERROR;
            snprintf(res->detail, sizeof res->detail, "%s", err);
            break;
        }
        long progress = atomic_load(&R.issued) + atomic_load(&R.done);
        if (atomic_load(&R.done) == L->nparts && atomic_load(&R.issued) == t->n &&
            threads_finished(&R)) {
            res->outcome = DR_COMPLETED;
            break;
        }
        double tn = now();
        if (progress != seen) {
            seen = progress;
            last = tn;
        } else if (tn - last > o->timeout) {
            res->outcome = DR_HANG;
            culprit_report(&R, tn - last, res);
            snprintf(res->detail, sizeof res->detail, "no progress for %.1f s", o->timeout);
            break;
        }
    }
    res->seconds = now() - t0;
    res->issued = atomic_load(&R.issued);
    res->parts_done = atomic_load(&R.done);
    if (res->outcome != DR_COMPLETED && o->early)
        o->early(res, o->early_ctx);
    pthread_mutex_lock(&R.mu); /* no event is issued from here on */
    atomic_store(&R.stop, 1);
    pthread_cond_broadcast(&R.cv);
    pthread_mutex_unlock(&R.mu);
    if (res->outcome != DR_COMPLETED) {
        lib->abort(R.state);
        aborted = 1;
    }
    for (int g = 0; g < started_threads; g++)
        pthread_join(R.g[g].th, NULL);
    if (res->outcome == DR_COMPLETED) {
        check_outputs(&R, res);
        if (lib->stats)
            lib->stats(R.state, &res->stats);
    }
    lib->teardown(R.state, aborted);
    run_free(&R);
    return res->outcome;
}
