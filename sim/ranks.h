/* ranks.h: a study split over MPI ranks (build/dlsim-mpi, `make mpi`).
 *
 * Every rank parses the same command line and config; rank k runs rounds
 * [k*R/N, (k+1)*R/N) of the study's R rounds on its own threads
 * (montecarlo.c, the one place that runs rounds), and rank 0 adds up the
 * totals, gathers the per-round rows, prints and writes the outputs.  Round
 * r draws from the stream of (seed, r) whatever process runs it, so the
 * result is the single-process result for any rank count.
 *
 * Implemented by mpi.c, compiled only into dlsim-mpi (-DDL_HAVE_MPI, mpicc).
 * In the plain build the functions below are one-process stand-ins, so the
 * command line has a single code path. */
#ifndef DL_RANKS_H
#define DL_RANKS_H

#include <stddef.h>

#include "montecarlo.h"

#ifdef DL_HAVE_MPI

/* MPI_Init.  Ranks other than 0 send stdout to /dev/null (rank 0 prints
 * every output) and hold their stderr until dl_ranks_agree, so that an
 * error every rank finds (a bad option) is printed once, by rank 0. */
void dl_ranks_init(int *argc, char ***argv);

/* MPI_Finalize; returns rc. */
int dl_ranks_finalize(int rc);

int dl_ranks_rank(void);
int dl_ranks_size(void);

/* Every rank calls it with its status before the study (0 = ready): all
 * get the first nonzero status in rank order, or 0.  A rank that alone
 * failed (e.g. a config file missing on its node) prints its held message
 * with its rank; rank 0's message stands for identical ones. */
int dl_ranks_agree(int rc);

/* Can a study of that many rounds be split over the ranks?  0, or -1 with a
 * message (more ranks than rounds; --rounds-csv beyond what a gather can
 * carry). */
int dl_ranks_check(long rounds, int keep_rounds, char *err, size_t errlen);

/* Runs this rank's share of the study (S->first, S->count are set here) and
 * leaves the study's totals in S on rank 0 (per_round of every round if
 * keep_rounds; seconds: the slowest rank; threads_used: all ranks'). */
int dl_ranks_study_run(dl_study *S, char *err, size_t errlen);

/* The largest v over the ranks, on rank 0 (peak memory of the largest rank). */
long dl_ranks_max(long v);

#else

static inline void dl_ranks_init(int *argc, char ***argv) { (void)argc, (void)argv; }
static inline int dl_ranks_finalize(int rc) { return rc; }
static inline int dl_ranks_rank(void) { return 0; }
static inline int dl_ranks_size(void) { return 1; }
static inline int dl_ranks_agree(int rc) { return rc; }
static inline int dl_ranks_check(long rounds, int keep_rounds, char *err, size_t errlen)
{
    (void)rounds, (void)keep_rounds, (void)err, (void)errlen;
    return 0;
}
static inline int dl_ranks_study_run(dl_study *S, char *err, size_t errlen)
{
    return dl_study_run(S, err, errlen);
}
static inline long dl_ranks_max(long v) { return v; }

#endif
#endif
