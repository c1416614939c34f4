/* pccl's API: communicators, registration, invocation, completion.
 *
 * The host half of the SQ/CQ protocol lives here, shared by both backends: a
 * pcclRun writes the buffers, then the SQ entry (release); the poller thread
 * takes CQ entries in ticket order (acquire), runs callbacks, and restarts the
 * daemon when it quit with work left (at once if new requests arrived since
 * its launch, else after a growing delay, so that a GPU synchronization
 * waiting for the daemon to quit gets its chance to return).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* See reg(): per 512 daemon threads (a block of PCCL_THREADS counts as
 * PCCL_THREADS / 512 of one), the bytes a collective needs to take one more
 * block, and the smallest chunk that interleaving may shrink it to. */
#ifndef PCCL_BYTES_PER_BLOCK /* overridable for tuning runs: make CC="cc -DPCCL_BYTES_PER_BLOCK=..." */
#define PCCL_BYTES_PER_BLOCK (512u << 10)
#endif
#ifndef PCCL_MIN_ILV_CHUNK
#define PCCL_MIN_ILV_CHUNK (64u << 10)
#endif

/* ---- errors --------------------------------------------------------------- */

static char global_err[512];
static pthread_mutex_t global_mu = PTHREAD_MUTEX_INITIALIZER;

pcclResult_t pccl_err(pcclComm_t c, pcclResult_t r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&global_mu);
    snprintf(global_err, sizeof global_err, "%s", buf);
    if (c) snprintf(c->err, sizeof c->err, "%s", buf);
    pthread_mutex_unlock(&global_mu);
    if (getenv("PCCL_DEBUG")) fprintf(stderr, "pccl: %s: %s\n", pcclGetErrorString(r), buf);
    return r;
}

const char *pcclGetErrorString(pcclResult_t r)
{
    switch (r) {
    case pcclSuccess: return "no error";
    case pcclUnhandledCudaError: return "unhandled cuda error";
    case pcclSystemError: return "unhandled system error";
    case pcclInternalError: return "internal error";
    case pcclInvalidArgument: return "invalid argument";
    case pcclInvalidUsage: return "invalid usage";
    case pcclRemoteError: return "remote process exited or communicator aborted";
    case pcclInProgress: return "operation in progress";
    default: return "unknown result code";
    }
}

const char *pcclGetLastError(pcclComm_t c)
{
    static __thread char copy[512];
    pthread_mutex_lock(&global_mu);
    snprintf(copy, sizeof copy, "%s", c ? c->err : global_err);
    pthread_mutex_unlock(&global_mu);
    return copy;
}

pcclResult_t pcclGetVersion(int *v)
{
    if (!v) return pccl_err(NULL, pcclInvalidArgument, "pcclGetVersion: version is NULL");
    *v = PCCL_VERSION_CODE;
    return pcclSuccess;
}

uint64_t pccl_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- knobs ----------------------------------------------------------------- */

typedef struct {
    const char *env;
    long gpu, host, lo, hi;
} knob_def;

/* Defaults, per backend, with the accepted range. */
enum { K_BLOCKS, K_THREADS, K_CHUNK, K_SLOTS, K_SPIN_HEAD, K_SPIN_BASE, K_SPIN_MIN, K_STICKY, K_QUIT_US,
       K_RELAUNCH_US, K_ORDER, K_CHAOS, K_CHAOS_SEED, K_MAX_COLLS, K_DEPTH, K_ARENA, K_PROFILE, K_INTERLEAVE,
       K_DYNAMIC, K_N };
static const knob_def knobs[K_N] = {
    [K_BLOCKS] = {"PCCL_BLOCKS", 64, 1, 1, PCCL_MAX_BLOCKS},
    /* at most the daemon's launch bound; at least a scheduling warp and a moving one */
    [K_THREADS] = {"PCCL_THREADS", 512, 64, 64, 512},
    [K_CHUNK] = {"PCCL_CHUNK_BYTES", 256 << 10, 4 << 10, 256, 64L << 20},
    [K_SLOTS] = {"PCCL_SLOTS", 4, 4, 2, 64},
    [K_SPIN_HEAD] = {"PCCL_SPIN_HEAD", 1000, 2000, 1, 1L << 40},
    [K_SPIN_BASE] = {"PCCL_SPIN_BASE", 100, 200, 1, 1L << 40},
    [K_SPIN_MIN] = {"PCCL_SPIN_MIN", 20, 20, 1, 1L << 40},
    [K_STICKY] = {"PCCL_STICKY", 4, 20, 1, 1 << 20},
    [K_QUIT_US] = {"PCCL_QUIT_US", 1000, 2000, 1, 60000000},
    [K_RELAUNCH_US] = {"PCCL_RELAUNCH_US", 50, 100, 1, 60000000},
    [K_ORDER] = {"PCCL_ORDER", 0, 0, 0, 1},
    [K_CHAOS] = {"PCCL_CHAOS", 0, 0, 0, 1},
    [K_CHAOS_SEED] = {"PCCL_CHAOS_SEED", 1, 1, 0, 1L << 62},
    [K_MAX_COLLS] = {"PCCL_MAX_COLLS", 4096, 4096, 1, 1 << 20},
    [K_DEPTH] = {"PCCL_QUEUE_DEPTH", 512, 512, 2, 8192},
    [K_ARENA] = {"PCCL_ARENA_BYTES", 1L << 30, 64L << 20, 1 << 16, 1L << 40},
    [K_PROFILE] = {"PCCL_PROFILE", 0, 0, 0, 1},
    [K_INTERLEAVE] = {"PCCL_INTERLEAVE", 0, 0, 0, 63}, /* 0: 2, or slots - 1 if less */
    [K_DYNAMIC] = {"PCCL_DYNAMIC", 1, 1, 0, 1},
};

