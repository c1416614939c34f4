/* pccl-perf: an nccl-tests-style benchmark of pccl against NCCL.
 *
 * One process, one host thread per rank (GPU).  For every collective, data
 * type, op and root asked for, and every size of the sweep, each library runs
 * out of place and in place: timed iterations, then data checks against the
 * reference of tests/pccl/check.h.  Both libraries run in the same process on
 * the same GPUs and buffers, one after the other for each size, so the two
 * rows of a size are measured under the same conditions.
 *
 * Files:  options.c (flags), geometry.c (sizes, counts, bus bandwidth),
 * data.c (inputs and reference), rank.c (the rank threads: what runs when),
 * lib_pccl.c, lib_nccl.c (the two libraries behind one interface), dev.c
 * (device memory: CUDA or, in the host build, plain memory), watchdog.c
 * (timeouts and aborts), report.c (table, CSV, JSON), main.c; interfere.c
 * (--interfere: a compute kernel's slowdown from concurrent collectives) with
 * compute.h's kernels (compute.cu; compute_host.c in the host build).
 *
 * Builds: with PERF_HAVE_CUDA and PERF_HAVE_NCCL (nvcc, `make gpu`), or with
 * neither (gcc, the host build: pccl's host backend only, for CI).
 */
#ifndef PCCL_PERF_H
#define PCCL_PERF_H

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../lib/pccl.h"
#include "../../tests/pccl/check.h"
#include "compute.h"

#define PERF_MAX_RANKS 64
#define PERF_MAX_DELAYS 16
#define PERF_MAX_SIZES 4096
#define PERF_MAX_BLOCKS 64 /* pccl daemon blocks (PCCL_BLOCKS at most) */

/* Exit status. */
enum {
    PERF_EXIT_OK = 0,
    PERF_EXIT_ERROR = 1,   /* a CUDA, NCCL or pccl call failed */
    PERF_EXIT_ARGS = 2,    /* bad flag: the message names it */
    PERF_EXIT_TIMEOUT = 3, /* an iteration did not finish within --timeout */
    PERF_EXIT_WRONG = 4,   /* a data check found wrong elements */
    PERF_EXIT_SKIP = 77    /* no GPU */
};

enum { PERF_LIB_NCCL = 0, PERF_LIB_PCCL = 1, PERF_NLIBS = 2 };
/* Timing modes (--timing), both libraries.  b2b: back to back, -n
 * iterations issued as fast as the library takes them, one wait at the end
 * (NCCL: -n launches on the stream; pccl: --pccl-depth invocations in
 * flight); rt: round trip, each iteration waited for before the next. */
enum { PERF_TIMING_B2B = 0, PERF_TIMING_RT = 1, PERF_NTIMINGS = 2 };
#define PERF_MAX_DEPTH 16 /* --pccl-depth */
enum { PERF_AVG_RANK0 = 0, PERF_AVG_MEAN = 1, PERF_AVG_MIN = 2, PERF_AVG_MAX = 3 };

/* ---- options (options.c) --------------------------------------------------- */

typedef struct {
    int nthreads, ngpus, nranks; /* nranks = nthreads * ngpus, one host thread each */
    int ranks_given;             /* -t or -g on the command line */
    size_t minbytes, maxbytes, stepbytes;
    double stepfactor;           /* > 1: multiply; else add stepbytes */
    int iters, warmup, check, blocking, average;
    size_t iter_bytes;           /* 0, or: a size S runs about iter_bytes / S iterations */
    int min_iters;
    double timeout;
    unsigned colls;              /* bit per pcclCollType_t */
    int ntypes, nops;
    pcclDataType_t types[pcclNumTypes];
    pcclRedOp_t ops[pcclNumOps];
    int root;                    /* -1: every rank in turn */
    unsigned libs;               /* bit per PERF_LIB_* */
    unsigned timings;            /* bit per PERF_TIMING_* */
    int pccl_depth;              /* b2b: pccl invocations in flight (copies of each collective) */
    size_t check_max;            /* sizes above it are not checked (0: no limit) */
    uint64_t seed;
    const char *csv, *json;
    int ndelays, delay_rank;     /* preemption-cost mode (--delay-us) */
    long delays_us[PERF_MAX_DELAYS];
    int interfere;               /* --interfere: PERF_KERNEL_* of compute.h, 0 off */
    long interfere_n, interfere_k; /* matrix size or MiB per buffer; launches (0: about INTERFERE_TARGET_S) */
    int overlap;                 /* --overlap: fixed work (K launches, M collectives), makespan */
    long overlap_colls;          /* M (0: about the compute's time alone) */
    int split;                   /* --split: pccl's latency split (PCCL_PROFILE) */
    const char *blocks_csv;      /* --blocks-csv: with --split, a line per size, rank and daemon block */
    int share_gpu;               /* --share-gpu[=M]: rank r on GPU r % M, 0: off (pccl only) */
    const char *times;           /* --times (--pccl-times): each completion's time, to this file (times.c) */
} perf_opts;

