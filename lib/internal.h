/* pccl internals shared by the API's files (comm.c, register.c, run.c,
 * poller.c, ...) and the backends.  Not installed. */
#ifndef PCCL_INTERNAL_H
#define PCCL_INTERNAL_H

#include <pthread.h>
#include <stdio.h>

#include "core.h"
#include "pccl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pccl_backend pccl_backend;
typedef struct pccl_boot pccl_boot;

/* What the host keeps per registered collective. */
typedef struct {
    pccl_coll dev;            /* the static context, as uploaded          */
    int ready;                /* uploaded: registration is complete        */
    size_t in_bytes, out_bytes;
    int inflight;             /* an invocation was submitted, not completed */
    int sleepers;             /* threads asleep on the cv for it (pcclWait, pcclWaitRun: pccl_sleep_locked) */
    int direct;               /* ... one the daemon does not run: one rank's, in place or a copy (direct.c) */
    int in_callback;
    pcclResult_t status;      /* of the last completed invocation          */
    pcclCallback_t cb;
    void *cb_arg;
    uint64_t completions;
    uint64_t issued;          /* invocations issued, ever: the daemon's count too (ctx.inv) */
    uint64_t submits;         /* invocations written to the SQ, ever (run.c, place_group) */
    uint64_t waited;          /* the latest ticket a stream waits for (pcclStreamWaitRun) */
    int held_pos;             /* its place in the held set (stream.c), -1: not held */
    /* Stream-ordered invocations issued while one is in flight (stream.c):
     * submitted in order as each completes; their gates are already on
     * their streams. */
    int npend, pend_head;
    pccl_args pend[PCCL_GATE_SLOTS];
    /* PCCL_TRACE_LAT (trace.c): host stamps of the invocation in flight */
    uint64_t tr_call, tr_ret, tr_sq, tr_sq_clk, tr_seen;
    int64_t tr_rec; /* its record, until a waiter woke (-1: none) */
} pccl_hcoll;

/* Ranks of one process that share arenas (pcclCommInitAll, or InitRank from
 * threads of one process): the arenas are freed when the last rank leaves,
 * since a peer may still write into ours while it finishes. */
typedef struct pccl_group pccl_group;

/* slice.c: the relaunch cost split, accumulating (mu held). */
typedef struct {
    pcclSliceStats_t sum;
    uint64_t cut_launch; /* the launch number the slice cut, its relaunch pending (0: none) */
    uint64_t prev_end, late_ns, drain_ns, block_idle_ns, gap_ns, launch_ns;
    uint64_t cut_at;     /* the cut launch's first cut (daemon clock), for PCCL_SLICE_LOG */
    int on_grid;         /* the cut launch had a grid deadline and was cut at it */
    uint64_t told, due;  /* ... its deadline as told (0: none) and as its first block took it (daemon clock) */
    uint64_t call_ns;    /* the latest launch call's start (host clock) */
    uint64_t call_end_ns; /* ... and its return, for the clock offset's sample (slice.c) */
    uint64_t deadline;   /* its slice's end as told to the daemon (its clock; 0: none told) */
    uint64_t end_ns;     /* the same on the host's clock, as the poller expects it */
    int64_t off;         /* daemon clock - host clock at a launch call, least seen lately */
    int off_known;
    int off_good;         /* ... from a launch call the driver did not hold (call_short_ns) */
    uint64_t since_good;  /* launches queued ahead since the last good sample */
    int idle_end;         /* the next invocation relaunches one its slice ended idle (run.c): no slice cost */
    /* PCCL_SLICE_LOG: one line per relaunch measured (slice.c) */
    FILE *log;
    uint64_t queued;     /* invocations outstanding at the relaunch call */
    uint64_t owed;       /* ... of which the daemon had not completed (not in the CQ) */
    uint64_t cq1_ns;     /* host: the relaunch call to the first completion seen after it (0: none yet) */
    int want_cq1;
    uint64_t done_at_end; /* c->completed when the poller saw the last launch end */
    uint64_t ended_ns;    /* host: when the poller first saw the latest launch's end in pinned memory (hdr->ended) */
    uint64_t cut_ended_ns; /* ... the cut launch's, for PCCL_SLICE_LOG */
    /* A launch queued ahead (poller.c, PCCL_SLICE_AHEAD_US): its call, its
     * deadline and end as planned, kept here until the launch before it
     * ends (call_ns, deadline and end_ns stay the running launch's) */
    uint64_t next_call_ns, next_deadline, next_end_ns, next_launch_ns;
    uint64_t ahead_epoch; /* the latest launch made ahead: its start tells nothing of the clocks' offset */
} pccl_slice_acc;