static pcclResult_t knob(long cfg, int which, int host, long *out)
{
    const knob_def *d = &knobs[which];
    long v = host ? d->host : d->gpu;
    const char *e = getenv(d->env);
    if (cfg != PCCL_CONFIG_UNSET) {
        v = cfg;
    } else if (e && *e) {
        char *end;
        errno = 0;
        if (which == K_ORDER && (!strcmp(e, "fifo") || !strcmp(e, "priority"))) v = !strcmp(e, "priority");
        else {
            v = strtol(e, &end, 0);
            if (errno || *end)
                return pccl_err(NULL, pcclInvalidArgument, "environment %s='%s': not an integer", d->env, e);
        }
    }
    if (v < d->lo || v > d->hi)
        return pccl_err(NULL, pcclInvalidArgument, "%s=%ld out of range [%ld, %ld]", d->env, v, d->lo, d->hi);
    *out = v;
    return pcclSuccess;
}

static int pick_backend(const pcclConfig_t *cfg)
{
    if (cfg && cfg->backend != PCCL_BACKEND_DEFAULT) return cfg->backend;
    const char *e = getenv("PCCL_BACKEND");
    if (e && !strcmp(e, "host")) return PCCL_BACKEND_HOST;
    if (e && !strcmp(e, "gpu")) return PCCL_BACKEND_GPU;
    if (e && *e) return -2;
    return PCCL_BACKEND_GPU;
}

static pcclResult_t resolve(pcclComm_t c, const pcclConfig_t *cfg, int host)
{
    pcclConfig_t d = PCCL_CONFIG_INITIALIZER;
    if (!cfg) cfg = &d;
    if (cfg->size != sizeof(pcclConfig_t))
        return pccl_err(NULL, pcclInvalidArgument,
                        "config: size %zu is not sizeof(pcclConfig_t) %zu (use PCCL_CONFIG_INITIALIZER)",
                        cfg->size, sizeof(pcclConfig_t));
    long in[K_N] = {cfg->blocks, cfg->threads, cfg->chunkBytes, cfg->slots, cfg->spinHead, cfg->spinBase,
                    cfg->spinMin, cfg->sticky, cfg->quitUs, cfg->relaunchUs, cfg->order, cfg->chaos,
                    cfg->chaosSeed, cfg->maxColls, cfg->queueDepth, cfg->arenaBytes, cfg->profile, cfg->interleave,
                    cfg->dynamic};
    long v[K_N];
    for (int i = 0; i < K_N; i++) {
        pcclResult_t r = knob(in[i], i, host, &v[i]);
        if (r) return r;
    }
    pccl_knobs *k = &c->G.k;
    k->blocks = (int)v[K_BLOCKS];
    k->threads = host ? 1 : (int)(v[K_THREADS] & ~31L);
    k->slots = (int)v[K_SLOTS];
    k->spin_head = v[K_SPIN_HEAD];
    k->spin_base = v[K_SPIN_BASE];
    k->spin_min = v[K_SPIN_MIN];
    k->sticky = (int)v[K_STICKY];
    k->quit_ns = v[K_QUIT_US] * 1000;
    k->order = (int)v[K_ORDER];
    k->chaos = (int)v[K_CHAOS];
    k->chaos_seed = (uint64_t)v[K_CHAOS_SEED];
    k->max_colls = (int)v[K_MAX_COLLS];
    k->depth = (int)v[K_DEPTH];
    k->profile = (int)v[K_PROFILE];
    k->dynamic = (int)v[K_DYNAMIC];
    /* A block sends a step of each loop of its group before it receives the
     * next step of the first: around a ring, each connector then holds
     * `interleave` slots in flight, and a block's next send needs one more
     * free.  As many loops as slots wait for each other all around the ring
     * (chaos tests found it). */
    k->interleave = v[K_INTERLEAVE] ? (int)v[K_INTERLEAVE] : k->slots > 2 ? 2 : 1;
    if (k->interleave >= k->slots)
        return pccl_err(NULL, pcclInvalidArgument, "PCCL_INTERLEAVE=%d: must be below PCCL_SLOTS=%d", k->interleave,
                        k->slots);
    c->relaunch_ns = v[K_RELAUNCH_US] * 1000;
    c->arena_bytes = (size_t)v[K_ARENA];
    c->chunk_bytes = v[K_CHUNK];
    return pcclSuccess;
}

/* The knobs that shape the rings: how a collective is cut into loops and
 * groups, on which blocks, through how many slots, by which backend.  Ranks
 * that differ in one would not agree on what travels where (a hang or wrong
 * data), so a communicator whose ranks differ is refused at init. */
static const char *const shape_knobs[PCCL_SHAPE_N] = {"PCCL_BACKEND", "PCCL_BLOCKS",     "PCCL_THREADS",
                                                      "PCCL_CHUNK_BYTES", "PCCL_SLOTS", "PCCL_INTERLEAVE",
                                                      "PCCL_DYNAMIC"};

static void ring_shape(const pcclComm_t c, int64_t s[PCCL_SHAPE_N])
{
    const pccl_knobs *k = &c->G.k;
    const int64_t v[PCCL_SHAPE_N] = {c->be == &pccl_host_backend, k->blocks, k->threads, c->chunk_bytes,
                                     k->slots, k->interleave, k->dynamic};
    memcpy(s, v, sizeof v);
}

static const char *shape_value(int knob, int64_t v, char *buf, size_t n)
{
    if (knob == 0) return v ? "host" : "gpu";
    snprintf(buf, n, "%lld", (long long)v);
    return buf;
}

