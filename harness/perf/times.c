/* --times FILE (--pccl-times): every completion's time, a diagnosis of stalls.
 *
 * One CSV line per completion: the rank (NCCL: its group's leader, which
 * waits for the group), the size, the placement, the rank's run, the host's
 * CLOCK_MONOTONIC in ns (the clock of PCCL_SLICE_LOG's host-side moments),
 * the timing and the library.  A rank collects a run's times in its own
 * buffer and writes them under one lock when the run ends, so the clock read
 * is all a completion pays. */
#include "perf.h"

#include <stdlib.h>
#include <time.h>

static FILE *times_f;
static const char *times_path;
static pthread_mutex_t times_mu = PTHREAD_MUTEX_INITIALIZER;

void perf_times_open(const char *path)
{
    if (!path) return;
    times_f = fopen(path, "w");
    if (!times_f) perf_fatal(PERF_EXIT_ERROR, "--times %s: cannot write the file", path);
    times_path = path;
    fputs("rank,bytes,inplace,run,ns,timing,lib\n", times_f);
}

void perf_times_close(perf_team *T)
{
    if (times_f && fclose(times_f)) fprintf(stderr, "pccl-perf: --times %s: write failed\n", times_path);
    times_f = NULL;
    for (int r = 0; r < T->nranks; r++) free(T->rank[r].times), T->rank[r].times = NULL, T->rank[r].tcap = 0;
}

void perf_times_begin(perf_rank *R, int n)
{
    R->ntimes = 0;
    if (!times_f || n <= R->tcap) return;
    uint64_t *t = realloc(R->times, sizeof *t * (size_t)n);
    if (t) R->times = t, R->tcap = n;
}

void perf_times_add(perf_rank *R)
{
    if (R->ntimes >= R->tcap) return;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    R->times[R->ntimes++] = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void perf_times_end(perf_rank *R, const perf_case *k, int inplace, int timing, int lib)
{
    if (!times_f || !R->ntimes) return;
    pthread_mutex_lock(&times_mu);
    R->truns++;
    for (int i = 0; i < R->ntimes; i++)
        fprintf(times_f, "%d,%zu,%d,%d,%llu,%s,%s\n", R->rank, k->bytes, inplace, R->truns,
                (unsigned long long)R->times[i], timing == PERF_TIMING_RT ? "rt" : "b2b",
                perf_lib_get(lib)->name);
    R->ntimes = 0;
    pthread_mutex_unlock(&times_mu);
}