/* health.c: a thread of a peer process as /proc showed it, for the
 * starvation rule (its id, the CPU time it has had). */
typedef struct {
    int32_t tid;
    uint64_t cpu_ns;
} pccl_tlook;
#define PCCL_RUNQ_LOOK 8 /* a silent peer's runnable threads remembered, at most */
int pccl_waited_for_cpu(const pccl_tlook *then, int nthen, const pccl_tlook *now, int nnow, uint64_t span_ns);

struct pcclComm {
    int rank, nranks, dev;
    const pccl_backend *be;
    void *bk;                   /* the backend's own state */
    pccl_gpu G;                 /* what the daemon sees (device pointers) */
    size_t arena_bytes, arena_used;
    long chunk_bytes;
    int proto;                  /* PCCL_PROTO: PCCL_PROTO_AUTO, _SIMPLE or _LL (core.h) */
    int algo;                   /* PCCL_ALGO: PCCL_ALGO_AUTO, _RING, _DIRECT, _ONESHOT or _TWOSHOT */
    pccl_group *group;
    int group_slot;
    int multiprocess;           /* peers' arenas mapped through CUDA IPC */
    pccl_boot *boot;            /* the rendezvous file, kept for destroy */

    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_cond_t poll_cv;     /* pcclRun wakes a sleeping poller */
    pccl_hcoll *colls;
    int ncolls;
    uint64_t submitted, outstanding, completed, cq_head;
    uint64_t sq_tail; /* entries written into block 0's SQ */
    uint64_t submitted_at_launch, launches;
    uint64_t launched_ns;       /* when the daemon was last launched (its slice's start) */
    int64_t slice_gap_ns;       /* PCCL_SLICE_GAP_US: the pause before a relaunch after a slice */
    uint64_t slice_ahead_ns;    /* PCCL_SLICE_AHEAD_US: the relaunch is queued this long before the slice's end */
    int ahead;                  /* a launch is queued behind the running one (epoch G.epoch; poller.c) */
    int launching;              /* the poller makes that launch, mu let go meanwhile */
    int slice_align;            /* PCCL_SLICE_ALIGN (slice.c) */
    int slice_default;          /* PCCL_SLICE_US was not set: the watch may lengthen it */
    int chunk_default;          /* PCCL_CHUNK_BYTES was not set: one rank's chunk may grow (register.c) */
    int watch;                  /* the watch's source (watch.c): 0 none, 1 CUPTI, 2 the host backend's calls */
    uint64_t watch_ns;          /* PCCL_WATCH_US: a call this long in progress asks for a cut */
    uint64_t watch_last;        /* the last cut asked for (0: none) */
    uint64_t watch_asks;        /* cuts asked for */
    uint64_t watch_firsts;      /* pccl_watch_firsts() when last looked at */
    int64_t relaunch_ns, backoff_ns, quit_seen_ns;
    uint64_t poll_hot_ns;       /* the poller spins this long after an event */
    uint64_t call_short_ns;     /* a launch call shorter than this did not wait in the driver (slice.c) */
    uint64_t running_seen_ns;   /* when the daemon was last seen running */
    int was_running, callbacks;
    int sleepers_all;           /* threads asleep on cv for the whole communicator (pcclWaitAll, destroy) */
    int users;                  /* API calls inside, under the global lock */
    int stopping, aborted;
    int deferred;               /* destroyed or aborted from its own callback (comm.c) */
    struct pccl_gwatch *gwatch; /* stream.c: gated invocations in flight, their gates watched */
    int ngwatch;
    /* direct.c: one rank's invocations the daemon does not run, whose
     * completions (a copy's end) or callbacks the poller owes: a ring of
     * PCCL_QUEUE_DEPTH, in pcclRun's order; ndirect, direct_head and the
     * entries are read without mu by spins (pccl_direct_ready) */
    struct pccl_direct *directq;
    int direct_head, ndirect;
    uint64_t copies;            /* one rank's copies issued (be->copied counts those done; read without mu) */
    uint64_t direct_runs;       /* direct invocations issued, ever (the poller's sign of activity) */
    size_t one_rank_copy_bytes; /* PCCL_ONE_RANK_COPY_BYTES: out of place from this size a copy (0: never) */
    /* stream.c: the streams that carry a wait on a collective not yet
     * complete, against the hardware queues CUDA runs them on
     * (PCCL_STREAM_QUEUES; 0: not checked): warned once */
    struct pccl_swait *swaits;
    int nswaits, cap_swaits, stream_queues, queues_warned;
    int nheld;                  /* stream.c: collectives a stream waits for, not complete (hdr->hold) */
    int *held;                  /* stream.c: their ids (the daemon checks PCCL_HOLD_SET of them itself) */
    pthread_t poller;
    int poller_started;
    char err[512];              /* error.c: the last error no caller was given (the poller's, a failure) */
    uint64_t err_seq, born_seq; /* error.c: its number, and the count when c was made */
    /* Faults (health.c): a dead or stalled peer fails the communicator. */
    pcclUniqueId id;            /* pcclCommShrink derives the new one from it */
    uint64_t peer_timeout_ns;   /* PCCL_PEER_TIMEOUT_MS; 0: never a stall */
    pcclResult_t failed;        /* pcclRemoteError once a peer failed */
    char fail_why[400];         /* which rank, what happened, which collectives */
    int shrinks;                /* pcclCommShrink calls so far (the new ids differ) */
    uint64_t failed_mask;       /* the ranks found dead or stalled (bit r) */
    uint64_t inflight_since;    /* when outstanding last went from 0 to 1 */
    uint64_t health_ns;         /* the last health check */
    uint64_t beat_seen[PCCL_MAX_RANKS], beat_ns[PCCL_MAX_RANKS];
    uint64_t cpu_seen[PCCL_MAX_RANKS], cpu_ns[PCCL_MAX_RANKS]; /* health.c: a silent peer's CPU time, when */
    pccl_tlook runq[PCCL_MAX_RANKS][PCCL_RUNQ_LOOK]; /* and its runnable threads then */
    int nrunq[PCCL_MAX_RANKS];
    /* The small-message path (issue 16): a waiter spins this long on the CQ
     * before it sleeps (PCCL_WAIT_SPIN_US), and the poller, while hot, this
     * long between yields, without the lock (poller.c). */
    uint64_t wait_spin_ns, poll_spin_ns;
    uint64_t wakes;             /* broadcasts of cv, ever: a spinning waiter looks then (atomic) */
    uint64_t cq_seen_ns;        /* when a completion was last drained (poller.c, answered_lately) */
    int spinners;               /* waiters spinning on the CQ now: the poller leaves them the first look */
    struct pccl_trace *trace;   /* PCCL_TRACE_LAT=1 (trace.c), else NULL */
    pccl_slice_acc slice_acc;   /* slice.c */
    uint64_t hang_dump_ns;      /* PCCL_HANG_DUMP_MS (dump.c); 0: never */
    int spread;                 /* PCCL_SPREAD: small collectives on block 0 (0), on block id % blocks (1),
                                   placed by block 0 at each invocation (2) (register.c, scheduler.h) */
    int hang_dumped;            /* the report was printed for this quiet spell */
    /* With PCCL_HANG_DUMP_MS, the poller's last passes for the report
     * (poller.c): when each began and what it did last ('d' drained, 's'
     * slept, with the sleep asked for in us, 'y' spun and yielded) */
#define PCCL_PASS_LOG 16
    uint64_t pass_at[PCCL_PASS_LOG];
    uint32_t pass_arg[PCCL_PASS_LOG];
    char pass_what[PCCL_PASS_LOG];
    uint32_t pass_i; /* passes logged, ever (wraps: a multiple of PCCL_PASS_LOG) */
    /* PCCL_POLLER_STALL_US (poller.c): a poller pass that took this much
     * longer than the spin or sleep it asked for is reported on stderr,
     * with where its time went; 0: off.  The poller thread's own: */
    uint64_t stall_ns;
    uint64_t stall_cb_ns;  /* this pass: its callbacks' time (pccl_finish) */
    uint64_t stall_run_ns; /* this pass: the longest pcclRun its callbacks made */
    /* rank + k's arena, mapped (k = 1, n - 1, and on the mesh every k); last, so that the fields above
     * keep their places (the mesh's 62 more pointers moved the hot ones across cache lines) */
    char *mapped[PCCL_MAX_RANKS];
};

