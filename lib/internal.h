/* pccl internals shared by the API's files (comm.c, register.c, run.c,
 * poller.c, ...) and the backends.  Not installed. */
#ifndef PCCL_INTERNAL_H
#define PCCL_INTERNAL_H

#include <pthread.h>

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
    size_t in_bytes, out_bytes;
    int inflight;             /* an invocation was submitted, not completed */
    int in_callback;
    pcclResult_t status;      /* of the last completed invocation          */
    pcclCallback_t cb;
    void *cb_arg;
    uint64_t completions;
} pccl_hcoll;

/* Ranks of one process that share arenas (pcclCommInitAll, or InitRank from
 * threads of one process): the arenas are freed when the last rank leaves,
 * since a peer may still write into ours while it finishes. */
typedef struct pccl_group pccl_group;

struct pcclComm {
    int rank, nranks, dev;
    const pccl_backend *be;
    void *bk;                   /* the backend's own state */
    pccl_gpu G;                 /* what the daemon sees (device pointers) */
    size_t arena_bytes, arena_used;
    long chunk_bytes;
    pccl_group *group;
    int group_slot;
    int multiprocess;           /* peers' arenas mapped through CUDA IPC */
    pccl_boot *boot;            /* the rendezvous file, kept for destroy */
    char *mapped_next, *mapped_prev;

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
    int64_t relaunch_ns, backoff_ns, quit_seen_ns;
    uint64_t poll_hot_ns;       /* the poller spins this long after an event */
    uint64_t running_seen_ns;   /* when the daemon was last seen running */
    int was_running, callbacks;
    int users;                  /* API calls inside, under the global lock */
    int stopping, aborted;
    pthread_t poller;
    int poller_started;
    char err[512];
};

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
};

extern const pccl_backend pccl_host_backend;
#ifdef PCCL_HAVE_CUDA
extern const pccl_backend pccl_gpu_backend;
#endif

/* Records an error message on c (or globally if c is NULL); returns r. */
pcclResult_t pccl_err(pcclComm_t c, pcclResult_t r, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
uint64_t pccl_now_ns(void);

/* Rendezvous through /dev/shm (lib/bootstrap.c). */
pcclResult_t pccl_boot_join(const pcclUniqueId *id, int nranks, int rank, int dev, pccl_boot **out);
int pccl_boot_one_process(const pccl_boot *b);
int pccl_boot_pid(const pccl_boot *b, int rank);
int pccl_boot_dev(const pccl_boot *b, int rank);
/* The knobs that shape the rings (knobs.c, pccl_ring_shape), published with the
 * arena's handle so that ranks in separate processes can compare them. */
#define PCCL_SHAPE_N 7
pcclResult_t pccl_boot_publish(pccl_boot *b, const void *handle64, const int64_t *shape);
const void *pccl_boot_handle(const pccl_boot *b, int rank);
const int64_t *pccl_boot_shape(const pccl_boot *b, int rank);
void pccl_boot_leave(pccl_boot *b, int wait);

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
pcclResult_t pccl_launch_locked(pcclComm_t c);
void pccl_finish(pcclComm_t c, int id, pcclResult_t status);
void pccl_wait_all_locked(pcclComm_t c);
/* The daemon's liveness (a stream query: driver time) is checked at most
 * this often by the poller; pcclRun trusts a sighting this recent. */
#define POLL_QUERY_NS 10000

#ifdef __cplusplus
}
#endif
#endif