/* Every rank checks all ranks against rank 0, so that all of them fail
 * alike and none is left waiting for peers that gave up. */
static pcclResult_t shapes_agree(int nranks, const int64_t *const *shape)
{
    for (int r = 1; r < nranks; r++)
        for (int i = 0; i < PCCL_SHAPE_N; i++)
            if (shape[r][i] != shape[0][i]) {
                char a[24], b[24];
                return pccl_err(NULL, pcclInvalidArgument,
                                "pcclCommInitRank: %s is %s on rank 0 and %s on rank %d: the knobs that shape "
                                "the rings (lib/README.md) must be the same on every rank",
                                shape_knobs[i], shape_value(i, shape[0][i], a, sizeof a),
                                shape_value(i, shape[r][i], b, sizeof b), r);
            }
    return pcclSuccess;
}

/* ---- live communicators ---------------------------------------------------------- */

/* A handle is checked against this set before it is touched, so a call on a
 * destroyed (or made-up) communicator is an error, not a crash. */
static pcclComm_t *live;
static int nlive, caplive;

static int live_add(pcclComm_t c)
{
    pthread_mutex_lock(&global_mu);
    if (nlive == caplive) {
        int cap = caplive ? 2 * caplive : 16;
        pcclComm_t *p = realloc(live, (size_t)cap * sizeof *p);
        if (!p) { pthread_mutex_unlock(&global_mu); return -1; }
        live = p;
        caplive = cap;
    }
    live[nlive++] = c;
    pthread_mutex_unlock(&global_mu);
    return 0;
}

static int live_del(pcclComm_t c)
{
    int found = 0;
    pthread_mutex_lock(&global_mu);
    for (int i = 0; i < nlive; i++)
        if (live[i] == c) { live[i] = live[--nlive]; found = 1; break; }
    if (!nlive) { free(live); live = NULL; caplive = 0; }
    pthread_mutex_unlock(&global_mu);
    return found;
}

/* A call holds the communicator (users > 0) from its check to its return, so
 * destroy can wait for calls still inside (a pcclWait woken by the abort, say)
 * before it frees anything. */
static pthread_cond_t live_cv = PTHREAD_COND_INITIALIZER;

static int live_enter(pcclComm_t c)
{
    int found = 0;
    pthread_mutex_lock(&global_mu);
    for (int i = 0; i < nlive && !found; i++) found = live[i] == c;
    if (found) c->users++;
    pthread_mutex_unlock(&global_mu);
    return found;
}

static void live_exit(pcclComm_t *cp)
{
    pthread_mutex_lock(&global_mu);
    if (--(*cp)->users == 0) pthread_cond_broadcast(&live_cv);
    pthread_mutex_unlock(&global_mu);
}

static void live_drain(pcclComm_t c)
{
    pthread_mutex_lock(&global_mu);
    while (c->users) pthread_cond_wait(&live_cv, &global_mu);
    pthread_mutex_unlock(&global_mu);
}

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
    if (c->boot) pccl_boot_leave(c->boot, 1); /* peers stop writing into our arena first */
    if (c->mapped_next) c->be->unimport_arena(c, c->mapped_next);
    if (c->mapped_prev && c->mapped_prev != c->mapped_next) c->be->unimport_arena(c, c->mapped_prev);
    if (c->be) c->be->close(c);
    free(c->colls);
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

static void *poller_main(void *arg);

static pcclResult_t comm_create(pcclComm_t *out, int rank, int nranks, int dev, const pcclConfig_t *cfg)
{
    int which = pick_backend(cfg);
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
    pcclResult_t r = resolve(c, cfg, be == &pccl_host_backend);
    if (r) { comm_free(c); return r; }
    c->colls = calloc((size_t)c->G.k.max_colls, sizeof *c->colls);
    if (!c->colls) { comm_free(c); return pccl_err(NULL, pcclSystemError, "out of host memory"); }
    c->be = be;
    c->poll_hot_ns = be == &pccl_host_backend ? 50000 : 2000000;
    r = be->open(c);
    if (r) { c->be = NULL; comm_free(c); return r; }
    *out = c;
    return pcclSuccess;
}

static pcclResult_t comm_start(pcclComm_t c)
{
    if (live_add(c)) return pccl_err(c, pcclSystemError, "out of host memory");
    if (pthread_create(&c->poller, NULL, poller_main, c)) {
        live_del(c);
        return pccl_err(c, pcclSystemError, "cannot start the poller thread: %s", strerror(errno));
    }
    c->poller_started = 1;
    return pcclSuccess;
}

/* Ring neighbours' arenas, once every rank of the group exists. */
static pcclResult_t wire_group(pccl_group *g, int r)
{
    pcclComm_t c = g->comms[r];
    int n = g->n;
    pcclComm_t next = g->comms[(r + 1) % n], prev = g->comms[(r + n - 1) % n];
    pcclResult_t e;
    if ((e = c->be->enable_peer(c, next->dev)) || (e = c->be->enable_peer(c, prev->dev))) return e;
    c->G.next_arena = next->G.arena;
    c->G.prev_arena = prev->G.arena;
    return pcclSuccess;
}