/* Whether the daemon's latest launch (G.epoch) was ended by its slice while
 * work progressed (hdr->sliced holds the epoch of the launch that was). */
static inline int pccl_sliced(pcclComm_t c) { return pccl_ld_acq32(&c->G.hdr->sliced) == (uint32_t)c->G.epoch; }
/* Whether block 0 decided to end the daemon's latest launch (hdr->quitting
 * holds the epoch of the launch it decided for: cut.h, pccl_may_quit). */
static inline int pccl_quitting(pcclComm_t c) { return pccl_ld_acq32(&c->G.hdr->quitting) == (uint32_t)c->G.epoch; }
/* Whether every block of the daemon's latest launch has ended (the last one
 * out writes its epoch to hdr->ended: scheduler.h, pccl_end). */
static inline int pccl_ended(pcclComm_t c) { return pccl_ld_acq32(&c->G.hdr->ended) == (uint32_t)c->G.epoch; }

struct pccl_backend {
    const char *name;
    /* Allocates the daemon's device and pinned memory for c->G (knobs set)
     * and the arena of c->arena_bytes; binds the device. */
    pcclResult_t (*open)(pcclComm_t c);
    void (*close)(pcclComm_t c);
    /* Arena sharing between ranks.  same_process: the pointer is usable. */
    pcclResult_t (*export_arena)(pcclComm_t c, void *handle64);
    pcclResult_t (*import_arena)(pcclComm_t c, const void *handle64, char **mapped);
    void (*unimport_arena)(pcclComm_t c, char *mapped);
    pcclResult_t (*enable_peer)(pcclComm_t c, int peer_dev);
    pcclResult_t (*upload)(pcclComm_t c, void *dst, const void *src, size_t n);
    pcclResult_t (*launch)(pcclComm_t c);
    int (*running)(pcclComm_t c);
    pcclResult_t (*devsync)(pcclComm_t c);
    /* 0 if [p, p+bytes) is memory the daemon can use, else an error with a
     * message naming `what`. */
    pcclResult_t (*check_buf)(pcclComm_t c, const void *p, size_t bytes, const char *what);
    pcclResult_t (*mem_alloc)(pcclComm_t c, void **p, size_t bytes);
    pcclResult_t (*mem_free)(pcclComm_t c, void *p);
    int (*device_count)(void);
    /* Removes the name of rank's arena (exported or not, published or not:
     * the name is derived), so that nothing is left behind once every rank
     * has mapped it, or the communicator failed (NULL: nothing to remove). */
    void (*forget)(pcclComm_t c, int rank);
    /* Streams (stream.c): a cudaStream_t, or a host stream (host/stream.c).
     * stream_check: 0 if usable by c.  stream_write: enqueues a store of v to
     * *p (device memory of c) made after the stream's earlier work is
     * complete and visible.  stream_wait: enqueues a wait until
     * (int64_t)(*p - v) >= 0 (CUDA's cyclic >=) before the stream's later
     * work.  set_flags: stores v into p[0..n) from the host (abort releases
     * waiting streams with it). */
    pcclResult_t (*stream_check)(pcclComm_t c, void *stream);
    pcclResult_t (*stream_write)(pcclComm_t c, void *stream, uint64_t *p, uint64_t v);
    pcclResult_t (*stream_wait)(pcclComm_t c, void *stream, uint64_t *p, uint64_t v);
    pcclResult_t (*set_flags)(pcclComm_t c, uint64_t *p, uint64_t v, size_t n);
    /* Returns once the daemon launched last has ended (stream.c's hold: a
     * launch that decided to end is waited for, then replaced). */
    void (*launch_wait)(pcclComm_t c);
    /* Copies device memory out while the daemon runs, for the hang report
     * (dump.c); NULL where the daemon's memory is not safely readable. */
    pcclResult_t (*download)(pcclComm_t c, void *dst, const void *src, size_t n);
    /* One rank's copies (direct.c): copy enqueues copy number seq (1, 2,
     * ...; at most PCCL_QUEUE_DEPTH not yet seen done), n bytes from src to
     * dst on pccl's copy stream; copied returns how many are done, in
     * order, their output visible to the GPU's later work, and sets *failed
     * where one failed.  copied is called without c->mu, by several threads
     * at once (the spins). */
    pcclResult_t (*copy)(pcclComm_t c, void *dst, const void *src, size_t n, uint64_t seq);
    uint64_t (*copied)(pcclComm_t c, int *failed);
};