/* Parses argv into *o (visible: ranks possible; default_ranks: without -t
 * and -g).  Bad input: message naming the flag, exit PERF_EXIT_ARGS. */
void perf_parse_args(perf_opts *o, int argc, char **argv, int visible, int default_ranks);
void perf_usage(FILE *f);

/* ---- geometry (geometry.c) ------------------------------------------------- */

/* One table: a collective with its type, op and root. */
typedef struct {
    pcclCollType_t coll;
    pcclDataType_t dtype;
    pcclRedOp_t op; /* pcclSum where the collective has none */
    int root;       /* -1 where the collective has none */
} perf_test;

/* One row: a test at one size. */
typedef struct {
    perf_test t;
    size_t bytes;   /* the size column: max(send, recv) bytes, as nccl-tests */
    ck_coll c;      /* the collective as check.h sees it (count as passed to the library) */
    int size_idx;   /* position in the sweep: pccl's collective id follows it */
    int iters, warmup;
} perf_case;

const char *perf_coll_name(pcclCollType_t c); /* all_reduce ... as nccl-tests' binaries */
const char *perf_type_name(pcclDataType_t t); /* float, half ... as nccl-tests */
const char *perf_op_name(const perf_test *t); /* sum ... or "none" */
int perf_parse_coll(const char *s);           /* -1 if unknown */
int perf_parse_type(const char *s);
int perf_parse_op(const char *s);
/* The sweep: sizes from minbytes to maxbytes.  Returns how many (0: none). */
int perf_sizes(const perf_opts *o, size_t *out, int cap);
/* Fills *k for test t at `bytes`; returns 0 when the count is 0 (no row). */
int perf_case_make(const perf_opts *o, const perf_test *t, size_t bytes, int nranks, int size_idx, perf_case *k);
double perf_busbw_factor(pcclCollType_t c, int nranks);
/* Where iteration `iter` of rank `rank` reads and writes: nccl-tests moves
 * the buffers by one collective's size per iteration within the allocation. */
void perf_ptrs(const perf_case *k, int rank, char *send, char *recv, size_t alloc, int inplace, int iter,
               void **s, void **r);

/* ---- device memory (dev.c) ------------------------------------------------- */

int dev_count(void); /* GPUs visible (host build: PERF_MAX_RANKS) */
int dev_set(int dev);
void *dev_alloc(size_t bytes);
void dev_free(void *p);
int dev_h2d(void *dst, const void *src, size_t n);
int dev_d2h(void *dst, const void *src, size_t n);
const char *dev_last_error(void);
/* "GPU 0: NVIDIA H200; ..." or "host backend (no GPU)" */
void dev_describe(char *buf, size_t len, int ndev); /* GPUs 0 .. ndev-1 */

/* ---- the team of rank threads (rank.c) ------------------------------------ */

typedef struct perf_team perf_team;

typedef struct {
    struct perf_rank *R;
    int id;               /* pccl collective id */
    const perf_case *k;
    int inplace, next, end, step; /* iterations next, next + step, ... below end */
    volatile int status;  /* first error seen by the callback */
} perf_chain;

