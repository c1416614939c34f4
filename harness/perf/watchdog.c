/* watchdog.c: turns a hang into exit 3, and any fatal error into a clean
 * exit.  A rank "arms" the watchdog while it waits for a library (a GPU wait)
 * and every observed completion counts as progress; when ranks are armed and
 * nothing progressed for --timeout seconds, the watchdog reports what each
 * rank was doing, aborts every communicator of both libraries (NCCL: one
 * thread per communicator, all at once, as tests/gpu/nccl_deadlock.c does,
 * because an abort can wait on kernels of communicators not aborted yet) and
 * _exits: threads stuck in a library are never joined.  Host-side work (input
 * generation, the reference) is not armed, so it never counts as a hang.
 *
 * NCCL sees its completions once per batch of -n back-to-back iterations (one
 * stream synchronization), so --timeout must exceed -n iterations' time. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "perf.h"

#define ABORT_GRACE_S 0.5  /* for rank threads to leave their polling loops */
#define ABORT_LIMIT_S 60.0 /* for the aborts to return */

static perf_team *wd_team;
static double wd_timeout;
static atomic_int wd_armed, wd_stop, wd_aborting, wd_dying;
static atomic_llong wd_events; /* arms and progress: counted, not timed (below) */
static pthread_t wd_thread;
static int wd_started;
static _Atomic(const char *) wd_where[PERF_MAX_RANKS];
extern double perf_t_start;

double perf_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The rank threads only count events; the watchdog thread notes when the
 * count last changed.  So a round-trip iteration costs the timed loop no
 * clock read (issue 16: rt loops of a few us each), and the watchdog's view
 * is at most one check period (50 ms) late. */
static void kick(void) { atomic_fetch_add_explicit(&wd_events, 1, memory_order_relaxed); }

void perf_wd_arm(void)
{
    kick();
    atomic_fetch_add(&wd_armed, 1);
}

void perf_wd_disarm(void) { atomic_fetch_sub(&wd_armed, 1); }
void perf_wd_progress(void) { kick(); }
int perf_aborting(void) { return atomic_load(&wd_aborting); }

void perf_set_where(int rank, const char *what)
{
    if (rank >= 0 && rank < PERF_MAX_RANKS) atomic_store(&wd_where[rank], what);
}

static void sleep_s(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t)) {}
}

static atomic_int aborts_done;

static void *abort_main(void *arg)
{
    perf_team *T = arg;
    for (int l = 0; l < PERF_NLIBS; l++)
        if (T && (T->o->libs & (1u << l)) && perf_lib_get(l)->abort_all) perf_lib_get(l)->abort_all(T);
    atomic_store(&aborts_done, 1);
    return NULL;
}

/* Aborts everything (bounded in time), reports, _exits.  Only the first
 * caller gets through; a second one waits for the exit. */
static __attribute__((noreturn)) void die(int status, const char *outcome)
{
    if (atomic_exchange(&wd_dying, 1))
        for (;;) pause();
    atomic_store(&wd_aborting, 1);
    fflush(stdout);
    sleep_s(ABORT_GRACE_S);
    pthread_t t;
    if (pthread_create(&t, NULL, abort_main, wd_team) == 0) {
        double t0 = perf_now();
        while (!atomic_load(&aborts_done) && perf_now() - t0 < ABORT_LIMIT_S) sleep_s(0.02);
        if (!atomic_load(&aborts_done))
            fprintf(stderr, "pccl-perf: the aborts have not returned after %.0f s; exiting anyway\n", ABORT_LIMIT_S);
    }
    if (wd_team && wd_team->csv) fflush(wd_team->csv);
    printf("RESULT pccl-perf ranks=%d outcome=%s wrong=%lld seconds=%.1f\n", wd_team ? wd_team->nranks : 0, outcome,
           wd_team ? wd_team->wrong_total : 0, perf_now() - perf_t_start);
    fflush(stdout);
    fflush(stderr);
    _exit(status);
}

void perf_fatal(int status, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "pccl-perf: error: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    die(status, "ERROR");
}

static void *wd_main(void *arg)
{
    (void)arg;
    long long seen = -1;
    double changed = perf_now();
    while (!atomic_load(&wd_stop)) {
        sleep_s(0.05);
        long long ev = atomic_load_explicit(&wd_events, memory_order_relaxed);
        if (ev != seen) { /* an arm or a completion since the last look */
            seen = ev;
            changed = perf_now();
        }
        if (!atomic_load(&wd_armed) || !(wd_timeout > 0)) continue;
        double idle = perf_now() - changed;
        if (idle <= wd_timeout) continue;
        fflush(stdout);
        fprintf(stderr, "pccl-perf: TIMEOUT: no iteration completed for %.1f s (--timeout %g); aborting\n", idle,
                wd_timeout);
        for (int r = 0; wd_team && r < wd_team->nranks; r++) {
            const char *w = atomic_load(&wd_where[r]);
            fprintf(stderr, "pccl-perf:   rank %d: %s\n", r, w ? w : "?");
        }
        die(PERF_EXIT_TIMEOUT, "TIMEOUT");
    }
    return NULL;
}

void perf_wd_start(perf_team *T, double timeout)
{
    wd_team = T;
    wd_timeout = timeout;
    kick();
    if (pthread_create(&wd_thread, NULL, wd_main, NULL) == 0) wd_started = 1;
}

void perf_wd_stop(void)
{
    atomic_store(&wd_stop, 1);
    if (wd_started) pthread_join(wd_thread, NULL);
    wd_started = 0;
}