extern const pccl_backend pccl_host_backend;
#ifdef PCCL_HAVE_CUDA
extern const pccl_backend pccl_gpu_backend;
#endif

/* Records an error message on c (or globally if c is NULL); returns r.
 * Raised by a call of the user's, it is the calling thread's; raised by
 * pccl's own threads, c's for every thread (error.c). */
pcclResult_t pccl_err(pcclComm_t c, pcclResult_t r, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The same, the communicator's whichever thread raises it: its state (a
 * peer found failed), which no call returned and every thread may ask for. */
pcclResult_t pccl_err_comm(pcclComm_t c, pcclResult_t r, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Marks the calling thread as pccl's own (1: the poller, a host stream's
 * thread) or the user's (0: a callback runs); returns the previous mark. */
int pccl_err_own_thread(int own);
uint64_t pccl_err_count(void); /* errors raised so far (comm_create's born_seq) */
uint64_t pccl_now_ns(void);

/* Rendezvous through /dev/shm (lib/bootstrap.c). */
pcclResult_t pccl_boot_join(const pcclUniqueId *id, int nranks, int rank, int dev, pccl_boot **out);
int pccl_boot_one_process(const pccl_boot *b);
int pccl_boot_pid(const pccl_boot *b, int rank);
int pccl_boot_dev(const pccl_boot *b, int rank);
/* The knobs that shape the rings (knobs.c, pccl_ring_shape), published with the
 * arena's handle so that ranks in separate processes can compare them. */
