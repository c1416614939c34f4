/* montecarlo.c: rounds over threads, totals, progress with ETA. */
#include "montecarlo.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "depgraph.h"
#include "play.h"
#include "rng.h"
#include "util.h"

typedef struct worker {
    dl_study *S;
    const gsl_rng_type *type;
    atomic_long *next;      /* next round index to take */
    atomic_long *done;      /* rounds finished (progress) */
    atomic_long *dead_seen; /* deadlocks so far (progress) */
    long deadlocks, events, invocations, syncs, skips, mismatches, corrupts, first_deadlock;
} worker;

/* The verify hook: the incremental verdict against igraph's. */
static int verify_event(const dl_round *R, int verdict, void *ctx)
{
    return dl_depgraph_verdict(R) != verdict;
}

static void *work(void *arg)
{
    worker *w = arg;
    dl_study *S = w->S;
    dl_player *pl = dl_player_new(S->L, &S->P, w->type, S->seed, S->exact_stream);
    if (S->verify)
        pl->R->verify = verify_event;
    if (dl_semantics_is_reference(S->semantics))
        dl_player_use_reference(pl, S->semantics);
    /* Per-round steps and the verify hook need the lockstep engine on every
     * round; otherwise the player may decide a round without it (play.h). */
    const int detail = S->verify || S->keep_rounds || S->engine_only;
    w->first_deadlock = -1;
    const long end = S->first + S->count;
    for (;;) {
        long r = atomic_fetch_add(w->next, 1);
        if (r >= end)
            break;
        int st = dl_player_round(pl, r, detail, NULL);
        int dead = st == DL_DEADLOCK;
        w->deadlocks += dead;
        w->events += pl->events;
        w->invocations += pl->invocations;
        w->syncs += pl->syncs;
        w->skips += pl->skips;
        w->mismatches += pl->mismatches;
        w->corrupts += pl->corrupt;
        if (dead && (w->first_deadlock < 0 || r < w->first_deadlock))
            w->first_deadlock = r;
        if (S->per_round)
            S->per_round[r - S->first] = (dl_round_result){
                .deadlock = (unsigned char)dead, .corrupt = (unsigned char)pl->corrupt, .steps = pl->steps, .events = pl->events,
                .invocations = pl->invocations, .syncs = pl->syncs, .skips = pl->skips,
                .deadlock_event = pl->deadlock_event};
        if (dead)
            atomic_fetch_add(w->dead_seen, 1);
        atomic_fetch_add(w->done, 1);
    }
    dl_player_free(pl);
    return NULL;
}

int dl_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void fmt_duration(char *buf, size_t n, double s)
{
    if (s < 0 || s > 1e7)
        snprintf(buf, n, "?");
    else if (s < 60)
        snprintf(buf, n, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
    else
        snprintf(buf, n, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
}

/* The share's progress (under MPI rank 0 shows its own share). */
static void show_progress(const dl_study *S, long done, long dead, double t0, int final)
{
    double el = dl_now() - t0;
    double rate = el > 0 ? (double)done / el : 0;
    char eta[32];
    fmt_duration(eta, sizeof eta, rate > 0 ? (double)(S->count - done) / rate : -1);
    fprintf(stderr, "\r  %ld/%ld rounds (%.0f%%)  %ld deadlocks  %.1f rounds/s  ETA %s   %s", done,
            S->count, 100.0 * (double)done / (double)S->count, dead, rate, eta, final ? "\n" : "");
    fflush(stderr);
}

int dl_study_run(dl_study *S, char *err, size_t errlen)
{
    const gsl_rng_type *type = dl_rng_type(S->rng ? S->rng : "taus2");
    if (!type)
        return dl_fail(err, errlen, "unknown GSL generator '%s'", S->rng);
    if (dl_semantics_is_reference(S->semantics) && (S->exact_stream || S->verify || S->engine_only))
        return dl_fail(err, errlen, "semantics reference: %s",
                       S->verify ? "--verify checks the exact semantics' detector; drop one of them"
                                 : "the reference rules run on the default stream only "
                                   "(drop --exact-stream / exact_stream)");
    if (S->count == 0) {
        S->first = 0;
        S->count = S->rounds;
    }
    if (S->first < 0 || S->count < 1 || S->first > S->rounds - S->count)
        return dl_fail(err, errlen, "rounds %ld..%ld are not a share of the study's %ld rounds",
                       S->first, S->first + S->count - 1, S->rounds);
    int nt = S->threads > 0 ? S->threads : dl_cores();
    if (nt > S->count)
        nt = (int)S->count;
    S->threads_used = nt;
    S->ranks = 1;
    S->per_round = S->keep_rounds ? dl_xcalloc((size_t)S->count, sizeof *S->per_round) : NULL;

    atomic_long next = S->first, done = 0, dead = 0;
    worker *w = dl_xcalloc((size_t)nt, sizeof *w);
    pthread_t *tid = dl_xmalloc((size_t)nt * sizeof *tid);
    double t0 = dl_now();
    for (int i = 0; i < nt; i++) {
        w[i] = (worker){.S = S, .type = type, .next = &next, .done = &done, .dead_seen = &dead};
        if (pthread_create(&tid[i], NULL, work, &w[i]) != 0) {
            fprintf(stderr, "dlsim: cannot start thread %d\n", i);
            exit(1);
        }
    }
    if (S->progress) {
        struct timespec tick = {0, 250 * 1000 * 1000};
        while (atomic_load(&done) < S->count) {
            nanosleep(&tick, NULL);
            show_progress(S, atomic_load(&done), atomic_load(&dead), t0, 0);
        }
    }
    S->deadlocks = S->events = S->invocations = S->syncs = S->skips = S->mismatches = 0;
    S->corrupts = 0;
    S->first_deadlock = -1;
    for (int i = 0; i < nt; i++) {
        pthread_join(tid[i], NULL);
        S->deadlocks += w[i].deadlocks;
        S->events += w[i].events;
        S->invocations += w[i].invocations;
        S->syncs += w[i].syncs;
        S->skips += w[i].skips;
        S->mismatches += w[i].mismatches;
        S->corrupts += w[i].corrupts;
        if (w[i].first_deadlock >= 0 &&
            (S->first_deadlock < 0 || w[i].first_deadlock < S->first_deadlock))
            S->first_deadlock = w[i].first_deadlock;
    }
    S->seconds = dl_now() - t0;
    if (S->progress)
        show_progress(S, S->count, S->deadlocks, t0, 1);
    free(w);
    free(tid);
    return 0;
}
