/* The watch: which calls of the process are in progress, and since when, so
 * that the poller can ask the daemon to end its launch only while a call
 * waits long (lib/README.md, "Sharing the GPU"), instead of every slice.
 *
 * Each thread that makes a watched call takes a slot (its own word: the
 * start of its outermost call in progress, 0 when none), kept until the
 * thread ends.  On the GPU backend CUPTI's callback API feeds the slots with
 * every CUDA driver call of every thread (a lazy module load, cudaFree,
 * cudaDeviceSynchronize ...; a runtime call reaches the driver), loaded with
 * dlopen so that libpccl needs no libcupti; on the host backend
 * pcclDeviceSynchronize is the one call that waits for the daemon, and it
 * marks its own slot.  The poller's calls are pccl's own (muted): a stream
 * query waits for no one, a relaunch waits behind the call it would let
 * through. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define WATCH_SLOTS 256

static struct {
    uint64_t since; /* the outermost call's start (pccl_now_ns); 0: none */
    int taken;
} slots[WATCH_SLOTS];
static int high; /* slots[0 .. high) were ever taken */

static __thread int my_slot = -1, my_depth, my_mute;
static pthread_key_t slot_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* A thread's slot is free again when the thread ends. */
static void slot_release(void *p)
{
    int s = (int)(intptr_t)p - 1;
    __atomic_store_n(&slots[s].since, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&slots[s].taken, 0, __ATOMIC_RELEASE);
}

static void key_make(void) { pthread_key_create(&slot_key, slot_release); }

/* The slot's index; -2: all taken (this thread's calls are then not
 * watched, and it does not look again). */