#define PCCL_SHAPE_N 10
pcclResult_t pccl_boot_publish(pccl_boot *b, const void *handle64, const int64_t *shape);
const void *pccl_boot_handle(const pccl_boot *b, int rank);
const int64_t *pccl_boot_shape(const pccl_boot *b, int rank);
void pccl_boot_leave(pccl_boot *b, int wait, uint64_t done);
/* Whether the communicator maps every peer's arena for the mesh (PCCL_ALGO
 * oneshot or twoshot, 2 to PCCL_MESH_MAX_RANKS ranks): the GPU then loads
 * and launches the mesh's daemon (comm.c). */
int pccl_maps_mesh(const pcclComm_t c);
/* Every rank mapped its neighbours' arenas (a barrier). */
pcclResult_t pccl_boot_mapped(pccl_boot *b);
const char *pccl_boot_path(const pccl_boot *b);
/* Health, through the mapped file (bootstrap.c's comment): a peer is alive
 * while it holds its lock; the heartbeat; the failed ranks it published. */
int pccl_boot_alive(const pccl_boot *b, int rank);
int pccl_boot_left(const pccl_boot *b, int rank);
uint64_t pccl_boot_done(const pccl_boot *b, int rank); /* a clean leave's invocations; else 0 */
void pccl_boot_beat(pccl_boot *b);
uint64_t pccl_boot_peer_beat(const pccl_boot *b, int rank);
char pccl_boot_peer_thread(const pccl_boot *b, int rank, uint64_t *cpu_ns);
int pccl_proc_runnable(int pid, pccl_tlook *out, int max);
uint64_t pccl_boot_failed(const pccl_boot *b, int rank);
void pccl_boot_set_failed(pccl_boot *b, uint64_t mask);
/* The barriers also give up on a peer whose heartbeat stood still this long. */
void pccl_boot_set_stall(pccl_boot *b, uint64_t ns);

