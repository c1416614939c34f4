/* mproc.h: ranks as separate processes (the multi-process host backend) and
 * the faults injected into them.  The test binary re-executes itself
 * (`pccl-tests --child ...`, through posix_spawn: no fork of a threaded
 * process) once per rank; each child reports on file descriptor 3. */
#ifndef PCCL_TEST_MPROC_H
#define PCCL_TEST_MPROC_H

#include "../../lib/pccl.h"

enum { MP_PH_NONE, MP_PH_INIT, MP_PH_REGISTER, MP_PH_COLL, MP_PH_SYNC, MP_PH_DESTROY, MP_NPH };
enum { MP_KILL = 1, MP_STOP = 2 };

typedef struct {
    int nranks, rank;
    unsigned long long seed;
    int iters, sync, chaos;
    long timeout_ms;             /* PCCL_PEER_TIMEOUT_MS of the communicators */
    int victim, phase, kind;     /* the fault: rank, where, kill or stop (victim -1: none) */
    pcclUniqueId id, reinit;     /* reinit: the survivors' id after a failed init */
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

/* The child's entry (main.c: argv[1] == "--child"). */
int mp_child_main(int argc, char **argv);
/* Runs opts->nranks ranks (opts->rank ignored) to the end; a stopped victim
 * is killed once the others are done.  Fills rep[nranks]; returns the
 * number of children that could not be started or reaped in time. */
int mp_run(const mp_opts *opts, mp_report *rep, double deadline_s);
/* /dev/shm entries and children left of an id and the ids derived from it
 * (pcclCommShrink keeps its last 8 random bytes). */
int mp_shm_left(const pcclUniqueId *id);

#endif
