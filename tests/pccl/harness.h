/* harness.h: plumbing of the host-backend suite (CUnit glue, communicators,
 * a batch runner).  The reference itself is in check.h. */
#ifndef PCCL_TEST_HARNESS_H
#define PCCL_TEST_HARNESS_H

#include <stdio.h>

#include <CUnit/CUnit.h>

#include "check.h"

#define PT_MAX_RANKS 8

/* Each test file registers one suite; 0, or -1 if CUnit could not. */
int pt_register_correctness(void);
int pt_register_deadlock(void);
int pt_register_chaos(void);
int pt_register_priority(void);
int pt_register_api(void);
int pt_register_callbacks(void);
int pt_register_initrank(void);
int pt_register_abort(void);
int pt_register_regressions(void);
int pt_register_fuzz(void);
int pt_register_multiproc(void);
int pt_register_faults(void);
int pt_register_stream(void);
int pt_register_share(void);
int pt_register_offset(void);
int pt_register_proto(void);
int pt_register_hostpath(void);
int pt_register_dump(void);
int pt_register_sqcq(void);

/* A failed CUnit assertion carrying a formatted message (also printed to
 * stderr).  Main thread only (CUnit is not thread-safe): worker threads count
 * failures and keep a message, the test asserts afterwards. */
void pt_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define PT_FAIL(...) pt_fail(__FILE__, __LINE__, __VA_ARGS__)
#define PT_CHECK(cond, ...)                             \
    do {                                                \
        if (cond) {                                     \
            CU_PASS(#cond);                             \
        } else {                                        \
            pt_fail(__FILE__, __LINE__, __VA_ARGS__);   \
        }                                               \
    } while (0)
/* A pccl call that must succeed. */
#define PT_OK(call)                                                                              \
    do {                                                                                         \
        pcclResult_t pt_r_ = (call);                                                             \
        PT_CHECK(pt_r_ == pcclSuccess, "%s -> %s (%s)", #call, pcclGetErrorString(pt_r_),         \
                 pcclGetLastError(NULL));                                                        \
    } while (0)
/* A pccl call that must fail with `want`. */
#define PT_ERR(want, call)                                                                       \
    do {                                                                                         \
        pcclResult_t pt_r_ = (call);                                                             \
        PT_CHECK(pt_r_ == (want), "%s -> %s, expected %s", #call, pcclGetErrorString(pt_r_),      \
                 pcclGetErrorString(want));                                                      \
    } while (0)

/* stderr into a temporary file between begin and end; end returns what was
 * printed (malloc'd; NULL on failure).  begin returns 0 on success. */
typedef struct {
    int fd, saved;
    char path[40];
} pt_stderr;
int pt_stderr_begin(pt_stderr *s);
char *pt_stderr_end(pt_stderr *s);
/* How many times `what` occurs in `text` (not overlapping). */
int pt_count_of(const char *text, const char *what);

/* Arms the watchdog (check.h) for this test: `seconds` without a kick aborts. */
void pt_begin(const char *test, double seconds);
void pt_end(void);

/* A host-backend config: backend, blocks and chunk set (-1: default), a
 * modest arena. */
pcclConfig_t pt_config(int blocks, long chunk_bytes);
/* pcclCommInitAllConfig; 0 on success (asserted). */
int pt_init(pcclComm_t *comms, int n, const pcclConfig_t *cfg);
void pt_destroy(pcclComm_t *comms, int n);
/* An environment-only knob: each of the bad values refused at init with
 * pcclInvalidArgument, the message naming the variable (asserted). */
void pt_check_env_refused(const char *env, const char *const *bad, int nbad);
/* Registers c on comm with the call of its type. */
pcclResult_t pt_register(pcclComm_t comm, const ck_coll *c, int priority, int *id);
/* Prints every communicator's statistics (a watchdog dump). */
typedef struct {
    pcclComm_t *comms;
    int n;
} pt_comms;
void pt_dump_stats(void *pt_comms_arg);

/* One collective of a batch. */
typedef struct {
    ck_coll c;
    int priority;
    int inplace;
    int null_unused; /* pass NULL for the buffer a rank does not use */
} pt_case;

/* Registers every case on every rank (the ids must agree), then `rounds`
 * times: prepares every rank's buffers, invokes all cases on every rank
 * (in the given order; with `reverse_odd`, odd ranks in reverse: opposite
 * orders, which preempt), waits, and checks
 * every rank's result against the reference.  Returns the number of wrong
 * results (each reported as a CUnit failure, the first few with a message). */
int pt_run_cases(pcclComm_t *comms, int n, const pt_case *cases, int ncases, uint64_t seed, int rounds,
                 int reverse_odd);

/* The element types the matrices below run: all ten, or under TSan three
 * that stand for them (pt_types sets *types and returns their count). */
int pt_types(const pcclDataType_t **types);
/* n, or 1 under TSan: a test's own list of types cut to its first there. */
int pt_tsan_types(int n);
/* An environment variable set for a test, while no communicator is alive:
 * pt_env_push sets it (value NULL: unsets it) and returns what pt_env_pop
 * puts back. */
typedef struct {
    const char *name;
    char *old;
} pt_env;
pt_env pt_env_push(const char *name, const char *value);
void pt_env_pop(pt_env e);

/* 1 in the TSan build, where a test may run fewer rounds or sizes of the
 * same schedule logic (the optimized and ASan+UBSan builds run them all). */
int pt_under_tsan(void);

/* Every collective x op x type at each count, in place and out of place,
 * on one communicator of n ranks speaking `proto` (test_correctness.c). */
void pt_correctness(int n, int blocks, long chunk, int proto, const size_t *counts, int ncounts);
/* Chaos mode over every collective x op x type at the given counts, all in
 * flight together (test_chaos.c). */
void pt_chaos_matrix(int n, int blocks, long chunk, int ilv, int dyn, int proto, const size_t *counts, int ncounts,
                     int reverse_odd);

/* The rendezvous file lib/bootstrap.c makes for a unique id (its naming,
 * mirrored here): pt_boot_path fills buf; pt_boot_unlink removes a file a
 * failed join left behind (see regressions). */
void pt_boot_path(const pcclUniqueId *id, char *buf, size_t len);
int pt_boot_unlink(const pcclUniqueId *id);

/* The random-order test (randorder.c). */
typedef struct {
    const char *name;
    int G, iters;
    int sync;     /* pcclDeviceSynchronize after every invocation */
    int opposite; /* not random: even ranks forward, odd ranks backward */
    int prio;     /* register the collectives with distinct priorities */
    int blocks;
    long chunk;
    int chaos, order;                     /* config; -1: default */
    long spin_head, spin_base, spin_min;  /* config; -1: default */
    int sticky;
    long quit_us, relaunch_us;
    uint64_t seed;
    double watchdog_s;
    /* Stream-ordered (pcclRunOnStream): each collective on its own host
     * stream per rank; its inputs written by a stream function before it
     * (after up to streams_delay_us), its output checked by one after it.
     * With sync, a second thread per rank calls pcclDeviceSynchronize in a
     * loop meanwhile (a synchronization after each invocation would wait for
     * that collective by definition, for any library). */
    int streams;
    int streams_delay_us;
    /* A second thread per rank calls pcclDeviceSynchronize at random points
     * (0-2 ms apart) while the rank runs the random orders, each timed
     * (sync_max_s): issue 22's cross-rank sharing test, host edition. */
    int sync_thread;
    long slice_us; /* config sliceUs; -1: the environment's or the default */
    long watch_us; /* config watchUs; -1: the environment's or the default */
} pt_rand_opts;
typedef struct {
    uint64_t completed[PT_MAX_RANKS];
    uint64_t preemptions; /* summed over ranks */
    uint64_t crossed;     /* of them, for a neighbour's wait (pcclStats_t.crossed) */
    uint64_t quits_min;   /* the fewest quits of any rank */
    uint64_t launches;
    uint64_t syncs_min;   /* streams with sync: the fewest synchronizations a rank's second thread made */
    double sync_max_s;    /* the second threads' longest synchronization */
    double sync_sum_s;    /* and their total time */
    uint64_t syncs;       /* in how many */
    int failures;
    double seconds;
} pt_rand_stats;
/* Test-friendly knobs (small spin thresholds, short quit), 1 block. */
void pt_rand_defaults(pt_rand_opts *o, const char *name, int G, int iters);
/* Runs it, asserting exact results and completions = iters * collectives on
 * every rank; fills *st for further assertions. */
int pt_random_order(const pt_rand_opts *o, pt_rand_stats *st);

/* The process's threads (/proc/self/task), to see pollers and daemon
 * threads end; -1 if unreadable.  pt_threads_settle waits up to 10 s for
 * the count to fall to base and returns the count then. */
int pt_thread_count(void);
int pt_threads_settle(int base);

#endif