/* Faults (health.c), with c->mu held: checks the peers (at most every few
 * milliseconds), and fails the communicator: the daemon stops, every
 * invocation in flight completes with pcclRemoteError. */
void pccl_health_check(pcclComm_t c, uint64_t now);
void pccl_fail_locked(pcclComm_t c, uint64_t mask, const char *why);
/* Removes every rank's published arena name (init failed, or a peer did). */
void pccl_forget_arenas(pcclComm_t c);
/* pcclCommInitRankConfig on device dev (< 0: the rank's, comm.c); shrink
 * keeps each survivor on its device. */
pcclResult_t pccl_init_rank(pcclComm_t *comm, int nranks, pcclUniqueId id, int rank, int dev,
                            const pcclConfig_t *cfg);

/* Knobs (knobs.c).  pccl_pick_backend: PCCL_BACKEND_*, or -2 for a bad
 * environment value.  pccl_resolve_knobs fills c->G.k and the host-side
 * knobs from the config, the environment and the defaults. */
int pccl_pick_backend(const pcclConfig_t *cfg);
pcclResult_t pccl_resolve_knobs(pcclComm_t c, const pcclConfig_t *cfg, int host);
void pccl_ring_shape(const pcclComm_t c, int64_t s[PCCL_SHAPE_N]);
pcclResult_t pccl_shapes_agree(int nranks, const int64_t *const *shape);

/* Live communicators (live.c). */
int pccl_live_add(pcclComm_t c);
int pccl_live_del(pcclComm_t c);   /* 1 if it was live */
int pccl_live_enter(pcclComm_t c); /* 1 if live; the caller then holds it */
void pccl_live_exit(pcclComm_t *cp);
void pccl_live_drain(pcclComm_t c); /* waits until no call holds it */

/* Checks the handle and holds the communicator until the function returns. */
#define CHECK_COMM(c, fn)                                                                         \
    if (!(c)) return pccl_err(NULL, pcclInvalidArgument, "%s: comm is NULL", fn);                  \
    if (!pccl_live_enter(c))                                                                      \
        return pccl_err(NULL, pcclInvalidUsage, "%s: comm is not a live communicator (destroyed?)", fn); \
    pcclComm_t held_ __attribute__((cleanup(pccl_live_exit))) = (c);                              \
    (void)held_

/* The poller (poller.c) and invocation (run.c).  The _locked functions are
 * called with c->mu held; pccl_finish drops it around the callback. */