typedef struct perf_rank {
    perf_team *T;
    int rank, dev;
    pthread_t tid;
    char *send, *recv;          /* device buffers, T->alloc bytes each */
    char *hin, *hgot, *hown;    /* host: inputs, what came back, own reference */
    int *pccl_id;               /* this test's collective ids: [size index * pccl_depth + copy] */
    pcclComm_t pcomm;           /* this test's pccl communicator (rank 0 creates them) */
    perf_chain chain[PERF_MAX_DEPTH];
    void *nccl;                 /* lib_nccl.c's per-rank state */
    double sec;                 /* last timing of this rank */
    long long wrong;            /* last check of this rank */
    char msg[512];              /* its first mismatch */
    uint64_t preempt0, quits0;  /* pccl counters before a delay run */
    /* --interfere (interfere.c) */
    perf_compute *compute;
    double cms, cms_alone;      /* compute milliseconds: last scenario, alone */
    long long iters;            /* collectives of the last scenario */
    pcclStats_t st0, st1;       /* pccl counters around it */
    pcclSliceStats_t slice0;    /* pccl's relaunch split at the end of the last size (lib_pccl.c) */
    pcclStats_t size0;          /* pccl's counters at the end of the last size (lib_pccl.c) */
    pcclStats_t bst0[PERF_MAX_BLOCKS], bst1[PERF_MAX_BLOCKS]; /* --split: per daemon block */
    int nblk;
    long cwrong;                /* compute samples wrong */
    char cmsg[256];
    uint64_t *times;            /* --times: this rank's completions of the running run (times.c) */
    int ntimes, tcap, truns;
    int rt_timed;               /* rank.c: inside a row's timed round trips (--times writes each) */
} perf_rank;

/* A result: one library, one placement, one case. */
typedef struct {
    perf_test t;
    int lib, inplace, nranks, iters, warmup;
    int timing;      /* PERF_TIMING_* */
    size_t bytes, count;
    double time_us, algbw, busbw;
    long long wrong; /* -1: not checked */
    long delay_us;   /* -1: not a delay run */
    double preempt_per_iter, quits_per_iter; /* pccl, delay runs; else -1 */
    double ratio, dtime_us; /* pccl rows when NCCL ran too: NCCL time / pccl time, difference; else NAN */
} perf_row;

/* An --interfere result: one scenario.  Not applicable: -1 (lib, counts) or NAN. */
typedef struct {
    const char *scenario;   /* alone, nccl, pccl, pccl-stuck, alone-again */
    int lib;                /* -1: compute only */
    int gpu0_only;          /* pccl-stuck: GPU 0's figures (the others have no daemon) */
    double ms_mean, ms_max, ms_alone; /* compute time of the K launches; alone's, same GPUs */
    double slowdown_pct;    /* ms_mean / ms_alone - 1, in % */
    double rate;            /* TFLOP/s (gemm) or GB/s (stream), from ms_mean */
    long long colls;        /* collectives completed during the window, per rank */
    double window_ms, busbw, busbw_alone, bw_ratio; /* window: the collective loop, mean over ranks */
    long long wrong;        /* collectives' wrong elements; -1: not checked */
    double preempt, quits, launches; /* pccl, per GPU (preempt: summed over daemon blocks) */
    double release_ms;      /* pccl-stuck: rank 0's wait once the others submitted */
    double others_pct;      /* pccl-stuck: slowdown of the other GPUs (no daemon) */
} perf_irow;

struct perf_team {
    const perf_opts *o;
    int argc;
    char **argv;
    int nranks;
    perf_test *tests;          /* every table, in order */
    int ntests;
    size_t *sizes;             /* the sweep */
    int nsizes;
    size_t alloc;              /* bytes of each device buffer */
    perf_rank rank[PERF_MAX_RANKS];
    pthread_barrier_t bar;
    char *hexp;                /* the reference shared by all ranks */
    size_t hexp_bytes;
    pcclComm_t pcomm[PERF_MAX_RANKS];
    pcclUniqueId pid;          /* --share-gpu: the id every rank thread joins */
    perf_row *rows;            /* every result, for CSV and JSON */
    int nrows, cap;
    perf_irow *irows;          /* --interfere's results */
    int nirows;
    int norows;                /* --overlap's rows (CSV and table only) */
    long interfere_k;          /* launches per scenario, as chosen */
    int ifr_done[2][PERF_MAX_RANKS]; /* interfere.c's stop rule, by batch parity */
    double ifr_bw_alone[PERF_NLIBS];
    double ifr_coll_s[PERF_NLIBS];  /* seconds per collective alone (the baseline loop) */
    long overlap_m;                 /* --overlap: collectives per rank, as chosen */
    double ovl_alone_ms, ovl_colls_ms[PERF_NLIBS]; /* --overlap: each alone, wall, slowest rank */
    char ifr_kernel[256];      /* the compute kernel, described */
    long long wrong_total;
    int unchecked;             /* rows not checked (above --check-max) */
    FILE *csv;
    FILE *bcsv;                /* --blocks-csv */
};