pcclResult_t pcclCommInitAllConfig(pcclComm_t *comms, int ndev, const int *devlist, const pcclConfig_t *cfg)
{
    if (!comms) return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitAll: comms is NULL");
    if (ndev < 1 || ndev > PCCL_MAX_RANKS)
        return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitAll: ndev %d not in [1, %d]", ndev, PCCL_MAX_RANKS);
    pccl_group *g = group_new(ndev, NULL);
    if (!g) return pccl_err(NULL, pcclSystemError, "out of host memory");
    pcclResult_t r = pcclSuccess;
    for (int i = 0; i < ndev && !r; i++) {
        int dev = devlist ? devlist[i] : i;
        for (int j = 0; devlist && j < i; j++)
            if (devlist[j] == dev)
                r = pccl_err(NULL, pcclInvalidArgument, "pcclCommInitAll: device %d listed twice", dev);
        if (!r) r = comm_create(&g->comms[i], i, ndev, dev, cfg);
        if (!r) { g->comms[i]->group = g; g->comms[i]->group_slot = i; }
    }
    for (int i = 0; i < ndev && !r; i++) r = wire_group(g, i);
    for (int i = 0; i < ndev && !r; i++) r = comm_start(g->comms[i]);
    g->refs = ndev;
    if (r) { /* undo: stop pollers that started, free everything */
        for (int i = 0; i < ndev; i++)
            if (g->comms[i] && g->comms[i]->poller_started) {
                pcclComm_t c = g->comms[i];
                pthread_mutex_lock(&c->mu);
                c->stopping = 1;
                pthread_mutex_unlock(&c->mu);
                pthread_join(c->poller, NULL);
                live_del(c);
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

/* Ranks in separate processes: each maps its ring neighbours' arenas through
 * CUDA IPC handles published in the rendezvous file. */
static pcclResult_t init_multiprocess(pcclComm_t *comm, int nranks, int rank, int dev, const pcclConfig_t *cfg,
                                      pccl_boot *boot)
{
    pcclComm_t c = NULL;
    pcclResult_t r = comm_create(&c, rank, nranks, dev, cfg);
    if (r) { pccl_boot_leave(boot, 0); return r; }
    c->boot = boot;
    c->multiprocess = 1;
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
    ring_shape(c, mine);
    if (!r) r = c->be->export_arena(c, h);
    if (!r) r = pccl_boot_publish(boot, h, mine);
    for (int i = 0; i < nranks; i++) shape[i] = pccl_boot_shape(boot, i);
    if (!r) r = shapes_agree(nranks, shape);
    if (!r) r = c->be->import_arena(c, pccl_boot_handle(boot, next), &c->mapped_next);
    if (!r && prev == next) c->mapped_prev = c->mapped_next;
    else if (!r) r = c->be->import_arena(c, pccl_boot_handle(boot, prev), &c->mapped_prev);
    if (!r) {
        c->G.next_arena = c->mapped_next;
        c->G.prev_arena = c->mapped_prev;
        r = comm_start(c);
    }
    if (r) {
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
    if (!comm) return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitRank: comm is NULL");
    if (nranks < 1 || nranks > PCCL_MAX_RANKS)
        return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitRank: nranks %d not in [1, %d]", nranks,
                        PCCL_MAX_RANKS);
    if (rank < 0 || rank >= nranks)
        return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitRank: rank %d not in [0, %d)", rank, nranks);
    if (memcmp(id.internal, id_magic, sizeof id_magic))
        return pccl_err(NULL, pcclInvalidArgument, "pcclCommInitRank: commId was not made by pcclGetUniqueId");
    int dev = rank;
    const char *dor = getenv("PCCL_DEVICE_OF_RANK"); /* optional "d0,d1,...": rank r uses device d_r */
    if (dor) {
        const char *p = dor;
        for (int i = 0; i < rank && p; i++) { p = strchr(p, ','); if (p) p++; }
        if (p) dev = atoi(p);
    }
    pccl_boot *boot = NULL;
    pcclResult_t br = pccl_boot_join(&id, nranks, rank, dev, &boot);
    if (br) return br;
    if (!pccl_boot_one_process(boot)) return init_multiprocess(comm, nranks, rank, dev, cfg, boot);
    pccl_boot_leave(boot, 0);
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
            ring_shape(g->comms[i], each[i]);
            shape[i] = each[i];
        }
        r = shapes_agree(nranks, shape);
    }
    if (!r) r = wire_group(g, rank);
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

/* ---- argument checks --------------------------------------------------------- */

/* Checks the handle and holds the communicator until the function returns. */
#define CHECK_COMM(c, fn)                                                                         \
    if (!(c)) return pccl_err(NULL, pcclInvalidArgument, "%s: comm is NULL", fn);                  \
    if (!live_enter(c))                                                                           \
        return pccl_err(NULL, pcclInvalidUsage, "%s: comm is not a live communicator (destroyed?)", fn); \
    pcclComm_t held_ __attribute__((cleanup(live_exit))) = (c);                                   \
    (void)held_

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

/* ---- registration ----------------------------------------------------------- */

static const char *coll_name[] = {"pcclRegisterAllReduce", "pcclRegisterAllGather", "pcclRegisterReduceScatter",
                                  "pcclRegisterReduce", "pcclRegisterBroadcast"};

static pcclResult_t reg(pcclComm_t c, int type, size_t count, pcclDataType_t dt, pcclRedOp_t op, int root,
                        int prio, int *id)
{
    const char *fn = coll_name[type];
    CHECK_COMM(c, fn);
    if (!id) return pccl_err(c, pcclInvalidArgument, "%s: collId is NULL", fn);
    if ((int)dt < 0 || dt >= pcclNumTypes)
        return pccl_err(c, pcclInvalidArgument, "%s: datatype %d unknown", fn, (int)dt);
    if ((int)op < 0 || op >= pcclNumOps) return pccl_err(c, pcclInvalidArgument, "%s: op %d unknown", fn, (int)op);
    if (root < 0 || root >= c->nranks)
        return pccl_err(c, pcclInvalidArgument, "%s: root %d not in [0, %d)", fn, root, c->nranks);
    int es = pccl_type_size(dt);
    if (count > ((size_t)1 << 40) / (size_t)es / (size_t)c->nranks)
        return pccl_err(c, pcclInvalidArgument, "%s: count %zu too large", fn, count);

    pccl_coll d;
    memset(&d, 0, sizeof d);
    d.type = (uint8_t)type;
    d.dtype = (uint8_t)dt;
    d.op = (uint8_t)op;
    d.esize = (uint8_t)es;
    d.nranks = (uint8_t)c->nranks;
    d.rank = (uint8_t)c->rank;
    d.root = (uint8_t)root;
    d.priority = prio;
    d.count = count;
    /* Chunk: the knob, shrunk for small collectives so that their loops
     * cover about `blocks` blocks: one per PCCL_BYTES_PER_BLOCK per 512
     * threads, and at least 4 x 512 threads' worth; the others never see
     * it.  On 4 H200s, with blocks of 512 threads, one block per 512 KiB
     * and chunks down to 64 KiB took all-reduce at 8 and 16 MiB from 0.87
     * and 0.85 to 0.96 and 0.91 of NCCL's busbw, against one per 1 MiB and
     * 128 KiB (results/perf-tune-4gpu, lb2_512 and bpbi_512).  Then
     * shrunk to give each block `interleave` loops, whose steps it
     * alternates (scheduler.h, pccl_advance), unless that takes the chunk
     * below PCCL_MIN_ILV_CHUNK (per 512 threads): where latency rules,
     * smaller steps cost a commit each.  The host backend's blocks count as
     * 512 threads. */
    uint64_t ce = (uint64_t)c->chunk_bytes / (uint64_t)es, blocks = (uint64_t)c->G.k.blocks;
    uint64_t th = c->G.k.threads > 1 ? (uint64_t)c->G.k.threads : 512;
    uint64_t bytes = (uint64_t)count * (uint64_t)es * (type == 1 || type == 2 ? (uint64_t)c->nranks : 1);
    uint64_t want = bytes / (PCCL_BYTES_PER_BLOCK * th / 512), lo = (4 * 512 + th - 1) / th;
    if (lo > blocks) lo = blocks;
    if (want < lo) want = lo;
    if (want < blocks) blocks = want;
    uint64_t per = (count + blocks - 1) / blocks, ilv = (uint64_t)c->G.k.interleave;
    if (type == 0) per = (per + c->nranks - 1) / (uint64_t)c->nranks;
    if (per / ilv * (uint64_t)es >= PCCL_MIN_ILV_CHUNK * th / 512) per = (per + ilv - 1) / ilv;
    per = (per + 15) & ~(uint64_t)15;
    if (ce > per) ce = per;
    ce &= ~(uint64_t)15;
    if (ce < 16) ce = 16;
    /* Balance: loops are dealt round robin, so 32 loops on 24 blocks take
     * two loops' time where 1.33 would do.  Shrink the chunk until the loops
     * are a multiple of the blocks (every block then has as many). */
    uint64_t lspan = type == 0 ? (uint64_t)c->nranks : 1, loops = (count + ce * lspan - 1) / (ce * lspan);
    if (loops > blocks && loops % blocks) {
        loops = (loops + blocks - 1) / blocks * blocks;
        ce = (count + loops * lspan - 1) / (loops * lspan);
        ce = (ce + 15) & ~(uint64_t)15;
    }
    d.chunk_elems = ce;
    /* Groups: up to `interleave` loops, as many as every block has (1 where
     * the loops do not outnumber the blocks).  With large chunks, as many
     * as leave every block two groups: groups past the first per block are
     * claimed at run time (dynamic), which evens out fast and slow
     * multiprocessors, and a large step hides its commit anyway.  On 4
     * H200s all-reduce busbw at 64 and 128 MiB went from 0.96 to 1.01 of
     * NCCL's, and fell from 0.95 to 0.86 at 32 MiB (64 KiB chunks) where
     * applied there too (results/README.md). */
    uint64_t kb = (uint64_t)c->G.k.blocks, nl = pccl_total_loops(&d), per_grp = kb;
    if (ce * (uint64_t)es >= 2 * PCCL_MIN_ILV_CHUNK * th / 512 && c->G.k.dynamic) per_grp = 2 * kb;
    uint64_t gl = nl > per_grp ? nl / per_grp : 1;
    d.ilv = (uint32_t)(gl < ilv ? gl : ilv);
    d.ngroups = pccl_groups(&d);
    d.used = pccl_used_blocks(&d, c->G.k.blocks);
    d.dyn = c->G.k.dynamic && d.ngroups > d.used;
    pccl_build_program(&d);

    pthread_mutex_lock(&c->mu);
    pcclResult_t r = pcclSuccess;
    size_t need = pccl_conn_stride(&d, c->G.k.slots) * (size_t)d.used;
    if (c->ncolls >= c->G.k.max_colls)
        r = pccl_err(c, pcclInvalidUsage, "%s: %d collectives registered already (PCCL_MAX_COLLS)", fn, c->ncolls);
    else if (c->arena_used + need > c->arena_bytes)
        r = pccl_err(c, pcclInvalidUsage,
                     "%s: connector arena full: %zu of %zu bytes used, %zu needed (PCCL_ARENA_BYTES)", fn,
                     c->arena_used, c->arena_bytes, need);
    if (!r) {
        int i = c->ncolls;
        d.conn_off = c->arena_used;
        r = c->be->upload(c, &c->G.colls[i], &d, sizeof d);
        if (!r) {
            pccl_hcoll *h = &c->colls[i];
            memset(h, 0, sizeof *h);
            h->dev = d;
            size_t b = count * (size_t)es;
            h->in_bytes = type == 2 ? b * c->nranks : b;
            h->out_bytes = type == 1 ? b * c->nranks : b;
            c->arena_used += need;
            c->ncolls++;
            *id = i;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return r;
}

pcclResult_t pcclRegisterAllReduce(pcclComm_t c, size_t n, pcclDataType_t t, pcclRedOp_t op, int p, int *id)
{
    return reg(c, pcclCollAllReduce, n, t, op, 0, p, id);
}
pcclResult_t pcclRegisterAllGather(pcclComm_t c, size_t n, pcclDataType_t t, int p, int *id)
{
    return reg(c, pcclCollAllGather, n, t, pcclSum, 0, p, id);
}
pcclResult_t pcclRegisterReduceScatter(pcclComm_t c, size_t n, pcclDataType_t t, pcclRedOp_t op, int p, int *id)
{
    return reg(c, pcclCollReduceScatter, n, t, op, 0, p, id);
}
pcclResult_t pcclRegisterReduce(pcclComm_t c, size_t n, pcclDataType_t t, pcclRedOp_t op, int root, int p, int *id)
{
    return reg(c, pcclCollReduce, n, t, op, root, p, id);
}
pcclResult_t pcclRegisterBroadcast(pcclComm_t c, size_t n, pcclDataType_t t, int root, int p, int *id)
{
    return reg(c, pcclCollBroadcast, n, t, pcclSum, root, p, id);
}

/* The poller's pace.  While an invocation is in flight and something
 * happened (a submission, a completion) within poll_hot_ns, it only yields
 * between polls: a completion is seen within a microsecond or two, where a
 * sleep would cost tens (nanosleep's timer slack alone is 50 us).  Otherwise
 * it sleeps on poll_cv, which pcclRun signals, so an invocation after a quiet
 * spell is seen at once too; the sleep grows from 20 us (a collective still
 * in flight: a stuck one, or a long one) to 1 ms (nothing in flight).  The
 * daemon's liveness (a stream query, a few microseconds of driver time) is
 * checked at most every POLL_QUERY_NS: a quit daemon is relaunched after
 * PCCL_RELAUNCH_US at the earliest anyway.  The host backend's window is
 * short: there the "GPUs" are threads that need the cores a spinning poller
 * would take. */
#define POLL_COOL_NS 20000000
#define POLL_QUERY_NS 10000

/* ---- invocation -------------------------------------------------------------- */

/* Called with c->mu held. */
static pcclResult_t launch_locked(pcclComm_t c)
{
    pcclResult_t r = c->be->launch(c);
    if (r) return r;
    c->launches++;
    c->submitted_at_launch = c->submitted;
    c->was_running = 1;
    c->running_seen_ns = pccl_now_ns();
    return pcclSuccess;
}

static int coll_id_ok(pcclComm_t c, int id) { return id >= 0 && id < c->ncolls; }

pcclResult_t pcclRun(pcclComm_t c, int id, const void *sendbuff, void *recvbuff, pcclCallback_t cb, void *arg)
{
    CHECK_COMM(c, "pcclRun");
    pthread_mutex_lock(&c->mu);
    pcclResult_t r = pcclSuccess;
    if (c->aborted) r = pccl_err(c, pcclInvalidUsage, "pcclRun: communicator aborted");
    else if (!coll_id_ok(c, id))
        r = pccl_err(c, pcclInvalidArgument, "pcclRun: collId %d not registered (have %d)", id, c->ncolls);
    if (r) { pthread_mutex_unlock(&c->mu); return r; }
    pccl_hcoll *h = &c->colls[id];
    int type = h->dev.type, root = h->dev.root;
    int needs_in = !(type == pcclCollBroadcast && c->rank != root);
    int needs_out = !(type == pcclCollReduce && c->rank != root);
    if (h->inflight)
        r = pccl_err(c, pcclInvalidUsage, "pcclRun: collId %d is still in flight (wait for it first)", id);
    else if (c->outstanding >= (uint64_t)c->G.k.depth)
        r = pccl_err(c, pcclInvalidUsage, "pcclRun: %d invocations in flight already (PCCL_QUEUE_DEPTH)",
                     c->G.k.depth);
    else if (needs_in)
        r = c->be->check_buf(c, sendbuff, h->in_bytes, "sendbuff");
    if (!r && needs_out) r = c->be->check_buf(c, recvbuff, h->out_bytes, "recvbuff");
    if (r) { pthread_mutex_unlock(&c->mu); return r; }
    /* Callback and buffers first, the SQ entries last (release): a daemon
     * that sees the entry sees everything, and a completion finds its
     * callback. */
    h->inflight = 1;
    h->cb = cb;
    h->cb_arg = arg;
    c->G.args[id].sendbuf = sendbuff;
    c->G.args[id].recvbuf = recvbuff;
    /* Block 0 hands it on to the other blocks that take part (core.h, "SQ"). */
    uint64_t t = c->sq_tail++;
    pccl_st_rel(&c->G.sq[t % (uint64_t)c->G.k.depth], (((t + 1) & 0xffffffffull) << 32) | (uint32_t)id);
    c->submitted++;
    c->outstanding++;
    pthread_cond_signal(&c->poll_cv); /* a sleeping poller watches from now on */
    /* Seen running by the poller a moment ago: no stream query (driver time
     * on every call).  Should it have quit since, the poller relaunches it
     * within POLL_QUERY_NS, as it does any daemon that quits with a request
     * newer than its launch. */
    int fresh = c->was_running && pccl_now_ns() - c->running_seen_ns < 2 * POLL_QUERY_NS;
    if (!fresh && !c->be->running(c)) r = launch_locked(c);
    pthread_mutex_unlock(&c->mu);
    return r;
}

pcclResult_t pcclTest(pcclComm_t c, int id, int *done)
{
    CHECK_COMM(c, "pcclTest");
    if (!done) return pccl_err(c, pcclInvalidArgument, "pcclTest: done is NULL");
    pthread_mutex_lock(&c->mu);
    pcclResult_t r = pcclSuccess;
    if (!coll_id_ok(c, id)) r = pccl_err(c, pcclInvalidArgument, "pcclTest: collId %d not registered", id);
    else {
        *done = !c->colls[id].inflight && !c->colls[id].in_callback;
        if (*done) r = c->colls[id].status;
    }
    pthread_mutex_unlock(&c->mu);
    return r;
}

pcclResult_t pcclWait(pcclComm_t c, int id)
{
    CHECK_COMM(c, "pcclWait");
    pthread_mutex_lock(&c->mu);
    if (!coll_id_ok(c, id)) {
        pthread_mutex_unlock(&c->mu);
        return pccl_err(c, pcclInvalidArgument, "pcclWait: collId %d not registered", id);
    }
    while (c->colls[id].inflight || c->colls[id].in_callback) pthread_cond_wait(&c->cv, &c->mu);
    pcclResult_t r = c->colls[id].status;
    pthread_mutex_unlock(&c->mu);
    return r;
}

static void wait_all_locked(pcclComm_t c)
{
    while (c->outstanding || c->callbacks) pthread_cond_wait(&c->cv, &c->mu);
}

pcclResult_t pcclWaitAll(pcclComm_t c)
{
    CHECK_COMM(c, "pcclWaitAll");
    pthread_mutex_lock(&c->mu);
    wait_all_locked(c);
    pcclResult_t r = c->aborted ? pcclRemoteError : pcclSuccess;
    pthread_mutex_unlock(&c->mu);
    return r;
}

pcclResult_t pcclDeviceSynchronize(pcclComm_t c)
{
    CHECK_COMM(c, "pcclDeviceSynchronize");
    return c->be->devsync(c);
}

/* Adds blocks [lo, hi)'s published totals to *s (quits: the least of them,
 * since the daemon quits when all its blocks have). */
static void add_blocks(pcclComm_t c, int lo, int hi, pcclStats_t *s)
{
    uint64_t q = UINT64_MAX;
    for (int b = lo; b < hi; b++) {
        const pccl_blk_stats *t = &c->G.stats[b];
        s->preemptions += __atomic_load_n(&t->preemptions, __ATOMIC_ACQUIRE);
        s->primitives += __atomic_load_n(&t->primitives, __ATOMIC_ACQUIRE);
        s->blockCompletions += __atomic_load_n(&t->completions, __ATOMIC_ACQUIRE);
        s->sqNs += __atomic_load_n(&t->ns_sq, __ATOMIC_ACQUIRE);
        s->waitNs += __atomic_load_n(&t->ns_wait, __ATOMIC_ACQUIRE);
        s->execNs += __atomic_load_n(&t->ns_exec, __ATOMIC_ACQUIRE);
        s->commitNs += __atomic_load_n(&t->ns_commit, __ATOMIC_ACQUIRE);
        s->cqNs += __atomic_load_n(&t->ns_cq, __ATOMIC_ACQUIRE);
        s->lifeNs += __atomic_load_n(&t->ns_life, __ATOMIC_ACQUIRE);
        uint64_t bq = __atomic_load_n(&t->quits, __ATOMIC_ACQUIRE);
        if (bq < q) q = bq;
    }
    s->quits = q == UINT64_MAX ? 0 : q;
}

pcclResult_t pcclCommGetStats(pcclComm_t c, pcclStats_t *s)
{
    CHECK_COMM(c, "pcclCommGetStats");
    if (!s) return pccl_err(c, pcclInvalidArgument, "pcclCommGetStats: stats is NULL");
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&c->mu);
    s->completed = c->completed;
    s->launches = c->launches;
    s->blocks = c->G.k.blocks;
    s->smId = -1;
    add_blocks(c, 0, c->G.k.blocks, s);
    pthread_mutex_unlock(&c->mu);
    return pcclSuccess;
}

pcclResult_t pcclCommGetBlockStats(pcclComm_t c, int block, pcclStats_t *s)
{
    CHECK_COMM(c, "pcclCommGetBlockStats");
    if (!s) return pccl_err(c, pcclInvalidArgument, "pcclCommGetBlockStats: stats is NULL");
    if (block < 0 || block >= c->G.k.blocks)
        return pccl_err(c, pcclInvalidArgument, "pcclCommGetBlockStats: block %d not in [0, %d)", block,
                        c->G.k.blocks);
    memset(s, 0, sizeof *s);
    pthread_mutex_lock(&c->mu);
    s->completed = c->completed;
    s->launches = c->launches;
    s->blocks = 1;
    s->smId = (int)__atomic_load_n(&c->G.stats[block].sm, __ATOMIC_ACQUIRE) - 1;
    add_blocks(c, block, block + 1, s);
    pthread_mutex_unlock(&c->mu);
    return pcclSuccess;
}

pcclResult_t pcclMemAlloc(pcclComm_t c, void **p, size_t bytes)
{
    CHECK_COMM(c, "pcclMemAlloc");
    if (!p) return pccl_err(c, pcclInvalidArgument, "pcclMemAlloc: ptr is NULL");
    if (!bytes) return pccl_err(c, pcclInvalidArgument, "pcclMemAlloc: size is 0");
    return c->be->mem_alloc(c, p, bytes);
}

pcclResult_t pcclMemFree(pcclComm_t c, void *p)
{
    CHECK_COMM(c, "pcclMemFree");
    return p ? c->be->mem_free(c, p) : pcclSuccess;
}

/* ---- the poller ---------------------------------------------------------------- */

static void finish(pcclComm_t c, int id, pcclResult_t status)
{
    pccl_hcoll *h = &c->colls[id];
    pcclCallback_t cb = h->cb;
    void *arg = h->cb_arg;
    h->status = status;
    h->inflight = 0;
    h->completions++;
    c->outstanding--;
    c->completed++;
    c->backoff_ns = c->relaunch_ns;
    if (cb) {
        h->in_callback = 1;
        c->callbacks++;
        pthread_mutex_unlock(&c->mu);
        cb(id, status, arg);
        pthread_mutex_lock(&c->mu);
        h->in_callback = 0;
        c->callbacks--;
    }
    pthread_cond_broadcast(&c->cv);
}

/* Takes CQ entries in ticket order; returns how many.  Called with mu held. */
static int drain(pcclComm_t c)
{
    int n = 0;
    for (;;) {
        uint64_t t = c->cq_head, e = pccl_ld_acq(&c->G.cq[t % (uint64_t)c->G.k.depth]);
        if ((e >> 32) != ((t + 1) & 0xffffffffull)) return n;
        int id = (int)(e & 0xffffffffu);
        c->cq_head++;
        n++;
        if (id < 0 || id >= c->ncolls || !c->colls[id].inflight) {
            pccl_err(c, pcclInternalError, "CQ entry for collective %d that is not in flight", id);
            continue;
        }
        finish(c, id, pcclSuccess);
    }
}

/* Restart policy, with mu held: a quit daemon with work left is relaunched at
 * once when new requests came since its launch, else after a delay that
 * doubles while relaunches bring no completion. */
static void maybe_launch(pcclComm_t c, uint64_t now)
{
    if (c->stopping == 2 || c->aborted) return;
    if (c->be->running(c)) {
        c->was_running = 1;
        c->running_seen_ns = now;
        return;
    }
    if (c->was_running) { c->was_running = 0; c->quit_seen_ns = (int64_t)now; }
    if (!c->outstanding) return;
    if (c->submitted != c->submitted_at_launch || (int64_t)now - c->quit_seen_ns >= c->backoff_ns) {
        if (c->submitted == c->submitted_at_launch) {
            c->backoff_ns *= 2;
            if (c->backoff_ns > 10000000) c->backoff_ns = 10000000;
        }
        if (launch_locked(c)) pccl_err(c, pcclUnhandledCudaError, "relaunching the daemon failed");
    }
}


static void poller_sleep(pcclComm_t c, int64_t ns)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += ns;
    while (t.tv_nsec >= 1000000000) { t.tv_nsec -= 1000000000; t.tv_sec++; }
    pthread_cond_timedwait(&c->poll_cv, &c->mu, &t);
}

static void *poller_main(void *arg)
{
    pcclComm_t c = arg;
    uint64_t last_event = pccl_now_ns(), last_query = 0, seen = 0;
    pthread_mutex_lock(&c->mu);
    c->backoff_ns = c->relaunch_ns;
    while (c->stopping != 2) {
        int n = drain(c);
        uint64_t now = pccl_now_ns();
        if (n || c->submitted != seen) { last_event = now; seen = c->submitted; }
        if (now - last_query >= POLL_QUERY_NS || n) { maybe_launch(c, now); last_query = now; }
        if (n) continue;
        uint64_t quiet = now - last_event;
        if (c->outstanding && quiet < c->poll_hot_ns) {
            pthread_mutex_unlock(&c->mu);
            sched_yield();
            pthread_mutex_lock(&c->mu);
        } else {
            poller_sleep(c, !c->outstanding ? 1000000 : quiet < POLL_COOL_NS ? 20000 : 200000);
        }
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* ---- teardown ---------------------------------------------------------------- */

static void shutdown_comm(pcclComm_t c, int abort)
{
    pthread_mutex_lock(&c->mu);
    c->stopping = 1;
    if (abort) {
        c->aborted = 1;
        __atomic_store_n(&c->G.hdr->abort, 1u, __ATOMIC_RELEASE);
    } else {
        wait_all_locked(c);
    }
    c->stopping = 2; /* the poller ends, nothing relaunches */
    pthread_cond_signal(&c->poll_cv);
    pthread_mutex_unlock(&c->mu);
    if (c->poller_started) pthread_join(c->poller, NULL);
    c->poller_started = 0;
    __atomic_store_n(&c->G.hdr->abort, 1u, __ATOMIC_RELEASE);
    c->be->devsync(c); /* the daemon has quit for good */
    pthread_mutex_lock(&c->mu);
    if (abort) /* whatever was in flight fails; its waiters and callbacks hear it */
        for (int i = 0; i < c->ncolls; i++)
            if (c->colls[i].inflight) finish(c, i, pcclRemoteError);
    pthread_mutex_unlock(&c->mu);
}

pcclResult_t pcclCommDestroy(pcclComm_t c)
{
    if (!c) return pccl_err(NULL, pcclInvalidArgument, "pcclCommDestroy: comm is NULL");
    if (!live_del(c))
        return pccl_err(NULL, pcclInvalidUsage, "pcclCommDestroy: comm is not a live communicator (destroyed?)");
    shutdown_comm(c, 0);
    live_drain(c);
    group_leave(c->group);
    return pcclSuccess;
}

pcclResult_t pcclCommAbort(pcclComm_t c)
{
    if (!c) return pccl_err(NULL, pcclInvalidArgument, "pcclCommAbort: comm is NULL");
    if (!live_del(c))
        return pccl_err(NULL, pcclInvalidUsage, "pcclCommAbort: comm is not a live communicator (destroyed?)");
    shutdown_comm(c, 1);
    live_drain(c);
    group_leave(c->group);
    return pcclSuccess;
}