void *pccl_poller_main(void *arg);
/* launch.c: a launch of the daemon (mu held; a no-op while the poller's
 * launch ahead is being made), and the relaunch queued ahead of a slice's
 * end: whether it is due (work outstanding, the slice ends within
 * PCCL_SLICE_AHEAD_US), its launch call (made without mu), whether the
 * launch before it has ended, the poller's bookkeeping of that end, and the
 * queued launch taken for the running one. */
pcclResult_t pccl_launch_locked(pcclComm_t c);
int pccl_ahead_due(pcclComm_t c, uint64_t now);
void pccl_launch_ahead_locked(pcclComm_t c);
int pccl_ahead_ended(pcclComm_t c);
void pccl_ahead_handover_locked(pcclComm_t c, uint64_t now);
void pccl_ahead_promote_locked(pcclComm_t c, uint64_t now);
/* Every PCCL_OFF_REFRESH launches ahead, one relaunch follows the end
 * instead, for a fresh sample of the daemon clock's offset (the clocks may
 * drift; slice.c). */
#define PCCL_OFF_REFRESH 128
/* slice.c: the poller saw the daemon's launch e end (the latest, or the one
 * before a launch queued ahead); the relaunch after it was made gap_ns after
 * that end was seen (0: queued ahead), its call launch_ns long. */
void pccl_slice_on_end_locked(pcclComm_t c, uint64_t e);
void pccl_slice_sample_locked(pcclComm_t c, uint64_t e);
void pccl_slice_on_launch_locked(pcclComm_t c, uint64_t gap_ns, uint64_t launch_ns);
/* slice.c: before a launch call, tells the daemon where its slice ends
 * (G.deadline); returns that end on the host's clock (the poller watches
 * closely near it).  from_ns: when the launch will begin (the call's start;
 * a launch queued ahead: when the running one ends). */
uint64_t pccl_slice_plan_locked(pcclComm_t c, uint64_t from_ns);
/* slice.c: a completion seen at now (poller.c's drain); PCCL_SLICE_LOG's
 * file opened at init, closed at destroy. */
void pccl_slice_on_completion_locked(pcclComm_t c, uint64_t now);
pcclResult_t pccl_slice_log_open(pcclComm_t c);
void pccl_slice_log_close(pcclComm_t c);

/* The watch (watch.c): the calls of the process in progress (each thread's
 * outermost, since when), for the poller to ask for a cut only while one
 * waits long.  enter/exit bracket a call; a muted thread's calls are pccl's
 * own.  due: a call has waited thr, and the last cut (last) came before the
 * middle of its wait.  start_cuda: 1 when CUPTI feeds the watch (else 0,
 * and stderr says why, once); stop_cuda with each communicator that started
 * it. */
void pccl_watch_enter(void);
void pccl_watch_exit(void);
void pccl_watch_mute(int on);
int pccl_watch_due(uint64_t now, uint64_t thr, uint64_t last);
uint64_t pccl_watch_firsts(void); /* first launches of functions seen (CUPTI), for a cut each */
int pccl_watch_start_cuda(void);
void pccl_watch_stop_cuda(void);
/* The slice while the watch runs, PCCL_SLICE_US unset: a backstop for a call
 * the watch cannot see (lib/README.md, "The watch"). */
#define PCCL_WATCH_SLICE_US 32000
void pccl_finish(pcclComm_t c, int id, pcclResult_t status);
/* Sleeps on c->cv (mu held) until a completion of collective id, or any
 * completion with id < 0, may have changed what the caller waits for. */
void pccl_sleep_locked(pcclComm_t c, int id);
void pccl_wait_all_locked(pcclComm_t c);
/* 1 on c's poller thread (inside one of its callbacks, or a callback of
 * another communicator run there): a wait for c would wait for itself. */
int pccl_on_poller(pcclComm_t c);
/* PCCL_POLLER_STALL_US: a pcclRun that began at t0 ends (mu held). */
void pccl_poller_note_run(pcclComm_t c, uint64_t t0);
/* Destroy or abort from one of c's own callbacks (comm.c): in flight
 * completed or failed there (pccl_poll_idle_locked), the rest (the poller's
 * end, the free) done by the poller once the callback returned. */
