/* mproc.h: ranks as separate processes (the multi-process host backend) and
 * the faults injected into them.  The test binary re-executes itself
 * (`pccl-tests --child ...`, through posix_spawn: no fork of a threaded
 * process) once per rank; each child reports on file descriptor 3. */
#ifndef PCCL_TEST_MPROC_H
#define PCCL_TEST_MPROC_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "../../lib/pccl.h"

enum { MP_PH_NONE, MP_PH_INIT, MP_PH_REGISTER, MP_PH_COLL, MP_PH_SYNC, MP_PH_DESTROY, MP_NPH };
enum { MP_KILL = 1, MP_STOP = 2 };

typedef struct {
    int backend;                 /* PCCL_BACKEND_HOST, or _GPU (tests/gpu/pccl_fault.c) */
    int nranks, rank;
    unsigned long long seed;
    int iters, sync, chaos;
    long timeout_ms;             /* PCCL_PEER_TIMEOUT_MS of the communicators */
    int victim, phase, kind;     /* the fault: rank, where, kill or stop (victim -1: none) */
    int slow_ms;                 /* the last rank computes this long before each iteration */
    pcclUniqueId id, reinit;     /* reinit: the survivors' id after a failed init */
    int starve_ms;               /* the last rank, pinned to CPU 0, gets no CPU this long after its first
                                    iteration's invocations (a SCHED_FIFO spin there) */
    int leave_early;             /* mp_leave_case's run instead of the workload (3 ranks) */
} mp_opts;

/* What a rank reports (a line on fd 3, parsed by mp_run). */
typedef struct {
    int reported;                /* the rank's report arrived */
    int err;                     /* the first error a call returned (pcclSuccess: none) */
    double t_err, t_fault;       /* CLOCK_MONOTONIC seconds: the error; the fault (victim) */
    int nfailed, failed[8];      /* pcclCommGetFailedRanks after the error */
    int recovered;               /* collectives after the shrink/re-init completed, exact */
    int wrong;                   /* wrong elements or failed calls outside the fault */
    int threads, maps;           /* left at the end: pccl's threads (named pccl-*), pccl mappings */
    int status;                  /* waitpid's status */
    char msg[400];               /* pcclGetLastError of the error, or of what went wrong */
} mp_report;

/* Where a rank's buffers live: host memory (the default), or the GPU's
 * (tests/gpu/pccl_fault.c sets its own before mp_child_main).  put/get copy
 * between a host staging buffer and a buffer of alloc. */
typedef struct {
    void *(*alloc)(size_t bytes);
    void (*release)(void *p);
    void (*put)(void *dst, const void *host, size_t bytes);
    void (*get)(void *host, const void *src, size_t bytes);
} mp_mem;
extern const mp_mem *mp_mem_ops;

/* The child's entry (main.c: argv[1] == "--child"). */
int mp_child_main(int argc, char **argv);
/* Runs opts->nranks ranks (opts->rank ignored) to the end; a stopped victim
 * is killed once the others are done.  Fills rep[nranks]; returns the
 * number of children that could not be started or reaped in time. */
int mp_run(const mp_opts *opts, mp_report *rep, double deadline_s);
/* /dev/shm entries and children left of an id and the ids derived from it
 * (pcclCommShrink keeps its last 8 random bytes). */
int mp_shm_left(const pcclUniqueId *id);

/* Fault injection, one case per seed: ranks (lo..hi), victim, phase, kill
 * or stop, syncs and chaos drawn from the seed.  Judges every survivor
 * (pcclRemoteError within the deadline, naming the victim; recovered with
 * exact results; no thread, mapping or /dev/shm entry left; the victim
 * reaped).  1 if the case passed, else 0 with why[] saying what failed. */
#define MP_BOOT_S 2        /* PCCL_BOOT_TIMEOUT for the children (unless set): a rank that never joins */
#define MP_TIMEOUT_MS 700  /* PCCL_PEER_TIMEOUT_MS: a stopped rank (well above a 2-core hiccup) */
typedef struct {
    int injected, survived, detected[3]; /* [0] kill -9, [1] SIGSTOP after init, [2] during init */
    double sum[3], max[3];
    char example[3][600];                /* the first error a survivor saw, per kind */
} mp_stats;
/* No fault: n ranks, iterations of the five collectives in random orders
 * (sync: a device synchronization after every invocation; chaos), failure
 * detection on at 500 ms: every rank exact, no error (no false alarm),
 * nothing left.  1 if so, else 0 with why[]. */
int mp_clean_case(int backend, int n, int iters, int sync, int chaos, uint64_t seed, char *why, size_t len);
/* The same with a slow peer: the last rank sleeps slow_ms before each
 * iteration while the others wait on it with invocations in flight. */
int mp_slow_case(int backend, int n, int iters, int slow_ms, char *why, size_t len);
/* A peer that waits for a CPU longer than the timeout (starve_ms, the
 * timeout 500 ms) while the others wait on it: alive, so never failed.
 * -1 (why[] says why) where this process may not use SCHED_FIFO. */
int mp_starved_case(int backend, int n, int starve_ms, char *why, size_t len);
/* A thread on CPU 0 (SCHED_FIFO priority 1 if fifo: none of the others
 * there runs while it does); 0 or an errno.  mp_spin_until: a thread's
 * body that spins until *(double *)arg (ck_now seconds). */
int mp_thread_cpu0(pthread_t *t, int fifo, void *(*fn)(void *), void *arg);
void *mp_spin_until(void *arg);
/* A rank that finished first and left: 3 ranks, a broadcast from rank 1
 * (chain 1 -> 2 -> 0) that rank 2 joins 3 s late; rank 1 completes, destroys
 * and exits after a 1 s wait for the others (PCCL_BOOT_TIMEOUT) while rank
 * 0 still waits.  Ranks 0 and 2 complete it, exact, and rank 2 destroys;
 * then an all-reduce that rank 1 never joins fails on rank 0 with
 * pcclRemoteError naming it.  1 if so, else 0 with why[]. */
int mp_leave_case(int backend, char *why, size_t len);
int mp_fault_case(uint64_t seed, int backend, int lo, int hi, mp_stats *st, char *why, size_t len);
/* Prints the figures (injected, survived, time to detection) to f. */
void mp_print_stats(const mp_stats *st, FILE *f);

#endif
