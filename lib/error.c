/* Errors: result strings, the last error's message (the calling thread's
 * and the communicator's), the version, and the monotonic clock everything else times with. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"

/* Whose message pcclGetLastError returns.  A failed call's message is the
 * calling thread's: another thread's failed call (a callback's pcclWaitAll
 * on the poller thread, a second thread's bad pcclRun) must not replace it
 * between the call's return and its caller's pcclGetLastError, as it did
 * when a communicator had one message (the fuzzer saw a pcclRun's message
 * replaced by a callback's).  An error of pccl's own threads (a relaunch
 * that failed, a peer found dead) was no caller's: it is the
 * communicator's, for every thread.  pcclGetLastError gives the newer of
 * the two (errors are numbered). */
static char global_err[512];    /* pccl's own threads' last error with no communicator */
static uint64_t global_seq, err_count;
static pthread_mutex_t global_mu = PTHREAD_MUTEX_INITIALIZER;

#define TL_COMMS 8 /* communicators whose last message a thread keeps */
typedef struct {
    pcclComm_t c; /* NULL: a call with no communicator */
    uint64_t seq; /* 0: empty */
    char msg[512];
} tl_err;
static __thread tl_err tl[TL_COMMS];
static __thread int tl_newest = -1; /* the thread's newest message, any communicator */
static __thread int own_thread;

int pccl_err_own_thread(int own)
{
    int was = own_thread;
    own_thread = own;
    return was;
}

uint64_t pccl_err_count(void)
{
    pthread_mutex_lock(&global_mu);
    uint64_t n = err_count;
    pthread_mutex_unlock(&global_mu);
    return n;
}

/* The thread's slot for c: its own, else the oldest. */
static tl_err *tl_slot(pcclComm_t c)
{
    int old = 0;
    for (int i = 0; i < TL_COMMS; i++) {
        if (tl[i].seq && tl[i].c == c) return &tl[i];
        if (tl[i].seq < tl[old].seq) old = i;
    }
    return &tl[old];
}

/* mine: the calling thread's (a failed call), else the communicator's. */
static pcclResult_t record(pcclComm_t c, pcclResult_t r, int mine, const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    pthread_mutex_lock(&global_mu);
    uint64_t seq = ++err_count;
    if (!mine) { /* no caller to give it to: the communicator's */
        if (c) {
            snprintf(c->err, sizeof c->err, "%s", buf);
            c->err_seq = seq;
        } else {
            snprintf(global_err, sizeof global_err, "%s", buf);
            global_seq = seq;
        }
    }
    pthread_mutex_unlock(&global_mu);
    if (mine) {
        tl_err *e = tl_slot(c);
        e->c = c;
        e->seq = seq;
        snprintf(e->msg, sizeof e->msg, "%s", buf);
        tl_newest = (int)(e - tl);
    }
    if (getenv("PCCL_DEBUG")) fprintf(stderr, "pccl: %s: %s\n", pcclGetErrorString(r), buf);
    return r;
}

pcclResult_t pccl_err(pcclComm_t c, pcclResult_t r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r = record(c, r, !own_thread, fmt, ap);
    va_end(ap);
    return r;
}

pcclResult_t pccl_err_comm(pcclComm_t c, pcclResult_t r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r = record(c, r, 0, fmt, ap);
    va_end(ap);
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

/* A destroyed (or made-up) handle is not read: its message says so.  A
 * thread's message about an earlier communicator at the same address is not
 * this one's (born_seq). */
const char *pcclGetLastError(pcclComm_t c)
{
    static __thread char copy[512];
    int live = c && pccl_live_enter(c);
    const tl_err *mine = NULL;
    if (!c) mine = tl_newest >= 0 ? &tl[tl_newest] : NULL;
    else
        for (int i = 0; i < TL_COMMS && live; i++)
            if (tl[i].seq && tl[i].c == c && tl[i].seq > c->born_seq) mine = &tl[i];
    pthread_mutex_lock(&global_mu);
    uint64_t theirs = c ? (live ? c->err_seq : 0) : global_seq;
    if (c && !live) snprintf(copy, sizeof copy, "pcclGetLastError: comm %p is not a live communicator (destroyed?)",
                             (void *)c);
    else if (mine && mine->seq > theirs) snprintf(copy, sizeof copy, "%s", mine->msg);
    else snprintf(copy, sizeof copy, "%s", !theirs ? "" : c ? c->err : global_err);
    pthread_mutex_unlock(&global_mu);
    if (live) pccl_live_exit(&c);
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