void pccl_poll_idle_locked(pcclComm_t c);
void pccl_teardown_deferred(pcclComm_t c);
int pccl_drain(pcclComm_t c); /* direct invocations (direct.c), then CQ entries in ticket order, completed; how many */
/* direct.c: one rank's invocations that the daemon does not run */
int pccl_direct_kind(pcclComm_t c, const pccl_hcoll *h, const void *sendbuff, const void *recvbuff);
pcclResult_t pccl_run_direct_locked(pcclComm_t c, int id, int kind, const void *sendbuff, void *recvbuff);
int pccl_drain_direct_locked(pcclComm_t c, int own);
int pccl_direct_ready(pcclComm_t c);
int pccl_cq_ready_locked(pcclComm_t c); /* CQ entries posted, not drained yet */
/* run.c: the checks pcclRun and the stream calls share (fn names the call),
 * and the submission of an invocation (buffers, then the SQ entry;
 * gated: PCCL_SQ_GATED).  Both with c->mu held. */
pcclResult_t pccl_run_check_locked(pcclComm_t c, const char *fn, int id, const void *sendbuff, void *recvbuff);
pcclResult_t pccl_submit_locked(pcclComm_t c, int id, const void *sendbuff, void *recvbuff, uint32_t gated);
/* stream.c: after a completion, submits the collective's next pending
 * stream invocation, or fails them all if the communicator was aborted
 * (mu held); at abort, releases every stream waiting on a completion. */
void pccl_stream_next_locked(pcclComm_t c, int id);
/* For the poller's restart policy (mu held): 1 once the gate of a gated
 * invocation in flight opened since it was last looked at. */
int pccl_stream_gate_opened_locked(pcclComm_t c);
void pccl_stream_release(pcclComm_t c);
void pccl_hold_release_locked(pcclComm_t c, int id);
/* Value set by pccl_stream_release: >= every ticket under CUDA's cyclic
 * comparison. */
#define PCCL_FIN_RELEASED (1ull << 62)
/* An invocation is counted in flight (mu held); the first one since none
 * was starts the time a stalled peer is measured from (health.c). */
static inline void pccl_count_outstanding_locked(pcclComm_t c)
{
    if (c->outstanding++ == 0) c->inflight_since = pccl_now_ns();
}
/* The completion path (poller.c).  pccl_cq_pending: lock-free, 1 when the
 * CQ holds an entry not taken yet.  pccl_drain_own_locked: what a waiter
 * drains itself, the entries at the CQ's head whose collective has no
 * callback (callbacks run on the poller thread only); how many.
 * pccl_wait_spin_locked: a waiter's spin (mu dropped meanwhile) until a CQ
 * entry is there, draining what it may; 0 once `until` has passed. */
int pccl_cq_pending(pcclComm_t c);
int pccl_drain_own_locked(pcclComm_t c);
void pccl_dump_locked(pcclComm_t c, FILE *f, uint64_t quiet_ns); /* dump.c: the hang report */
int pccl_wait_spin_locked(pcclComm_t c, uint64_t until);
/* PCCL_TRACE_LAT (trace.c), with mu held. */
struct pccl_trace;
pcclResult_t pccl_trace_open(pcclComm_t c);
void pccl_trace_close(pcclComm_t c); /* prints the medians to stderr */
void pccl_trace_submit_locked(pcclComm_t c, pccl_hcoll *h);
void pccl_trace_seen_locked(pcclComm_t c, int id, int waiter);
void pccl_trace_consumed_locked(pcclComm_t c, int id, int wake);
/* The daemon's liveness (a stream query: driver time) is checked at most
 * this often by the poller; pcclRun trusts a sighting this recent. */
#define POLL_QUERY_NS 10000

#ifdef __cplusplus
}
#endif
#endif
