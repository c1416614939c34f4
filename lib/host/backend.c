/* The host backend: a "GPU" is a set of daemon threads (one per block) over
 * host memory.  A launch starts the threads, a voluntary quit ends them, and
 * the emulated device synchronization waits for the threads of every launch
 * made before it, as cudaDeviceSynchronize waits for the daemon kernel.
 *
 * Ranks in separate processes: the connector arena, the only memory a peer
 * writes into (tails, heads, slot headers and data), moves into POSIX shared
 * memory at export, under a name derived from the rendezvous file's, and
 * the peers map it by that name, as CUDA IPC handles map a GPU's.  The name
 * is removed once every rank has mapped it (h_forget); the memory lives until
 * the last process unmaps it, so a peer that still writes into it after this
 * rank left writes into memory, not into a hole. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t launched, finished; /* launches made (queued included), and ended */
    int remaining;
    /* a launch queued behind the running one (the poller's launch ahead):
     * what the daemon sees of it, started by the running one's last thread
     * out, as a stream starts the next kernel */
    int queued;
    pccl_gpu queued_G;
    void *dev;     /* one allocation for the daemon's "device memory" */
    void *pinned;
    char *arena;
    char *mapped[PCCL_MAX_RANKS]; /* peers' arenas mapped (import): the ring's two, the mesh's n - 1 */
    size_t mapped_bytes[PCCL_MAX_RANKS];
    /* PCCL_TEST_DRAIN_LOCKS=1: the device synchronization holds ctx_mu, which
     * a launch and the running query need, while it waits, as CUDA's lazy
     * module load holds the context lock while it waits for the GPU to drain
     * (and cudaFree) */
    int drain_locks;
    /* PCCL_TEST_UPLOAD_DRAINS=1: a registration's upload waits until no
     * daemon runs, as a driver call caught behind a drain (a lazy module
     * load on another thread) or a copy queued behind the daemon does */
    int upload_drains;
    pcclStream_t copy; /* one rank's copies (lib/direct.c): made at the first */
    uint64_t copied;   /* of them, done (the stream stores it) */
    /* PCCL_TEST_COPY_FAIL=K: copy K (1, 2 ..) and every later one fail, as a
     * GPU copy's event reports an error and CUDA's errors stick: nothing
     * copied, each counted done and failed (lib/direct.c's error path) */
    uint64_t copy_fail_at;
    /* PCCL_TEST_SLOW_LAUNCH_US=US: the first launch call takes US more
     * before it starts the threads, as a GPU launch call that loads the
     * daemon's module (milliseconds) */
    long launch_us;
    pthread_mutex_t ctx_mu;
} host_bk;

typedef struct {
    pcclComm_t c;
    int b;
    pccl_gpu G; /* the launch's parameter, as a kernel's: by value at the launch */
} block_arg;

/* A test knob (host.h, pccl_host_knobs): "W:US" counts for block or rank
 * W only (who), "US" for all (who < 0); 0 where unset or another's. */
static long knob_for(const char *knob, int who)
{
    const char *e = getenv(knob);
    int w;
    long us;
    if (!e) return 0;
    if (who >= 0) return sscanf(e, "%d:%ld", &w, &us) == 2 && w == who && us > 0 ? us : 0;
    return sscanf(e, "%ld", &us) == 1 && us > 0 ? us : 0;
}

__thread pccl_host_knobs pccl_host_test;

void pccl_host_slow(int us)
{
    if (us > 0) usleep((useconds_t)us);
}

static pcclResult_t start_blocks(pcclComm_t c, const pccl_gpu *G);

