/* The host backend's streams: what a CUDA stream is to a GPU, for CI.
 *
 * A stream is a FIFO of operations run in order by the stream's own thread,
 * as a GPU's front end runs a CUDA stream: host functions
 * (pcclHostStreamLaunch, cudaLaunchHostFunc's twin), a copy
 * (cudaMemcpyAsync's, for one rank's copies: lib/direct.c), and pccl's flag store
 * and flag wait (cuStreamWriteValue64 / cuStreamWaitValue64's twins:
 * release store after the earlier operations, acquire poll before the later
 * ones).  A wait polls with a short sleep, never holding a lock: it ends when
 * the daemon completes the collective, or when an abort releases it.
 *
 * Streams are registered per communicator (the emulated device), so that
 * pcclDeviceSynchronize can wait for what was enqueued before it, and so
 * that a stale or foreign handle is recognised, not dereferenced. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host.h"

enum { OP_FN, OP_WRITE, OP_WAIT, OP_COPY };
typedef struct {
    int kind;
    void (*fn)(void *);
    void *arg;
    uint64_t *p, v; /* OP_COPY: v bytes from arg to p */
} hs_op;

typedef struct hstream {
    pcclComm_t c;
    pthread_mutex_t mu;
    pthread_cond_t cv;     /* ops arrived, or stop */
    pthread_cond_t done_cv; /* an op finished */
    hs_op *ops;
    size_t cap;
    uint64_t enq, done;    /* operations enqueued / finished, ever */
    int stop;
    pthread_t th;
    struct hstream *next;
} hstream;

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static hstream *streams; /* every live stream */

/* Holds reg_mu on success: the stream cannot be destroyed meanwhile. */
static hstream *lookup_locked(void *p)
{
    for (hstream *s = streams; s; s = s->next)
        if (s == p) return s;
    return NULL;
}

static void sleep_us(long us)
{
    struct timespec t = {0, us * 1000};
    nanosleep(&t, NULL);
}

static void run_op(hstream *s, const hs_op *o)
{
    if (o->kind == OP_FN) o->fn(o->arg);
    else if (o->kind == OP_WRITE) pccl_st_rel(o->p, o->v);
    else if (o->kind == OP_COPY) memcpy(o->p, o->arg, (size_t)o->v);
    else /* CUDA's GEQ is cyclic: (int64_t)(*p - v) >= 0 */
        for (int i = 0; (int64_t)(pccl_ld_acq(o->p) - o->v) < 0; i++) {
            if (i < 64) sched_yield();
            else sleep_us(20);
        }
}

