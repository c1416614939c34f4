/* Errors: result strings, the last error's message (per communicator and
 * global), the version, and the monotonic clock everything else times with. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"

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

/* A destroyed (or made-up) handle is not read: its message says so. */
const char *pcclGetLastError(pcclComm_t c)
{
    static __thread char copy[512];
    int live = c && pccl_live_enter(c);
    pthread_mutex_lock(&global_mu);
    if (c && !live) snprintf(copy, sizeof copy, "pcclGetLastError: comm %p is not a live communicator (destroyed?)",
                             (void *)c);
    else snprintf(copy, sizeof copy, "%s", c ? c->err : global_err);
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
