/* The host backend: a "GPU" is a set of daemon threads (one per block) over
 * host memory.  A launch starts the threads, a voluntary quit ends them, and
 * the emulated device synchronization waits for the threads of every launch
 * made before it, as cudaDeviceSynchronize waits for the daemon kernel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t launched, finished;
    int remaining;
    void *dev;     /* one allocation for the daemon's "device memory" */
    void *pinned;
    char *arena;
} host_bk;

typedef struct {
    pcclComm_t c;
    int b;
} block_arg;

/* PCCL_TEST_SLOW_BLOCK=B:US (host.h): US for block b, else 0. */
static int slow_us(int b)
{
    const char *e = getenv("PCCL_TEST_SLOW_BLOCK");
    int blk, us;
    return e && sscanf(e, "%d:%d", &blk, &us) == 2 && blk == b && us > 0 ? us : 0;
}

void pccl_host_slow(int us)
{
    if (us > 0) usleep((useconds_t)us);
}

static void *block_main(void *p)
{
    block_arg a = *(block_arg *)p;
    free(p);
    int slow_us_ = slow_us(a.b);
    pcclComm_t c = a.c;
    host_bk *h = c->bk;
    int32_t *tq = malloc(sizeof(int32_t) * (size_t)c->G.k.depth);
    if (tq) {
        pccl_blk S;
        memset(&S, 0, sizeof S);
        S.tq = tq;
        const pccl_gpu *G = &c->G;
        PCCL_DAEMON_BODY(&S, G, a.b);
        free(tq);
    }
    pthread_mutex_lock(&h->mu);
    if (--h->remaining == 0) {
        h->finished = h->launched;
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
    c->bk = h;
    size_t total = pccl_carve_device(&c->G, NULL);
    h->dev = calloc(1, total);
    h->pinned = calloc(1, pccl_pinned_bytes(&c->G.k));
    h->arena = calloc(1, c->arena_bytes);
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
    free(h->arena);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
    c->bk = NULL;
}

static pcclResult_t h_export(pcclComm_t c, void *handle)
{
    return pccl_err(c, pcclInvalidUsage, "the host backend joins ranks of one process only");
}

static pcclResult_t h_import(pcclComm_t c, const void *handle, char **mapped)
{
    return pccl_err(c, pcclInvalidUsage, "the host backend joins ranks of one process only");
}

static void h_unimport(pcclComm_t c, char *mapped) {}
static pcclResult_t h_enable_peer(pcclComm_t c, int peer) { return pcclSuccess; }

static pcclResult_t h_upload(pcclComm_t c, void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    return pcclSuccess;
}

static pcclResult_t h_launch(pcclComm_t c)
{
    host_bk *h = c->bk;
    pthread_mutex_lock(&h->mu);
    pcclResult_t r = pcclSuccess;
    if (h->remaining == 0) {
        h->launched++;
        for (int b = 0; b < c->G.k.blocks; b++) {
            block_arg *a = malloc(sizeof *a);
            pthread_t t;
            pthread_attr_t at;
            pthread_attr_init(&at);
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            if (a) *a = (block_arg){c, b};
            if (!a || pthread_create(&t, &at, block_main, a)) {
                free(a);
                r = pccl_err(c, pcclSystemError, "cannot start daemon thread: %s", strerror(errno));
            } else {
                h->remaining++;
            }
            pthread_attr_destroy(&at);
        }
        if (h->remaining == 0) h->finished = h->launched;
    }
    pthread_mutex_unlock(&h->mu);
    return r;
}

static int h_running(pcclComm_t c)
{
    host_bk *h = c->bk;
    pthread_mutex_lock(&h->mu);
    int r = h->remaining > 0;
    pthread_mutex_unlock(&h->mu);
    return r;
}

/* As cudaDeviceSynchronize: the streams' work issued before the call (which
 * may wait for collectives: the poller relaunches the daemon meanwhile),
 * and every daemon instance launched before the call. */
static pcclResult_t h_devsync(pcclComm_t c)
{
    host_bk *h = c->bk;
    pthread_mutex_lock(&h->mu);
    uint64_t target = h->launched;
    pthread_mutex_unlock(&h->mu);
    pccl_host_streams_sync(c);
    pthread_mutex_lock(&h->mu);
    while (h->finished < target) pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
    return pcclSuccess;
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

const pccl_backend pccl_host_backend = {
    "host", h_open, h_close, h_export, h_import, h_unimport, h_enable_peer, h_upload,
    h_launch, h_running, h_devsync, h_check_buf, h_alloc, h_free, h_count,
    pccl_host_stream_check, pccl_host_stream_write, pccl_host_stream_wait, h_set_flags,
};
