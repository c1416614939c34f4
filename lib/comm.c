/* A communicator's life: creation (pcclCommInitAll, pcclCommInitRank: ranks
 * as threads of one process share a group; separate processes map each
 * other's arenas), its queries, and teardown (destroy waits for what is in
 * flight, abort fails it). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* ---- communicator groups of one process ------------------------------------ */

struct pccl_group {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char key[PCCL_UNIQUE_ID_BYTES];
    int n, joined, refs;
    pcclComm_t *comms;
    pcclResult_t fail;
    pccl_group *next;
};

static pccl_group *groups; /* InitRank rendezvous, by unique id */
static pthread_mutex_t groups_mu = PTHREAD_MUTEX_INITIALIZER;

static pccl_group *group_new(int n, const char *key)
{
    pccl_group *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->comms = calloc((size_t)n, sizeof *g->comms);
    if (!g->comms) { free(g); return NULL; }
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->n = n;
    if (key) memcpy(g->key, key, sizeof g->key);
    return g;
}

static void comm_free(pcclComm_t c)
{
    /* Peers stop writing into our arena first, unless the communicator
     * failed: then they are gone, stopped, or failing too, and the arenas'
     * names go (a killed peer cannot remove its own). */
    if (c->failed) pccl_forget_arenas(c);
    /* every invocation completed by now, unless the communicator failed or was aborted */
    if (c->boot) pccl_boot_leave(c->boot, !c->failed, c->failed || c->aborted ? 0 : c->submitted);
    for (int k = 1; k < c->nranks; k++)
        if (c->mapped[k]) c->be->unimport_arena(c, c->mapped[k]);
    pccl_trace_close(c);
    pccl_slice_log_close(c);
    if (c->be) c->be->close(c);
#ifdef PCCL_HAVE_CUDA
    if (c->watch == 1) pccl_watch_stop_cuda();
#endif
    free(c->colls);
    free(c->gwatch);
    free(c->directq);
    free(c->swaits);
    free(c->held);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    pthread_cond_destroy(&c->poll_cv);
    free(c);
}

/* The last rank to leave closes everyone's memory. */
static void group_leave(pccl_group *g)
{
    pthread_mutex_lock(&g->mu);
    int last = --g->refs == 0;
    pthread_mutex_unlock(&g->mu);
    if (!last) return;
    for (int i = 0; i < g->n; i++)
        if (g->comms[i]) comm_free(g->comms[i]);
    pthread_mutex_lock(&groups_mu);
    for (pccl_group **p = &groups; *p; p = &(*p)->next)
        if (*p == g) { *p = g->next; break; }
    pthread_mutex_unlock(&groups_mu);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g->comms);
    free(g);
}

/* ---- creation ---------------------------------------------------------------- */

/* The watch (watch.c; lib/README.md, "The watch"), before the backend
 * copies the knobs to the GPU: with it, the slice is a backstop (32 ms
 * unless PCCL_SLICE_US is set). */
static void watch_start(pcclComm_t c)
{
    if (!c->watch_ns) return;
    if (c->be == &pccl_host_backend) c->watch = 2;
#ifdef PCCL_HAVE_CUDA
    else if (pccl_watch_start_cuda()) c->watch = 1;
#endif
    if (!c->watch) return;
    c->G.k.watch = 1;
    if (c->slice_default) c->G.k.slice_ns = (int64_t)PCCL_WATCH_SLICE_US * 1000;
}