/* Runs everything on nranks threads; returns the exit status. */
int perf_team_run(perf_team *T);
void perf_barrier(perf_rank *R);

/* times.c: --times FILE, every completion's time (pccl: b2b and rt; NCCL: rt) */
void perf_times_open(const char *path);
void perf_times_close(perf_team *T);
void perf_times_begin(perf_rank *R, int n);
void perf_times_add(perf_rank *R);
void perf_times_end(perf_rank *R, const perf_case *k, int inplace, int timing, int lib);
/* Test knob PCCL_PERF_TEST_CORRUPT=LIB: one wrong element in rank 0's
 * out-of-place output of LIB, before the check reads it (rank.c). */
void perf_plant_wrong(perf_rank *R, const perf_case *k, int lib, int inplace);

/* ---- the libraries (lib_pccl.c, lib_nccl.c) ------------------------------- */

typedef struct {
    const char *name;
    int available;
    /* main thread, before the rank threads start / after they ended */
    int (*setup)(perf_team *T);
    void (*teardown)(perf_team *T);
    /* every rank, at the start and end of a test (between barriers) */
    int (*test_begin)(perf_rank *R, const perf_case *cases, int ncases);
    int (*test_end)(perf_rank *R);
    /* iterations [iter0, iter0+n) of case k on this rank, issued as fast as
     * the library allows (see rank.c), returning once all completed */
    int (*run)(perf_rank *R, const perf_case *k, int inplace, int iter0, int n);
    /* after this library's work: nothing of it may still run on the GPU */
    int (*quiesce)(perf_rank *R);
    /* counters for delay and --interfere runs (may be NULL); read them with
     * the library quiesced */
    void (*counters)(perf_rank *R, pcclStats_t *st);
    /* watchdog: abort everything this library has in flight */
    void (*abort_all)(perf_team *T);
    const char *(*version)(void);
} perf_lib;

/* NCCL as nccl-tests runs it (lib_nccl.c): in the benchmark the first rank
 * of each thread group of -g ranks (its leader) issues the group's
 * iterations; elsewhere (--delay-us, --interfere, --split) each rank its own. */
int perf_nccl_grouped(const perf_opts *o);
int perf_nccl_leader(const perf_opts *o, int rank);
const char *perf_timing_name(int timing); /* "b2b", "rt" */

extern const perf_lib perf_lib_pccl;
extern const perf_lib perf_lib_nccl;
const perf_lib *perf_lib_get(int lib);
/* pccl outside perf_lib (--interfere's pccl-stuck): invoke case k out of
 * place without waiting; wait for it (watchdog armed). */
void perf_pccl_submit(perf_rank *R, const perf_case *k);
/* --split: each daemon block's counters into st[0 .. blocks-1]; returns blocks */
int perf_pccl_block_counters(perf_rank *R, pcclStats_t *st, int max);
void perf_pccl_wait(perf_rank *R, const perf_case *k);
/* Rank 0, after a size's rows: each rank's relaunches after pccl's time
 * slice during that size (nothing where there were none). */
void perf_pccl_size_report(perf_team *T, const perf_case *k);

/* ---- --interfere (interfere.c) ---------------------------------------------------- */

#define PERF_INTERFERE_TARGET_S 1.5 /* default K: about this long alone on the slowest GPU */
#define PERF_INTERFERE_BASE_S 0.5   /* each library alone: its collective loop runs this long */
#define PERF_INTERFERE_BATCH 4      /* collectives back to back between two stop decisions */

/* Every scenario on case k, on every rank (instead of the size's timing). */
void perf_interfere_run(perf_rank *R, const perf_case *k);

