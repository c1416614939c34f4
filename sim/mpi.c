/* mpi.c: a study split over MPI ranks (ranks.h).  Compiled only into
 * build/dlsim-mpi, with mpicc and -DDL_HAVE_MPI (make mpi).
 *
 * Only the main thread of a rank calls MPI (MPI_THREAD_FUNNELED); the
 * worker threads of montecarlo.c never do. */
#include <mpi.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"
#include "util.h"

static int rank_, size_ = 1;
static int agreed;       /* dl_ranks_agree has run */
static int args_hash;    /* of the command line: every rank must run the same study */
static FILE *real_err;   /* this rank's stderr while its messages are held */
static char *held;       /* the held messages */
static size_t nheld;

void dl_ranks_init(int *argc, char ***argv)
{
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    unsigned h = 2166136261u; /* FNV-1a over the arguments and their ends */
    for (int k = 1; k < *argc; k++)
        for (const char *c = (*argv)[k];; c++) {
            h = (h ^ (unsigned char)*c) * 16777619u;
            if (!*c)
                break;
        }
    args_hash = (int)(h & 0x7fffffff);
    if (rank_ == 0)
        return;
    if (!freopen("/dev/null", "w", stdout))
        fprintf(stderr, "dlsim: rank %d: cannot silence stdout\n", rank_);
    /* glibc's stderr is an assignable variable; a memory stream holds what
     * this rank would print until the ranks agree */
    FILE *m = open_memstream(&held, &nheld);
    if (m) {
        real_err = stderr;
        stderr = m;
    }
}

/* Back to the real stderr; prints the held messages if asked to. */
static void release(int print)
{
    if (!real_err)
        return;
    FILE *m = stderr;
    fflush(m);
    stderr = real_err;
    real_err = NULL;
    if (print && nheld > 0)
        fprintf(stderr, "dlsim: rank %d: %.*s", rank_, (int)nheld, held);
    fclose(m);
    free(held);
    held = NULL;
}

int dl_ranks_agree(int rc)
{
    int mine[2] = {rc, args_hash}, *all = dl_xmalloc(2 * (size_t)size_ * sizeof *all);
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    int first = 0, who = -1, same = 1;
    for (int k = 0; k < size_; k++) {
        same &= all[2 * k + 1] == all[1];
        if (all[2 * k] && !first) {
            first = all[2 * k];
            who = k;
        }
    }
    release(rc != 0 && all[0] == 0);
    if (rank_ == 0 && who > 0)
        fprintf(stderr, "dlsim: rank %d could not start the study (see its message); no rank runs it\n",
                who);
    if (!same && !first) { /* each rank would run a share of another study */
        if (rank_ == 0)
            fprintf(stderr, "dlsim: the MPI ranks were started with different arguments; give "
                    "every rank the same command\n");
        first = 2;
    }
    free(all);
    agreed = 1;
    return first;
}

int dl_ranks_finalize(int rc)
{
    /* Every rank stopped before agreeing (an error they all found, or help):
     * agree now, so that a rank with a message of its own still prints it. */
    if (!agreed && size_ > 1)
        dl_ranks_agree(rc);
    release(0);
    MPI_Finalize();
    return rc;
}

int dl_ranks_rank(void)
{
    return rank_;
}

int dl_ranks_size(void)
{
    return size_;
}

int dl_ranks_check(long rounds, int keep_rounds, char *err, size_t errlen)
{
    if (size_ > rounds)
        return dl_fail(err, errlen,
                       "%d MPI ranks for %ld rounds: every rank needs a round (run at most %ld "
                       "ranks, or raise --rounds)", size_, rounds, rounds);
    if (keep_rounds && rounds > INT_MAX)
        return dl_fail(err, errlen, "--rounds-csv under MPI: at most %d rounds", INT_MAX);
    return 0;
}

/* Rank k's share: R/N rounds, one more for the first R%N ranks. */
static void share(long rounds, int k, long *first, long *count)
{
    long q = rounds / size_, rem = rounds % size_;
    *first = q * k + (k < rem ? k : rem);
    *count = q + (k < rem);
}

/* Rank 0 collects every rank's per-round rows, in round order. */
static dl_round_result *gather_rounds(const dl_study *S)
{
    MPI_Datatype row;
    MPI_Type_contiguous((int)sizeof(dl_round_result), MPI_BYTE, &row);
    MPI_Type_commit(&row);
    int *counts = NULL, *displs = NULL;
    dl_round_result *all = NULL;
    if (rank_ == 0) {
        counts = dl_xmalloc((size_t)size_ * sizeof *counts);
        displs = dl_xmalloc((size_t)size_ * sizeof *displs);
        for (int k = 0; k < size_; k++) {
            long first, count;
            share(S->rounds, k, &first, &count);
            counts[k] = (int)count; /* rounds <= INT_MAX: dl_ranks_check */
            displs[k] = (int)first;
        }
        all = dl_xmalloc((size_t)S->rounds * sizeof *all);
    }
    MPI_Gatherv(S->per_round, (int)S->count, row, all, counts, displs, row, 0, MPI_COMM_WORLD);
    MPI_Type_free(&row);
    free(counts);
    free(displs);
    return all;
}

int dl_ranks_study_run(dl_study *S, char *err, size_t errlen)
{
    share(S->rounds, rank_, &S->first, &S->count);
    MPI_Barrier(MPI_COMM_WORLD); /* the ranks' clocks start together */
    int rc = dl_study_run(S, err, errlen), bad = rc != 0, anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        free(S->per_round);
        S->per_round = NULL;
        return rc ? rc : dl_fail(err, errlen, "another MPI rank could not run its share");
    }
    long mine[7] = {S->deadlocks, S->events,     S->invocations, S->syncs,
                    S->skips,     S->mismatches, S->corrupts};
    long sum[7];
    MPI_Reduce(mine, sum, 7, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    long first = S->first_deadlock < 0 ? LONG_MAX : S->first_deadlock, first_all;
    MPI_Reduce(&first, &first_all, 1, MPI_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
    double seconds;
    MPI_Reduce(&S->seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int threads;
    MPI_Reduce(&S->threads_used, &threads, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (S->keep_rounds) {
        dl_round_result *all = gather_rounds(S);
        free(S->per_round);
        S->per_round = all;
    }
    if (rank_ == 0) {
        S->deadlocks = sum[0];
        S->events = sum[1];
        S->invocations = sum[2];
        S->syncs = sum[3];
        S->skips = sum[4];
        S->mismatches = sum[5];
        S->corrupts = sum[6];
        S->first_deadlock = first_all == LONG_MAX ? -1 : first_all;
        S->seconds = seconds;
        S->threads_used = threads;
        S->first = 0;
        S->count = S->rounds;
    }
    S->ranks = size_;
    return 0;
}

long dl_ranks_max(long v)
{
    long m = v;
    MPI_Reduce(&v, &m, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    return m;
}