static pcclResult_t comm_create(pcclComm_t *out, int rank, int nranks, int dev, const pcclConfig_t *cfg)
{
    int which = pccl_pick_backend(cfg);
    if (which == -2)
        return pccl_err(NULL, pcclInvalidArgument, "environment PCCL_BACKEND='%s': expected 'gpu' or 'host'",
                        getenv("PCCL_BACKEND"));
    const pccl_backend *be = NULL;
    if (which == PCCL_BACKEND_HOST) be = &pccl_host_backend;
#ifdef PCCL_HAVE_CUDA
    else if (which == PCCL_BACKEND_GPU) be = &pccl_gpu_backend;
#endif
    if (!be)
        return pccl_err(NULL, pcclInvalidUsage,
                        "backend %d: this pccl was built without CUDA; use PCCL_BACKEND=host", which);
    pcclComm_t c = calloc(1, sizeof *c);
    if (!c) return pccl_err(NULL, pcclSystemError, "out of host memory");
    c->born_seq = pccl_err_count(); /* a thread's messages about an earlier comm here are not this one's */
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&c->poll_cv, &ca);
    pthread_condattr_destroy(&ca);
    c->rank = rank;
    c->nranks = nranks;
    c->dev = dev;
    c->G.rank = rank;
    c->G.nranks = nranks;
    pcclResult_t r = pccl_resolve_knobs(c, cfg, be == &pccl_host_backend);
    if (r) { comm_free(c); return r; }
    c->arena_used = PCCL_ARENA_HDR; /* the blocks' waits (core.h), then the connectors */
    c->colls = calloc((size_t)c->G.k.max_colls, sizeof *c->colls);
    if (!c->colls) { comm_free(c); return pccl_err(NULL, pcclSystemError, "out of host memory"); }
    c->be = be;
    watch_start(c);
    c->poll_hot_ns = be == &pccl_host_backend ? 50000 : 2000000;
    /* (on the host backend the spin yields at every look: its cores run
     * the "GPUs") */
    c->poll_spin_ns = be == &pccl_host_backend ? 10000 : 2000;
    /* a GPU launch call takes 6-30 us on H200s, one that loads the module
     * or waits for the context lock milliseconds; the host backend's starts
     * threads (up to 1.3 ms under TSan) */
    c->call_short_ns = be == &pccl_host_backend ? 5000000 : 100000;
    r = pccl_trace_open(c);
    if (!r) r = pccl_slice_log_open(c);
    if (r) { comm_free(c); return r; }
    r = be->open(c);
    if (r) { comm_free(c); return r; } /* close frees what open had taken */
    *out = c;
    return pcclSuccess;
}

static pcclResult_t comm_start(pcclComm_t c)
{
    if (pccl_live_add(c)) return pccl_err(c, pcclSystemError, "out of host memory");
    if (pthread_create(&c->poller, NULL, pccl_poller_main, c)) {
        pccl_live_del(c);
        return pccl_err(c, pcclSystemError, "cannot start the poller thread: %s", strerror(errno));
    }
    c->poller_started = 1;
    return pcclSuccess;
}

/* Whether a rank maps rank + k's arena: its ring neighbours', and every
 * peer's where PCCL_ALGO asks for the mesh (ONESHOT, TWOSHOT: 2 to
 * PCCL_MESH_MAX_RANKS ranks).  Only then: peer access to every GPU is
 * more than a ring needs (a PCIe host may lack it between some pairs).
 * The knob is the same on every rank (pccl_shapes_agree), so all map alike. */
int pccl_maps_mesh(const pcclComm_t c)
{
    return pccl_mesh_algo(c->algo) && pccl_mesh_fits(c->nranks);
}
static int maps_peer(const pcclComm_t c, int k) { return k == 1 || k == c->nranks - 1 || pccl_maps_mesh(c); }

/* The peers' arenas (ring neighbours', the mesh's), once every rank of the
 * group exists. */
static pcclResult_t wire_group(pccl_group *g, int r)
{
    pcclComm_t c = g->comms[r];
    int n = g->n;
    pcclResult_t e;
    if (n == 1 && (e = c->be->enable_peer(c, c->dev))) return e;
    for (int k = 1; k < n; k++) {
        if (!maps_peer(c, k)) continue;
        pcclComm_t p = g->comms[(r + k) % n];
        if ((e = c->be->enable_peer(c, p->dev))) return e;
        if (n <= PCCL_MESH_MAX_RANKS) c->G.peer[k - 1] = p->G.arena;
    }
    c->G.next_arena = g->comms[(r + 1) % n]->G.arena;
    c->G.prev_arena = g->comms[(r + n - 1) % n]->G.arena;
    c->G.mesh = pccl_maps_mesh(c);
    return pcclSuccess;
}