static int slot_take(void)
{
    pthread_once(&key_once, key_make);
    for (int s = 0; s < WATCH_SLOTS; s++) {
        int z = 0;
        if (!__atomic_compare_exchange_n(&slots[s].taken, &z, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) continue;
        int h = __atomic_load_n(&high, __ATOMIC_RELAXED);
        while (h <= s && !__atomic_compare_exchange_n(&high, &h, s + 1, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {}
        pthread_setspecific(slot_key, (void *)(intptr_t)(s + 1));
        return s;
    }
    return -2;
}

void pccl_watch_enter(void)
{
    if (my_mute || my_depth++) return;
    if (my_slot == -1) my_slot = slot_take();
    if (my_slot >= 0) __atomic_store_n(&slots[my_slot].since, pccl_now_ns(), __ATOMIC_RELEASE);
}

void pccl_watch_exit(void)
{
    if (my_mute || my_depth == 0 || --my_depth) return;
    if (my_slot >= 0) __atomic_store_n(&slots[my_slot].since, 0, __ATOMIC_RELEASE);
}

void pccl_watch_mute(int on) { my_mute += on ? 1 : -1; }

/* Whether a call in progress is due a cut: it has waited thr, and the
 * last cut (`last`, 0: none) came before the middle of its wait so far.  A
 * call that waits for an idle GPU returns after a cut or two (one that
 * waits twice: cudaHostUnregister); one that waits for other work
 * (a stream synchronization behind a long kernel) gets cuts at thr, 2 thr,
 * 4 thr ...: log2(its wait / thr) of them, not one per thr. */
int pccl_watch_due(uint64_t now, uint64_t thr, uint64_t last)
{
    int h = __atomic_load_n(&high, __ATOMIC_ACQUIRE);
    for (int s = 0; s < h; s++) {
        uint64_t t = __atomic_load_n(&slots[s].since, __ATOMIC_ACQUIRE);
        if (!t || now < t + thr) continue;
        if (last < t || last - t < (now - t) / 2) return 1;
    }
    return 0;
}

/* First launches: a kernel's first launch under lazy loading returns at
 * once, and its work then waits on the GPU until the GPU is idle, with no
 * call of the host waiting: only its count tells the poller (each new
 * count asks for a cut). */
static uint64_t firsts;

uint64_t pccl_watch_firsts(void) { return __atomic_load_n(&firsts, __ATOMIC_ACQUIRE); }

/* ---- CUPTI (GPU backend) ------------------------------------------------ */

#ifdef PCCL_HAVE_CUDA
#include <cupti.h>
#include <dlfcn.h>
#include <stdio.h>

typedef CUptiResult (*subscribe_fn)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
typedef CUptiResult (*subscribe2_fn)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *, CUpti_SubscriberParams *);
typedef CUptiResult (*unsubscribe_fn)(CUpti_SubscriberHandle);
typedef CUptiResult (*enable_domain_fn)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
typedef CUptiResult (*enable_cb_fn)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId);

static pthread_mutex_t cupti_mu = PTHREAD_MUTEX_INITIALIZER;
static int cupti_users;
static CUpti_SubscriberHandle cupti_sub;
static unsubscribe_fn cupti_unsubscribe;
static char cupti_why[160];

/* The functions launched so far, by handle (open addressing, a bounded
 * probe; a full neighbourhood forgets: such a launch counts as seen). */
#define SEEN_SLOTS 16384
static uintptr_t seen[SEEN_SLOTS];

static int first_launch(uintptr_t f)
{
    size_t h = (size_t)(((uint64_t)f * 0x9e3779b97f4a7c15ull) >> 50);
    for (size_t i = 0; i < 32; i++) {
        uintptr_t *p = &seen[(h + i) & (SEEN_SLOTS - 1)], v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
        if (v == f) return 0;
        if (!v && __atomic_compare_exchange_n(p, &v, f, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return 1;
        if (v == f) return 0;
    }
    return 0;
}

static uintptr_t launched_function(CUpti_CallbackId id, const void *params)
{
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: return (uintptr_t)((const cuLaunchKernel_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: return (uintptr_t)((const cuLaunchKernelEx_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        return (uintptr_t)((const cuLaunchCooperativeKernel_params *)params)->f;
    default: return 0;
    }
}

static void CUPTIAPI on_driver_call(void *u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
    (void)u, (void)d;
    const CUpti_CallbackData *cb = data;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        pccl_watch_enter();
        return;
    }
    pccl_watch_exit();
    uintptr_t f = my_mute ? 0 : launched_function(id, cb->functionParams);
    if (f && cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS && first_launch(f))
        __atomic_add_fetch(&firsts, 1, __ATOMIC_RELEASE);
}

/* Calls that never wait for the GPU, on pccl's own paths (pcclRun's buffer
 * check, the poller's queries, cudaSetDevice): not watched, so that they
 * pay no callback. */
static const CUpti_CallbackId quick[] = {
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttributes, CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuStreamQuery,          CUPTI_DRIVER_TRACE_CBID_cuEventQuery,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,        CUPTI_DRIVER_TRACE_CBID_cuCtxSetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,         CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,   CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
};

static void *cupti_open(void)
{
    const char *e = getenv("PCCL_CUPTI_LIB");
    const char *names[] = {e && *e ? e : NULL, "libcupti.so.13", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so.13",
                           "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (!names[i]) continue;
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h || (e && *e)) return h; /* a named library or none */
    }
    return NULL;
}

static int cupti_start(void)
{
    void *h = cupti_open();
    if (!h) {
        snprintf(cupti_why, sizeof cupti_why, "libcupti not found (PCCL_CUPTI_LIB names it)");
        return 0;
    }
    subscribe_fn sub = (subscribe_fn)dlsym(h, "cuptiSubscribe");
    subscribe2_fn sub2 = (subscribe2_fn)dlsym(h, "cuptiSubscribe_v2");
    enable_domain_fn dom = (enable_domain_fn)dlsym(h, "cuptiEnableDomain");
    enable_cb_fn cb = (enable_cb_fn)dlsym(h, "cuptiEnableCallback");
    cupti_unsubscribe = (unsubscribe_fn)dlsym(h, "cuptiUnsubscribe");
    /* Named (v2): a tool refused for our sake hears "CUPTI for pccl", and we
     * hear whom we were refused for. */
    char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = "";
    CUpti_SubscriberParams sp = {CUpti_SubscriberParams_STRUCT_SIZE, "pccl", holder, sizeof holder};
    CUptiResult r = CUPTI_ERROR_UNKNOWN;
    if (dom && cb && cupti_unsubscribe && (sub2 || sub))
        r = sub2 ? sub2(&cupti_sub, on_driver_call, NULL, &sp) : sub(&cupti_sub, on_driver_call, NULL);
    if (r == CUPTI_SUCCESS) {
        r = dom(1, cupti_sub, CUPTI_CB_DOMAIN_DRIVER_API);
        for (size_t i = 0; r == CUPTI_SUCCESS && i < sizeof quick / sizeof *quick; i++)
            cb(0, cupti_sub, CUPTI_CB_DOMAIN_DRIVER_API, quick[i]);
        if (r == CUPTI_SUCCESS) return 1; /* h stays loaded for good: a callback may be returning */
        cupti_unsubscribe(cupti_sub);
    }
    /* CUPTI takes one subscriber per process: a profiler (Nsight, PyTorch's)
     * may have it */
    holder[sizeof holder - 1] = 0;
    snprintf(cupti_why, sizeof cupti_why, "CUPTI refused a subscriber (error %d%s%s)", (int)r,
             *holder ? ": held by " : "", holder);
    dlclose(h);
    return 0;
}

/* The watch for a communicator: 1 when CUPTI feeds it (one subscription for
 * all the process's communicators).  Else 0, and stderr says why, once: the
 * slice alone bounds a waiting call then. */
int pccl_watch_start_cuda(void)
{
    static int told;
    pthread_mutex_lock(&cupti_mu);
    int ok = cupti_users ? 1 : cupti_start();
    if (ok) cupti_users++;
    else if (!told++)
        fprintf(stderr, "pccl: no watch (%s): a CUDA call that waits for the GPU waits up to two slices "
                        "(PCCL_SLICE_US); PCCL_WATCH_US=0 silences this\n", cupti_why);
    pthread_mutex_unlock(&cupti_mu);
    return ok;
}

void pccl_watch_stop_cuda(void)
{
    pthread_mutex_lock(&cupti_mu);
    if (cupti_users && --cupti_users == 0) {
        /* the subscription goes with the last communicator: a profiler
         * started later may take it */
        cupti_unsubscribe(cupti_sub);
    }
    pthread_mutex_unlock(&cupti_mu);
}
#endif