static void *block_main(void *p)
{
    block_arg a = *(block_arg *)p;
    free(p);
    pthread_setname_np(pthread_self(), "pccl-daemon"); /* named: tests count what is left */
    pcclComm_t c = a.c;
    pccl_host_test.skew_ns = (uint64_t)knob_for("PCCL_TEST_CLOCK_SKEW_US", c->rank) * 1000;
    pccl_host_test.block_us = (int)knob_for("PCCL_TEST_SLOW_BLOCK", a.b);
    pccl_host_test.start_us = (int)knob_for("PCCL_TEST_SLOW_START_US", -1);
    pccl_host_test.try_us = (int)knob_for("PCCL_TEST_SLOW_TRY", a.b);
    host_bk *h = c->bk;
    int32_t *tq = malloc(sizeof(int32_t) * (size_t)c->G.k.depth);
    if (tq) {
        pccl_blk S;
        memset(&S, 0, sizeof S);
        S.tq = tq;
        const pccl_gpu *G = &a.G;
        PCCL_DAEMON_BODY(&S, G, a.b);
        free(tq);
    }
    pthread_mutex_lock(&h->mu);
    if (--h->remaining == 0) {
        h->finished++;
        if (h->queued) {
            h->queued = 0;
            start_blocks(c, &h->queued_G);
            if (h->remaining == 0) h->finished++; /* no thread started: pccl_err said why */
        }
        pthread_cond_broadcast(&h->cv);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

static pcclResult_t h_open(pcclComm_t c)
{
    host_bk *h = calloc(1, sizeof *h);
    if (!h) return pccl_err(NULL, pcclSystemError, "out of host memory");
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    pthread_mutex_init(&h->ctx_mu, NULL);
    const char *dl = getenv("PCCL_TEST_DRAIN_LOCKS");
    h->drain_locks = dl && atoi(dl) > 0;
    const char *ud = getenv("PCCL_TEST_UPLOAD_DRAINS");
    h->upload_drains = ud && atoi(ud) > 0;
    const char *cf = getenv("PCCL_TEST_COPY_FAIL");
    h->copy_fail_at = cf && atoi(cf) > 0 ? (uint64_t)atoi(cf) : 0;
    h->launch_us = knob_for("PCCL_TEST_SLOW_LAUNCH_US", -1);
    c->bk = h;
    size_t total = pccl_carve_device(&c->G, NULL);
    h->dev = calloc(1, total);
    h->pinned = calloc(1, pccl_pinned_bytes(&c->G.k));
    /* Mapped, not calloc'ed: pages come zeroed when first touched, and a
     * collective touches only its share of the (default 256 MiB) arena.
     * The sanitizers' calloc zeroes it all at once: a 2-rank init cost
     * 165 ms of CPU under TSan (26 ms under ASan, whose free of it cost
     * more), seconds on a loaded machine; mapped, 1-6 ms (0-1 ms). */
    h->arena = mmap(NULL, c->arena_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (h->arena == MAP_FAILED) h->arena = NULL;
    if (!h->dev || !h->pinned || !h->arena) return pccl_err(NULL, pcclSystemError, "out of host memory");
    pccl_carve_device(&c->G, h->dev);
    pccl_carve_pinned(&c->G, h->pinned);
    c->G.arena = h->arena;
    return pcclSuccess;
}

static void h_close(pcclComm_t c)
{
    host_bk *h = c->bk;
    if (!h) return;
    pccl_host_streams_drop(c);
    free(h->dev);
    free(h->pinned);
    if (h->arena) munmap(h->arena, c->arena_bytes);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->ctx_mu);
    free(h);
    c->bk = NULL;
}

/* Rank's arena's shared-memory name: "/pccl-<id>-r<rank>" (under /dev/shm). */
static void shm_name(pcclComm_t c, int rank, char *out, size_t n)
{
    const char *p = strrchr(pccl_boot_path(c->boot), '/');
    snprintf(out, n, "%s-r%d", p, rank);
}

/* Before any registration (the arena is still all zeros): the arena moves
 * into a fresh shared-memory object. */
static pcclResult_t h_export(pcclComm_t c, void *handle)
{
    host_bk *h = c->bk;
    char name[64];
    shm_name(c, c->rank, name, sizeof name);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return pccl_err(c, pcclSystemError, "shm_open %s: %s", name, strerror(errno));
    void *m = MAP_FAILED;
    if (!ftruncate(fd, (off_t)c->arena_bytes))
        m = mmap(NULL, c->arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    close(fd);
    if (m == MAP_FAILED) {
        shm_unlink(name);
        return pccl_err(c, pcclSystemError, "shared connector arena %s (%zu bytes): %s", name, c->arena_bytes,
                        strerror(err));
    }
    munmap(h->arena, c->arena_bytes);
    h->arena = m;
    c->G.arena = m;
    memset(handle, 0, 64);
    memcpy(handle, name, strlen(name));
    return pcclSuccess;
}

static pcclResult_t h_import(pcclComm_t c, const void *handle, char **mapped)
{
    host_bk *h = c->bk;
    char name[65];
    memcpy(name, handle, 64);
    name[64] = 0;
    int fd = shm_open(name, O_RDWR, 0);
    struct stat st;
    /* Published and gone before every rank mapped it: a rank whose init
     * failed (a peer died) removed it: a remote error, as the others see. */
    if (fd < 0 && errno == ENOENT)
        return pccl_err(c, pcclRemoteError, "a peer's connector arena %s is gone: a rank's init failed", name);
    if (fd < 0 || fstat(fd, &st)) {
        pcclResult_t r = pccl_err(c, pcclSystemError, "a peer's connector arena %s: %s", name, strerror(errno));
        if (fd >= 0) close(fd);
        return r;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    close(fd);
    if (m == MAP_FAILED) return pccl_err(c, pcclSystemError, "mmap %s: %s", name, strerror(err));
    int i = 0;
    while (h->mapped[i]) i++; /* a free slot: at most n - 1 < PCCL_MAX_RANKS peers are mapped */
    h->mapped[i] = m;
    h->mapped_bytes[i] = (size_t)st.st_size;
    *mapped = m;
    return pcclSuccess;
}

static void h_unimport(pcclComm_t c, char *mapped)
{
    host_bk *h = c->bk;
    for (int i = 0; i < PCCL_MAX_RANKS; i++)
        if (h->mapped[i] == mapped) {
            munmap(mapped, h->mapped_bytes[i]);
            h->mapped[i] = NULL;
        }
}

/* Removes rank's arena's name (it may be gone already, or never made). */
static void h_forget(pcclComm_t c, int rank)
{
    char name[64];
    shm_name(c, rank, name, sizeof name);
    shm_unlink(name);
}
static pcclResult_t h_enable_peer(pcclComm_t c, int peer) { return pcclSuccess; }

static int h_running(pcclComm_t c);

static pcclResult_t h_upload(pcclComm_t c, void *dst, const void *src, size_t n)
{
    while (((host_bk *)c->bk)->upload_drains && h_running(c)) usleep(100);
    memcpy(dst, src, n);
    return pcclSuccess;
}

/* One launch's threads, h->mu held. */
static pcclResult_t start_blocks(pcclComm_t c, const pccl_gpu *G)
{
    host_bk *h = c->bk;
    pcclResult_t r = pcclSuccess;
    for (int b = 0; b < G->k.blocks; b++) {
        block_arg *a = malloc(sizeof *a);
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (a) a->c = c, a->b = b, a->G = *G;
        if (!a || pthread_create(&t, &at, block_main, a)) {
            free(a);
            r = pccl_err(c, pcclSystemError, "cannot start daemon thread: %s", strerror(errno));
        } else {
            h->remaining++;
        }
        pthread_attr_destroy(&at);
    }
    return r;
}

static pcclResult_t h_launch(pcclComm_t c)
{
    host_bk *h = c->bk;
    pthread_mutex_lock(&h->mu);
    int first = h->launched == 0;
    pthread_mutex_unlock(&h->mu);
    if (first) pccl_host_slow((int)h->launch_us);
    if (h->drain_locks) pthread_mutex_lock(&h->ctx_mu);
    pthread_mutex_lock(&h->mu);
    /* As on a stream, the launch follows the last one's end: made while one
     * runs (the poller's launch ahead, or a relaunch once the last block's
     * word said the launch is over, its threads still returning), it is
     * queued, and the last thread out starts it. */
    pcclResult_t r = pcclSuccess;
    if (h->remaining > 0 && h->queued) {
        r = pccl_err(c, pcclInternalError, "host backend: a launch is queued already");
    } else if (h->remaining > 0) {
        h->launched++;
        h->queued = 1;
        h->queued_G = c->G;
    } else {
        h->launched++;
        r = start_blocks(c, &c->G);
        if (h->remaining == 0) h->finished++;
    }
    pthread_mutex_unlock(&h->mu);
    if (h->drain_locks) pthread_mutex_unlock(&h->ctx_mu);
    return r;
}

static int h_running(pcclComm_t c)
{
    host_bk *h = c->bk;
    /* PCCL_TEST_DRAIN_LOCKS: the query waits for the drain's lock, as a
     * driver call may wait for the context lock a lazy module load holds */
    if (h->drain_locks) pthread_mutex_lock(&h->ctx_mu);
    pthread_mutex_lock(&h->mu);
    int r = h->remaining > 0;
    pthread_mutex_unlock(&h->mu);
    if (h->drain_locks) pthread_mutex_unlock(&h->ctx_mu);
    return r;
}

/* As cudaDeviceSynchronize: the streams' work issued before the call (which
 * may wait for collectives: the poller relaunches the daemon meanwhile),
 * and every daemon instance launched before the call. */
static pcclResult_t h_devsync(pcclComm_t c)
{
    host_bk *h = c->bk;
    if (h->drain_locks) pthread_mutex_lock(&h->ctx_mu);
    pthread_mutex_lock(&h->mu);
    uint64_t target = h->launched;
    pthread_mutex_unlock(&h->mu);
    pccl_host_streams_sync(c);
    pthread_mutex_lock(&h->mu);
    while (h->finished < target) pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
    if (h->drain_locks) pthread_mutex_unlock(&h->ctx_mu);
    return pcclSuccess;
}

/* One rank's copies (lib/direct.c) on the communicator's own copy stream,
 * a host stream of its own made at the first, as the GPU's copy stream:
 * each copy runs on the stream's thread, after pcclRun returned, then the
 * stream stores its number. */
static pcclResult_t h_copy(pcclComm_t c, void *dst, const void *src, size_t n, uint64_t seq)
{
    host_bk *h = c->bk;
    pcclResult_t r = h->copy ? pcclSuccess : pcclHostStreamCreate(c, &h->copy);
    if (!r && !(h->copy_fail_at && seq >= h->copy_fail_at)) r = pccl_host_stream_copy(c, h->copy, dst, src, n);
    if (!r) r = pccl_host_stream_write(c, h->copy, &h->copied, seq);
    return r;
}

static uint64_t h_copied(pcclComm_t c, int *failed)
{
    host_bk *h = c->bk;
    uint64_t n = pccl_ld_acq(&h->copied);
    if (failed) *failed = h->copy_fail_at && n >= h->copy_fail_at; /* a memcpy fails only so */
    return n;
}

static pcclResult_t h_check_buf(pcclComm_t c, const void *p, size_t bytes, const char *what)
{
    if (!p && bytes) return pccl_err(c, pcclInvalidArgument, "pcclRun: %s is NULL", what);
    return pcclSuccess;
}

static pcclResult_t h_alloc(pcclComm_t c, void **p, size_t bytes)
{
    if (posix_memalign(p, 256, bytes)) return pccl_err(c, pcclSystemError, "out of host memory (%zu bytes)", bytes);
    return pcclSuccess;
}

static pcclResult_t h_free(pcclComm_t c, void *p)
{
    free(p);
    return pcclSuccess;
}

static int h_count(void) { return PCCL_MAX_RANKS; }

static pcclResult_t h_set_flags(pcclComm_t c, uint64_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++) pccl_st_rel(&p[i], v);
    return pcclSuccess;
}

static void h_launch_wait(pcclComm_t c)
{
    host_bk *h = c->bk;
    pthread_mutex_lock(&h->mu);
    while (h->remaining > 0) pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

const pccl_backend pccl_host_backend = {
    "host", h_open, h_close, h_export, h_import, h_unimport, h_enable_peer, h_upload,
    h_launch, h_running, h_devsync, h_check_buf, h_alloc, h_free, h_count, h_forget,
    pccl_host_stream_check, pccl_host_stream_write, pccl_host_stream_wait, h_set_flags, h_launch_wait,
    NULL, /* download: the emulated GPUs write their memory without atomics */
    h_copy, h_copied,
};