pcclResult_t pcclCommInitAllConfig(pcclComm_t *comms, int ndev, const int *devlist, const pcclConfig_t *cfg)
{
    if (!comms) return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitAll: comms is NULL");
    if (ndev < 1 || ndev > PCCL_MAX_RANKS)
        return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitAll: ndev %d not in [1, %d]", ndev, PCCL_MAX_RANKS);
    pccl_group *g = group_new(ndev, NULL);
    if (!g) return pccl_err(NULL, pcclSystemError, "out of host memory");
    pcclUniqueId gid; /* what pcclCommShrink derives the new communicator's from */
    pcclGetUniqueId(&gid);
    pcclResult_t r = pcclSuccess;
    for (int i = 0; i < ndev && !r; i++) {
        int dev = devlist ? devlist[i] : i;
        for (int j = 0; devlist && j < i; j++)
            if (devlist[j] == dev)
                r = pccl_err(NULL, pcclInvalidArgument, "pcclCommInitAll: device %d listed twice", dev);
        if (!r) r = comm_create(&g->comms[i], i, ndev, dev, cfg);
        if (!r) { g->comms[i]->group = g; g->comms[i]->group_slot = i; g->comms[i]->id = gid; }
    }
    for (int i = 0; i < ndev && !r; i++) r = wire_group(g, i);
    for (int i = 0; i < ndev && !r; i++) r = comm_start(g->comms[i]);
    g->refs = ndev;
    if (r) { /* undo: stop pollers that started, free everything */
        for (int i = 0; i < ndev; i++)
            if (g->comms[i] && g->comms[i]->poller_started) {
                pcclComm_t c = g->comms[i];
                pthread_mutex_lock(&c->mu);
                c->stopping = 2; /* the poller's loop ends at 2 only */
                pthread_cond_signal(&c->poll_cv);
                pthread_mutex_unlock(&c->mu);
                pthread_join(c->poller, NULL);
                pccl_live_del(c);
            }
        g->refs = 1;
        group_leave(g);
        return r;
    }
    for (int i = 0; i < ndev; i++) comms[i] = g->comms[i];
    return pcclSuccess;
}

pcclResult_t pcclCommInitAll(pcclComm_t *comms, int ndev, const int *devlist)
{
    return pcclCommInitAllConfig(comms, ndev, devlist, NULL);
}

static const char id_magic[8] = "pcclUID";

pcclResult_t pcclGetUniqueId(pcclUniqueId *id)
{
    if (!id) return pccl_err(NULL, pcclInvalidArgument, "pcclGetUniqueId: uniqueId is NULL");
    memset(id, 0, sizeof *id);
    memcpy(id->internal, id_magic, sizeof id_magic);
    uint64_t v[3] = {(uint64_t)getpid(), pccl_now_ns(), (uint64_t)(uintptr_t)id};
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        if (fread(&v[2], sizeof v[2], 1, f) != 1) v[2] ^= 0x9e3779b97f4a7c15ull;
        fclose(f);
    }
    memcpy(id->internal + 8, v, sizeof v);
    return pcclSuccess;
}

/* Ranks in separate processes: each maps its peers' arenas (maps_peer)
 * through CUDA IPC handles published in the rendezvous file. */
static pcclResult_t init_multiprocess(pcclComm_t *comm, int nranks, int rank, int dev, const pcclConfig_t *cfg,
                                      pccl_boot *boot)
{
    pcclComm_t c = NULL;
    pcclResult_t r = comm_create(&c, rank, nranks, dev, cfg);
    if (r) { pccl_boot_leave(boot, 0, 0); return r; }
    c->boot = boot;
    c->multiprocess = 1;
    pccl_boot_set_stall(boot, c->peer_timeout_ns);
    pccl_group *g = group_new(1, NULL);
    if (!g) { comm_free(c); return pccl_err(NULL, pcclSystemError, "out of host memory"); }
    g->comms[0] = c;
    g->refs = 1;
    c->group = g;
    unsigned char h[64] = {0};
    int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks, me = pccl_boot_pid(boot, rank);
    if (pccl_boot_pid(boot, next) == me || pccl_boot_pid(boot, prev) == me)
        r = pccl_err(NULL, pcclInvalidUsage, "pcclCommInitRank: ranks of one communicator are either all threads "
                     "of one process or all separate processes, not a mix");
    int64_t mine[PCCL_SHAPE_N];
    const int64_t *shape[PCCL_MAX_RANKS];
    pccl_ring_shape(c, mine);
    if (!r) r = c->be->export_arena(c, h);
    if (!r) r = pccl_boot_publish(boot, h, mine);
    for (int i = 0; i < nranks; i++) shape[i] = pccl_boot_shape(boot, i);
    if (!r) r = pccl_shapes_agree(nranks, shape);
    for (int k = 1; k < nranks && !r; k++)
        if (maps_peer(c, k)) r = c->be->import_arena(c, pccl_boot_handle(boot, (rank + k) % nranks), &c->mapped[k]);
    /* Once every rank mapped its peers' arenas, the names can go:
     * from here on a killed rank leaves nothing in /dev/shm. */
    if (!r) r = pccl_boot_mapped(boot);
    if (!r && c->be->forget) c->be->forget(c, rank);
    if (!r) {
        c->G.next_arena = c->mapped[1];
        c->G.prev_arena = c->mapped[nranks - 1];
        for (int k = 1; k < nranks && nranks <= PCCL_MESH_MAX_RANKS; k++) c->G.peer[k - 1] = c->mapped[k];
        c->G.mesh = pccl_maps_mesh(c);
        r = comm_start(c);
    }
    if (r) {
        pccl_forget_arenas(c);
        c->failed = r; /* peers may be gone: leave without waiting for them */
        group_leave(g);
        return r;
    }
    *comm = c;
    return pcclSuccess;
}