static void *stream_main(void *arg)
{
    hstream *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->done == s->enq && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
        if (s->done == s->enq) break; /* stopping, and drained */
        hs_op o = s->ops[s->done % s->cap];
        pthread_mutex_unlock(&s->mu);
        run_op(s, &o);
        pthread_mutex_lock(&s->mu);
        s->done++;
        pthread_cond_broadcast(&s->done_cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static pcclResult_t push(hstream *s, hs_op o)
{
    pthread_mutex_lock(&s->mu);
    if (s->enq - s->done == s->cap) { /* full: grow, keeping the ring's order */
        hs_op *n = malloc(sizeof *n * s->cap * 2);
        if (!n) { pthread_mutex_unlock(&s->mu); return pccl_err(s->c, pcclSystemError, "out of host memory"); }
        for (uint64_t i = s->done; i < s->enq; i++) n[i % (s->cap * 2)] = s->ops[i % s->cap];
        free(s->ops);
        s->ops = n;
        s->cap *= 2;
    }
    s->ops[s->enq++ % s->cap] = o;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return pcclSuccess;
}

/* Waits until the operations enqueued so far are done. */
static void drain(hstream *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t target = s->enq;
    while (s->done < target) pthread_cond_wait(&s->done_cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static void stream_free(hstream *s)
{
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->th, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    pthread_cond_destroy(&s->done_cv);
    free(s->ops);
    free(s);
}

pcclResult_t pcclHostStreamCreate(pcclComm_t c, pcclStream_t *out)
{
    CHECK_COMM(c, "pcclHostStreamCreate");
    if (!out) return pccl_err(c, pcclInvalidArgument, "pcclHostStreamCreate: stream is NULL");
    if (c->be != &pccl_host_backend)
        return pccl_err(c, pcclInvalidUsage, "pcclHostStreamCreate: the communicator runs the %s backend "
                        "(use a cudaStream_t there)", c->be->name);
    hstream *s = calloc(1, sizeof *s);
    if (s) s->ops = malloc(sizeof *s->ops * 16);
    if (!s || !s->ops) { if (s) free(s); return pccl_err(c, pcclSystemError, "out of host memory"); }
    s->cap = 16;
    s->c = c;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_cond_init(&s->done_cv, NULL);
    if (pthread_create(&s->th, NULL, stream_main, s)) {
        int e = errno;
        free(s->ops);
        free(s);
        return pccl_err(c, pcclSystemError, "pcclHostStreamCreate: cannot start the stream's thread: %s", strerror(e));
    }
    pthread_mutex_lock(&reg_mu);
    s->next = streams;
    streams = s;
    pthread_mutex_unlock(&reg_mu);
    *out = s;
    return pcclSuccess;
}

pcclResult_t pcclHostStreamDestroy(pcclStream_t p)
{
    pthread_mutex_lock(&reg_mu);
    hstream **pp = &streams;
    while (*pp && *pp != p) pp = &(*pp)->next;
    hstream *s = *pp;
    if (s) *pp = s->next;
    pthread_mutex_unlock(&reg_mu);
    if (!s) return pccl_err(NULL, pcclInvalidArgument, "pcclHostStreamDestroy: %p is not a live host stream", p);
    drain(s);
    stream_free(s);
    return pcclSuccess;
}

pcclResult_t pcclHostStreamLaunch(pcclStream_t p, void (*fn)(void *), void *arg)
{
    if (!fn) return pccl_err(NULL, pcclInvalidArgument, "pcclHostStreamLaunch: fn is NULL");
    pthread_mutex_lock(&reg_mu);
    hstream *s = lookup_locked(p);
    pcclResult_t r = s ? push(s, (hs_op){OP_FN, fn, arg, NULL, 0})
                       : pccl_err(NULL, pcclInvalidArgument, "pcclHostStreamLaunch: %p is not a live host stream", p);
    pthread_mutex_unlock(&reg_mu);
    return r;
}

pcclResult_t pcclHostStreamSynchronize(pcclStream_t p)
{
    pthread_mutex_lock(&reg_mu);
    hstream *s = lookup_locked(p);
    if (!s) {
        pthread_mutex_unlock(&reg_mu);
        return pccl_err(NULL, pcclInvalidArgument, "pcclHostStreamSynchronize: %p is not a live host stream", p);
    }
    pthread_mutex_lock(&s->mu);
    uint64_t target = s->enq;
    pthread_mutex_unlock(&reg_mu); /* s stays: destroy drains it first, and waits on s->mu for our wait */
    while (s->done < target) pthread_cond_wait(&s->done_cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    return pcclSuccess;
}

/* ---- the backend's stream operations ------------------------------------------ */

pcclResult_t pccl_host_stream_check(pcclComm_t c, void *p)
{
    pthread_mutex_lock(&reg_mu);
    hstream *s = lookup_locked(p);
    int ok = s && s->c == c;
    pthread_mutex_unlock(&reg_mu);
    if (!s) return pccl_err(c, pcclInvalidArgument, "stream %p is not a live host stream (pcclHostStreamCreate)", p);
    if (!ok) return pccl_err(c, pcclInvalidArgument, "stream %p belongs to another communicator", p);
    return pcclSuccess;
}

static pcclResult_t push_flag(pcclComm_t c, void *p, hs_op o)
{
    pthread_mutex_lock(&reg_mu);
    hstream *s = lookup_locked(p);
    pcclResult_t r = s ? push(s, o) : pccl_err(c, pcclInvalidArgument, "stream %p is not a live host stream", p);
    pthread_mutex_unlock(&reg_mu);
    return r;
}

pcclResult_t pccl_host_stream_write(pcclComm_t c, void *stream, uint64_t *p, uint64_t v)
{
    return push_flag(c, stream, (hs_op){OP_WRITE, NULL, NULL, p, v});
}

pcclResult_t pccl_host_stream_wait(pcclComm_t c, void *stream, uint64_t *p, uint64_t v)
{
    return push_flag(c, stream, (hs_op){OP_WAIT, NULL, NULL, p, v});
}

pcclResult_t pccl_host_stream_copy(pcclComm_t c, void *stream, void *dst, const void *src, size_t n)
{
    return push_flag(c, stream, (hs_op){OP_COPY, NULL, (void *)src, dst, n});
}

/* The device synchronization's share: the work enqueued on c's streams
 * before the call (CUDA: work issued before it), not what other threads
 * enqueue meanwhile.  Targets are taken first, then each stream is looked
 * up again (it may have been destroyed: then its work is done). */
void pccl_host_streams_sync(pcclComm_t c)
{
    size_t n = 0, cap = 0;
    struct { void *s; uint64_t target; } *w = NULL;
    pthread_mutex_lock(&reg_mu);
    for (hstream *s = streams; s; s = s->next) {
        if (s->c != c) continue;
        if (n == cap) {
            void *g = realloc(w, sizeof *w * (cap = cap ? 2 * cap : 8));
            if (!g) break; /* out of memory: wait for the streams seen so far */
            w = g;
        }
        pthread_mutex_lock(&s->mu);
        w[n].s = s;
        w[n++].target = s->enq;
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_unlock(&reg_mu);
    for (size_t i = 0; i < n;) {
        pthread_mutex_lock(&reg_mu);
        hstream *s = lookup_locked(w[i].s);
        int done = 1;
        if (s) {
            pthread_mutex_lock(&s->mu);
            done = s->done >= w[i].target;
            pthread_mutex_unlock(&s->mu);
        }
        pthread_mutex_unlock(&reg_mu);
        if (done) i++;
        else sleep_us(50);
    }
    free(w);
}

/* The communicator's streams that were not destroyed: drained, freed. */
void pccl_host_streams_drop(pcclComm_t c)
{
    for (;;) {
        pthread_mutex_lock(&reg_mu);
        hstream **pp = &streams;
        while (*pp && (*pp)->c != c) pp = &(*pp)->next;
        hstream *s = *pp;
        if (s) *pp = s->next;
        pthread_mutex_unlock(&reg_mu);
        if (!s) return;
        drain(s);
        stream_free(s);
    }
}
