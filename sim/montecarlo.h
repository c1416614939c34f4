/* montecarlo.h: a study = many independent rounds, spread over threads.
 *
 * Threads take round indices from a shared counter; round r draws from the
 * stream of (seed, r) (rng.h) and all totals are sums of integers, so the
 * result does not depend on the thread count.  A process may run a share of
 * the rounds only (first, count): MPI ranks split a study that way and add
 * up their totals (ranks.h, mpi.c), with the same result as one process.
 *
 * The stream (play.h): by default every GPU has its own generator with
 * geometric gaps between rare events, and rounds that the schedule-free
 * evaluator can decide are decided by it; exact_stream selects the plain
 * per-candidate stream of one generator per round (--exact-stream). */
#ifndef DL_MONTECARLO_H
#define DL_MONTECARLO_H

#include "engine.h"

/* Per-round details (--rounds-csv). */
typedef struct dl_round_result {
    unsigned char deadlock;
    unsigned char corrupt; /* completed with a mismatch (matching by order) */
    long steps, events, invocations, syncs, skips;
    long deadlock_event; /* -1 if completed */
} dl_round_result;

typedef struct dl_study {
    /* inputs */
    const dl_layout *L;
    dl_params P;
    long rounds;
    unsigned long seed;
    const char *rng;  /* GSL generator name */
    int threads;      /* 0 = one per core */
    int verify;       /* check every event with the igraph checker too */
    int progress;     /* progress line with ETA on stderr */
    int keep_rounds;  /* fill per_round */
    int exact_stream; /* the plain stream: one uniform draw per action and candidate */
    int engine_only;  /* every round in the lockstep engine (tests: no schedule-free shortcut) */
    int semantics;    /* DL_SEM_EXACT, DL_SEM_REFERENCE[_NODROP] (reference.h): whose rules decide */
    long first, count; /* this process's share: rounds [first, first + count); count 0 = all */

    /* outputs, over the share */
    long deadlocks, events, invocations, syncs, skips, mismatches;
    long corrupts;       /* rounds completed with two collectives matched (matching by order) */
    long first_deadlock; /* smallest deadlocked round index, -1 if none */
    double seconds;
    int threads_used;
    int ranks;        /* processes that ran the study (1; MPI: the ranks) */
    dl_round_result *per_round; /* [count] (round first + k at k) if keep_rounds; caller frees */
} dl_study;

/* Runs the study (its share); 0, or -1 with a message in err (unknown
 * generator, a share outside 0..rounds). */
int dl_study_run(dl_study *S, char *err, size_t errlen);

/* Cores available to this process. */
int dl_cores(void);

#endif