/* Ranks meet in a file under /dev/shm named by the id.  Threads of one
 * process then share one group (arenas reached directly); separate
 * processes map each other's arenas through CUDA IPC. */
pcclResult_t pcclCommInitRankConfig(pcclComm_t *comm, int nranks, pcclUniqueId id, int rank,
                                    const pcclConfig_t *cfg)
{
    return pccl_init_rank(comm, nranks, id, rank, -1, cfg);
}

/* dev < 0: rank r's device is r, or the r-th of PCCL_DEVICE_OF_RANK. */
pcclResult_t pccl_init_rank(pcclComm_t *comm, int nranks, pcclUniqueId id, int rank, int dev,
                            const pcclConfig_t *cfg)
{
    if (!comm) return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitRank: comm is NULL");
    if (nranks < 1 || nranks > PCCL_MAX_RANKS)
        return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitRank: nranks %d not in [1, %d]", nranks,
                        PCCL_MAX_RANKS);
    if (rank < 0 || rank >= nranks)
        return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitRank: rank %d not in [0, %d)", rank, nranks);
    if (memcmp(id.internal, id_magic, sizeof id_magic))
        return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitRank: commId was not made by pcclGetUniqueId");
    int given = dev >= 0;
    if (!given) dev = rank;
    const char *dor = getenv("PCCL_DEVICE_OF_RANK"); /* optional "d0,d1,...": rank r uses device d_r */
    if (dor && !given) {
        const char *p = dor;
        for (int i = 0; i < rank && p; i++) { p = strchr(p, ','); if (p) p++; }
        if (p) dev = atoi(p);
    }
    pccl_boot *boot = NULL;
    pcclResult_t br = pccl_boot_join(&id, nranks, rank, dev, &boot);
    if (br) return br;
    if (!pccl_boot_one_process(boot)) {
        pcclResult_t mr = init_multiprocess(comm, nranks, rank, dev, cfg, boot);
        if (!mr) (*comm)->id = id;
        return mr;
    }
    pccl_boot_leave(boot, 0, 0);
    pthread_mutex_lock(&groups_mu);
    pccl_group *g = groups;
    while (g && memcmp(g->key, id.internal, sizeof g->key)) g = g->next;
    if (!g) {
        g = group_new(nranks, id.internal);
        if (g) { g->next = groups; groups = g; }
    }
    pthread_mutex_unlock(&groups_mu);
    if (!g) return pccl_err(NULL, pcclSystemError, "out of host memory");

    pthread_mutex_lock(&g->mu);
    if (g->n != nranks || g->comms[rank] || g->joined == -1) {
        pthread_mutex_unlock(&g->mu);
        return pccl_err(NULL, pcclInvalidArgument,
                        "pcclCommInitRank: rank %d of %d does not fit this id (group of %d, rank taken or done)",
                        rank, nranks, g->n);
    }
    pthread_mutex_unlock(&g->mu);
    pcclComm_t c = NULL;
    pcclResult_t r = comm_create(&c, rank, nranks, dev, cfg);
    pthread_mutex_lock(&g->mu);
    if (r) g->fail = r;
    else { g->comms[rank] = c; c->group = g; c->group_slot = rank; g->refs++; }
    g->joined++;
    pthread_cond_broadcast(&g->cv);
    while (g->joined < g->n && !g->fail) pthread_cond_wait(&g->cv, &g->mu);
    pcclResult_t gf = g->fail;
    pthread_mutex_unlock(&g->mu);
    if (!r && gf) r = pccl_err(NULL, gf, "pcclCommInitRank: another rank failed to join");
    if (!r) {
        int64_t each[PCCL_MAX_RANKS][PCCL_SHAPE_N];
        const int64_t *shape[PCCL_MAX_RANKS];
        for (int i = 0; i < nranks; i++) {
            pccl_ring_shape(g->comms[i], each[i]);
            shape[i] = each[i];
        }
        r = pccl_shapes_agree(nranks, shape);
    }
    if (!r) r = wire_group(g, rank);
    if (!r) c->id = id;
    if (!r) r = comm_start(c);
    if (r) {
        if (c) group_leave(g);
        return r;
    }
    *comm = c;
    return pcclSuccess;
}