/* ---- data (data.c) --------------------------------------------------------- */

/* Host buffers for checks (called once, when checks are on). */
int perf_data_alloc(perf_team *T);
/* Rank R's inputs for check seed into R->hin and its share of the
 * reference; every rank must call it, then meet in a barrier. */
void perf_data_prepare(perf_rank *R, const perf_case *k, uint64_t seed);
/* Loads the inputs (and the sentinel) into the device buffers of iteration 0. */
int perf_data_load(perf_rank *R, const perf_case *k, int inplace);
/* Fetches iteration 0's output and counts wrong elements (msg: the first). */
long long perf_data_verify(perf_rank *R, const perf_case *k, int inplace);

/* ---- watchdog (watchdog.c) --------------------------------------------------- */

void perf_wd_start(perf_team *T, double timeout);
void perf_wd_stop(void);
void perf_wd_arm(void);      /* a rank waits for the GPU (library call) */
void perf_wd_disarm(void);
void perf_wd_progress(void); /* an iteration completed */
int perf_aborting(void);     /* set once: leave polling loops */
/* Prints the message, aborts every library's communicators and _exits. */
void perf_fatal(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
void perf_set_where(int rank, const char *what); /* for the timeout report */

/* ---- report (report.c) --------------------------------------------------------- */

void perf_report_header(perf_team *T);
void perf_report_table_begin(perf_team *T, const perf_test *t);
/* rows[lib][inplace] of one size; a library not run has rows[lib][0].lib < 0 */
void perf_report_size(perf_team *T, const perf_case *k, perf_row rows[PERF_NLIBS][2]);
void perf_report_delay_begin(perf_team *T, const perf_test *t);
void perf_report_delay(perf_team *T, const perf_case *k, perf_row rows[PERF_NLIBS]);
/* --split: one row per size; pccl's figures are us per invocation, mean over
 * ranks and daemon blocks; NAN where not measured */
typedef struct {
    double nccl_us, pccl_us;
    double sq, wait, exec, commit, cq, life; /* pcclStats_t's *Ns, per invocation and block */
    double preempt;                          /* per invocation and block */
    double slowest; /* the slowest block's mean SQ-to-CQ time (us), over ranks and blocks */
} perf_split;
void perf_report_split_begin(perf_team *T, const perf_test *t);
void perf_report_split(perf_team *T, const perf_case *k, const perf_split *s);
/* --blocks-csv: every rank's daemon blocks over the timed iterations (the
 * ranks' bst0 -> bst1) */
void perf_report_split_blocks(perf_team *T, const perf_case *k);
/* A block's mean in us per invocation: ns summed over n invocations; NAN if none. */
static inline double perf_us_per(uint64_t ns, uint64_t n) { return n ? (double)ns / (double)n / 1e3 : NAN; }
void perf_report_add(perf_team *T, const perf_row *r);
void perf_report_interfere_begin(perf_team *T, const perf_case *k);
void perf_report_interfere(perf_team *T, const perf_case *k, const perf_irow *r);
void perf_report_interfere_note(perf_team *T, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* --overlap: one row per scenario (alone, LIB-alone, LIB+kernel); NAN: not applicable */
typedef struct {
    const char *scenario;
    int lib;                /* -1: the compute alone */
    int blocks;             /* pccl's daemon blocks; -1 */
    long long colls;        /* collectives per rank; 0 */
    double compute_ms;      /* the K launches, CUDA events, mean over GPUs */
    double colls_ms;        /* the M collectives, wall, slowest rank */
    double makespan_ms;     /* start to the end of both, wall, slowest rank */
    double vs_compute, vs_colls, vs_serial, vs_ideal; /* makespan / compute alone, / colls alone,
                                                         / their sum, / their max */
    long long wrong;
} perf_orow;
void perf_report_overlap_begin(perf_team *T, const perf_case *k);
void perf_report_overlap(perf_team *T, const perf_case *k, const perf_orow *r);
void perf_report_summary(perf_team *T);
int perf_report_open_csv(perf_team *T); /* before the run; 0 ok */
int perf_report_files(perf_team *T);    /* closes the CSV, writes the JSON; 0 ok */

double perf_now(void);

#endif