pcclResult_t pcclCommInitRank(pcclComm_t *comm, int nranks, pcclUniqueId id, int rank)
{
    return pcclCommInitRankConfig(comm, nranks, id, rank, NULL);
}

pcclResult_t pcclCommCount(pcclComm_t c, int *n)
{
    CHECK_COMM(c, "pcclCommCount");
    if (!n) return pccl_err(c, pcclInvalidArgument, "pcclCommCount: count is NULL");
    *n = c->nranks;
    return pcclSuccess;
}

pcclResult_t pcclCommUserRank(pcclComm_t c, int *r)
{
    CHECK_COMM(c, "pcclCommUserRank");
    if (!r) return pccl_err(c, pcclInvalidArgument, "pcclCommUserRank: rank is NULL");
    *r = c->rank;
    return pcclSuccess;
}

pcclResult_t pcclCommCuDevice(pcclComm_t c, int *d)
{
    CHECK_COMM(c, "pcclCommCuDevice");
    if (!d) return pccl_err(c, pcclInvalidArgument, "pcclCommCuDevice: device is NULL");
    *d = c->dev;
    return pcclSuccess;
}

/* ---- teardown ---------------------------------------------------------------- */

/* The daemon quits for good; with abort, whatever was in flight fails, and
 * its waiters and callbacks hear it. */
static void stop_daemon(pcclComm_t c, int abort)
{
    __atomic_fetch_or(&c->G.hdr->ctl, PCCL_CTL_ABORT, __ATOMIC_RELEASE);
    if (abort) pccl_stream_release(c); /* streams waiting for a collective go on */
    c->be->devsync(c);
    pthread_mutex_lock(&c->mu);
    if (abort)
        for (int i = 0; i < c->ncolls; i++)
            if (c->colls[i].inflight) pccl_finish(c, i, pcclRemoteError);
    pthread_mutex_unlock(&c->mu);
}

static void shutdown_comm(pcclComm_t c, int abort)
{
    pthread_mutex_lock(&c->mu);
    c->stopping = 1;
    if (abort) {
        c->aborted = 1;
        __atomic_fetch_or(&c->G.hdr->ctl, PCCL_CTL_ABORT, __ATOMIC_RELEASE);
    } else {
        pccl_wait_all_locked(c);
    }
    c->stopping = 2; /* the poller ends, nothing relaunches */
    pthread_cond_signal(&c->poll_cv);
    pthread_mutex_unlock(&c->mu);
    if (c->poller_started) pthread_join(c->poller, NULL);
    c->poller_started = 0;
    stop_daemon(c, abort);
}

/* On the poller thread, after the callback that destroyed or aborted c
 * returned: the poller ends without a join, the memory goes. */
void pccl_teardown_deferred(pcclComm_t c)
{
    pthread_detach(pthread_self());
    pccl_live_drain(c);
    group_leave(c->group);
}

/* Destroy and abort.  From one of c's own callbacks (its poller thread) they
 * do the same, on that thread: destroy completes what is in flight (running
 * its callbacks, nested), abort fails it; both stop the daemon and return.
 * What a callback cannot do, join its own thread and free the memory it runs
 * on, the poller does once the callback has returned (as libuv's uv_close
 * completes after the callback that called it).  Either way the handle is
 * dead, and the buffers of every invocation free, when they return. */
static pcclResult_t teardown(pcclComm_t c, int abort, const char *fn)
{
    if (!c) return pccl_err(NULL, pcclInvalidArgument, "%s: comm is NULL", fn);
    if (!pccl_live_del(c))
        return pccl_err(NULL, pcclInvalidUsage, "%s: comm is not a live communicator (destroyed?)", fn);
    if (pccl_on_poller(c)) {
        pthread_mutex_lock(&c->mu);
        c->stopping = 1;
        if (abort) c->aborted = 1;
        else pccl_poll_idle_locked(c);
        c->stopping = 2; /* the poller's loop ends when the callback returns */
        c->deferred = 1;
        pthread_mutex_unlock(&c->mu);
        stop_daemon(c, abort);
        return pcclSuccess;
    }
    shutdown_comm(c, abort);
    pccl_live_drain(c);
    group_leave(c->group);
    return pcclSuccess;
}

pcclResult_t pcclCommDestroy(pcclComm_t c) { return teardown(c, 0, "pcclCommDestroy"); }
pcclResult_t pcclCommAbort(pcclComm_t c) { return teardown(c, 1, "pcclCommAbort"); }
