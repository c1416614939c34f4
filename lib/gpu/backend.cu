/* The GPU backend's host side: device and pinned memory for the daemon, the
 * non-blocking stream it runs on (a blocking stream would tie it to every
 * legacy-stream operation of the application), peer access, launch, and
 * the checks on user buffers. */
#include <cuda.h>
#include <pthread.h>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

extern "C" cudaError_t pccl_gpu_launch(const pccl_gpu *G, cudaStream_t stream);
extern "C" cudaError_t pccl_gpu_preload(int mesh);

typedef struct {
    cudaStream_t stream; /* the daemon's */
    cudaStream_t copy;   /* registration's uploads, init's clears, one rank's copies (g_copy): never behind the application's streams */
    void *dev, *pinned, *arena;
    cudaEvent_t *copy_ev;   /* one rank's copies' ends (g_copy), [depth], made at the first */
    uint64_t copies_done;   /* of them, seen done (atomic) */
    int copy_failed;        /* one of them failed (atomic; the context's error is sticky anyway) */
    int querying;           /* a thread queries the events (atomic: one at a time, g_copied) */
} gpu_bk;

#define CU(c, call)                                                                                    \
    do {                                                                                               \
        cudaError_t e_ = (call);                                                                       \
        if (e_ != cudaSuccess)                                                                         \
            return pccl_err(c, pcclUnhandledCudaError, "%s:%d: %s: %s", __FILE__, __LINE__, #call,      \
                            cudaGetErrorString(e_));                                                   \
    } while (0)

static pcclResult_t g_open(pcclComm_t c)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    cudaGetLastError();
    if (c->dev < 0 || c->dev >= n)
        return pccl_err(NULL, pcclInvalidArgument, "device %d: this machine has %d CUDA device(s)", c->dev, n);
    gpu_bk *h = (gpu_bk *)calloc(1, sizeof *h);
    if (!h) return pccl_err(NULL, pcclSystemError, "out of host memory");
    c->bk = h;
    CU(NULL, cudaSetDevice(c->dev));
    /* the first launch's call then takes microseconds (daemon.cu); the mesh's
     * daemon only where the communicator maps the mesh */
    CU(NULL, pccl_gpu_preload(pccl_maps_mesh(c)));
    CU(NULL, cudaStreamCreateWithFlags(&h->stream, cudaStreamNonBlocking));
    CU(NULL, cudaStreamCreateWithFlags(&h->copy, cudaStreamNonBlocking));
    size_t total = pccl_carve_device(&c->G, NULL), pb = pccl_pinned_bytes(&c->G.k);
    CU(NULL, cudaMalloc(&h->dev, total));
    CU(NULL, cudaMemsetAsync(h->dev, 0, total, h->copy));
    CU(NULL, cudaMalloc(&h->arena, c->arena_bytes));
    CU(NULL, cudaMemsetAsync(h->arena, 0, c->arena_bytes, h->copy));
    CU(NULL, cudaHostAlloc(&h->pinned, pb, cudaHostAllocMapped | cudaHostAllocPortable));
    memset(h->pinned, 0, pb);
    /* Not cudaDeviceSynchronize: it would wait for the application's work
     * and for other communicators' daemons. */
    CU(NULL, cudaStreamSynchronize(h->copy));
    /* unified addressing: one pointer serves the host and the device */
    pccl_carve_device(&c->G, (char *)h->dev);
    pccl_carve_pinned(&c->G, (char *)h->pinned);
    c->G.arena = (char *)h->arena;
    return pcclSuccess;
}

static void g_close(pcclComm_t c)
{
    gpu_bk *h = (gpu_bk *)c->bk;
    if (!h) return;
    cudaSetDevice(c->dev);
    if (h->stream) cudaStreamSynchronize(h->stream);
    if (h->copy) cudaStreamSynchronize(h->copy);
    for (int i = 0; h->copy_ev && i < c->G.k.depth; i++) cudaEventDestroy(h->copy_ev[i]);
    free(h->copy_ev);
    if (h->dev) cudaFree(h->dev);
    if (h->arena) cudaFree(h->arena);
    if (h->pinned) cudaFreeHost(h->pinned);
    if (h->stream) cudaStreamDestroy(h->stream);
    if (h->copy) cudaStreamDestroy(h->copy);
    cudaGetLastError();
    free(h);
    c->bk = NULL;
}

static pcclResult_t g_export(pcclComm_t c, void *handle)
{
    CU(c, cudaSetDevice(c->dev));
    CU(c, cudaIpcGetMemHandle((cudaIpcMemHandle_t *)handle, ((gpu_bk *)c->bk)->arena));
    return pcclSuccess;
}

static pcclResult_t g_import(pcclComm_t c, const void *handle, char **mapped)
{
    cudaIpcMemHandle_t hd;
    memcpy(&hd, handle, sizeof hd);
    void *p = NULL;
    CU(c, cudaSetDevice(c->dev));
    CU(c, cudaIpcOpenMemHandle(&p, hd, cudaIpcMemLazyEnablePeerAccess));
    *mapped = (char *)p;
    return pcclSuccess;
}

static void g_unimport(pcclComm_t c, char *mapped)
{
    cudaSetDevice(c->dev);
    cudaIpcCloseMemHandle(mapped);
    cudaGetLastError();
}

/* Peer access is per (device, peer) pair and per process; enabling it twice is
 * an error, so remember what this process enabled. */
static pthread_mutex_t peer_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned char peer_on[PCCL_MAX_RANKS][PCCL_MAX_RANKS];

static pcclResult_t g_enable_peer(pcclComm_t c, int peer)
{
    if (peer == c->dev) return pcclSuccess;
    if (c->dev >= PCCL_MAX_RANKS || peer >= PCCL_MAX_RANKS)
        return pccl_err(c, pcclInvalidArgument, "device %d or %d beyond %d", c->dev, peer, PCCL_MAX_RANKS);
    pthread_mutex_lock(&peer_mu);
    int done = peer_on[c->dev][peer];
    peer_on[c->dev][peer] = 1;
    pthread_mutex_unlock(&peer_mu);
    if (done) return pcclSuccess;
    int ok = 0;
    CU(c, cudaDeviceCanAccessPeer(&ok, c->dev, peer));
    if (!ok)
        return pccl_err(c, pcclInvalidUsage, "device %d cannot access device %d as a peer (NVLink/PCIe P2P needed)",
                        c->dev, peer);
    CU(c, cudaSetDevice(c->dev));
    cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
    else CU(c, e);
    return pcclSuccess;
}

/* Copies on pccl's own non-blocking copy stream: a registration's
 * description, the hang report's reads.  A plain cudaMemcpy runs on the
 * legacy default stream and waits for the work queued on the blocking
 * streams first, PyTorch's current stream among them: where that work is a
 * pcclStreamWaitRun on a collective whose peers wait for this rank, the copy
 * never starts (the torch backend registers lazily, between a step's stream
 * waits). */
static pcclResult_t copy_on_copy_stream(pcclComm_t c, void *dst, const void *src, size_t n, cudaMemcpyKind k)
{
    cudaStream_t s = ((gpu_bk *)c->bk)->copy;
    CU(c, cudaSetDevice(c->dev));
    CU(c, cudaMemcpyAsync(dst, src, n, k, s));
    CU(c, cudaStreamSynchronize(s));
    return pcclSuccess;
}

static pcclResult_t g_upload(pcclComm_t c, void *dst, const void *src, size_t n)
{
    return copy_on_copy_stream(c, dst, src, n, cudaMemcpyHostToDevice);
}

static pcclResult_t g_launch(pcclComm_t c)
{
    CU(c, cudaSetDevice(c->dev));
    CU(c, pccl_gpu_launch(&c->G, ((gpu_bk *)c->bk)->stream));
    return pcclSuccess;
}

static int g_running(pcclComm_t c)
{
    cudaSetDevice(c->dev);
    cudaError_t e = cudaStreamQuery(((gpu_bk *)c->bk)->stream);
    if (e == cudaErrorNotReady) return 1;
    if (e != cudaSuccess) cudaGetLastError();
    return 0;
}

static pcclResult_t g_devsync(pcclComm_t c)
{
    CU(c, cudaSetDevice(c->dev));
    CU(c, cudaDeviceSynchronize());
    return pcclSuccess;
}

/* The buffer must be device memory of this GPU, and hold the bytes the
 * collective reads or writes.  One driver call answers it all
 * (cuPointerGetAttributes: type, managed, device, the allocation's range),
 * where cudaPointerGetAttributes and cuMemGetAddressRange took two, twice
 * per pcclRun, on the small-message path.  Found through the runtime, so
 * that libpccl needs no link to libcuda. */
typedef CUresult (*attrs_fn)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
static attrs_fn get_attrs;
static pthread_once_t attrs_once = PTHREAD_ONCE_INIT;

static void find_attrs(void)
{
    cudaDriverEntryPointQueryResult q;
    void *fn = NULL;
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
        get_attrs = (attrs_fn)fn;
    cudaGetLastError();
}

static pcclResult_t g_check_buf(pcclComm_t c, const void *p, size_t bytes, const char *what)
{
    if (!p) return pccl_err(c, pcclInvalidArgument, "pcclRun: %s is NULL", what);
    pthread_once(&attrs_once, find_attrs);
    if (!get_attrs) return pccl_err(c, pcclUnhandledCudaError, "the CUDA driver has no cuPointerGetAttributes");
    /* not a CUDA pointer: the call succeeds with every attribute 0 */
    /* 8 zeroed bytes for the enum and the boolean, whatever width the
     * driver writes */
    unsigned long long type = 0, managed = 0;
    int dev = -1;
    CUdeviceptr base = 0;
    size_t size = 0;
    CUpointer_attribute at[5] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                 CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void *out[5] = {&type, &managed, &dev, &base, &size};
    if (get_attrs(5, at, out, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS || (type != CU_MEMORYTYPE_DEVICE && !managed))
        return pccl_err(c, pcclInvalidArgument, "pcclRun: %s %p is not device memory", what, p);
    if (managed) return pcclSuccess; /* as before: managed memory of any device, its range not checked */
    if (dev != c->dev)
        return pccl_err(c, pcclInvalidArgument, "pcclRun: %s %p is memory of device %d, the communicator's is %d",
                        what, p, dev, c->dev);
    if (size && (uintptr_t)p + bytes > (uintptr_t)base + size)
        return pccl_err(c, pcclInvalidArgument,
                        "pcclRun: %s %p holds %zu bytes to the end of its allocation, the collective needs %zu",
                        what, p, (size_t)((uintptr_t)base + size - (uintptr_t)p), bytes);
    return pcclSuccess;
}

static pcclResult_t g_alloc(pcclComm_t c, void **p, size_t bytes)
{
    CU(c, cudaSetDevice(c->dev));
    CU(c, cudaMalloc(p, bytes));
    return pcclSuccess;
}

static pcclResult_t g_free(pcclComm_t c, void *p)
{
    CU(c, cudaSetDevice(c->dev));
    CU(c, cudaFree(p));
    return pcclSuccess;
}

static int g_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) { cudaGetLastError(); n = 0; }
    return n;
}

/* ---- streams (lib/stream.c): CUDA's stream memory operations ---------------------
 * cuStreamWriteValue64 (with its default memory barrier: the earlier work's
 * writes are visible before the flag) and cuStreamWaitValue64 on flags in
 * the daemon's device memory: 3.0 us for a hand-off and back, where pinned
 * host flags cost 6.1 (shared/spec/nccl-facts.md, "Floors").  Found through
 * the runtime, like cuMemGetAddressRange, so libpccl needs no -lcuda. */
typedef CUresult (*memop_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
static memop_fn write64, wait64;
static pthread_once_t memops_once = PTHREAD_ONCE_INIT;

static void find_memops(void)
{
    cudaDriverEntryPointQueryResult q;
    void *fn = NULL;
    if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue64", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
        write64 = (memop_fn)fn;
    fn = NULL;
    if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue64", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
        wait64 = (memop_fn)fn;
    cudaGetLastError();
}

static pcclResult_t g_stream_check(pcclComm_t c, void *stream)
{
    pthread_once(&memops_once, find_memops);
    if (!write64 || !wait64)
        return pccl_err(c, pcclUnhandledCudaError, "the CUDA driver has no cuStreamWriteValue64/cuStreamWaitValue64");
    return pcclSuccess;
}

static pcclResult_t memop(pcclComm_t c, memop_fn f, const char *name, void *stream, uint64_t *p, uint64_t v)
{
    CU(c, cudaSetDevice(c->dev));
    CUresult e = f((CUstream)stream, (CUdeviceptr)(uintptr_t)p, v, 0 /* write: barrier; wait: GEQ */);
    if (e != CUDA_SUCCESS)
        return pccl_err(c, pcclUnhandledCudaError, "%s on stream %p failed (CUresult %d)", name, stream, (int)e);
    return pcclSuccess;
}

static pcclResult_t g_stream_write(pcclComm_t c, void *stream, uint64_t *p, uint64_t v)
{
    return memop(c, write64, "cuStreamWriteValue64", stream, p, v);
}

static pcclResult_t g_stream_wait(pcclComm_t c, void *stream, uint64_t *p, uint64_t v)
{
    return memop(c, wait64, "cuStreamWaitValue64", stream, p, v);
}

/* One rank's copies (lib/direct.c) on the copy stream, each followed by an
 * event of a ring (one per invocation the direct queue may hold: copy seq
 * reuses seq - depth's, seen done before copy seq could be issued), which
 * the poller and spinning waiters query in order.  A stream write of the
 * copy's number into pinned memory, as the gates have, cost the GPU 2.5-3
 * us a copy (its memory barrier) where an event costs 0.1-0.3 us: back to
 * back 512 MiB copies 257.1-257.3 us against 254.0-254.4, plain copies
 * 254.7 (results/onecopy-h200/, call 4). */
static pcclResult_t g_copy(pcclComm_t c, void *dst, const void *src, size_t n, uint64_t seq)
{
    gpu_bk *h = (gpu_bk *)c->bk;
    int depth = c->G.k.depth;
    CU(c, cudaSetDevice(c->dev));
    if (!h->copy_ev) { /* at the first: depth events, about 1 us each */
        cudaEvent_t *ev = (cudaEvent_t *)calloc((size_t)depth, sizeof *ev);
        if (!ev) return pccl_err(c, pcclSystemError, "out of host memory");
        for (int i = 0; i < depth; i++) {
            cudaError_t e = cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming);
            if (e != cudaSuccess) {
                while (i-- > 0) cudaEventDestroy(ev[i]);
                free(ev);
                CU(c, e);
            }
        }
        h->copy_ev = ev;
    }
    CU(c, cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, h->copy));
    CU(c, cudaEventRecord(h->copy_ev[seq % (uint64_t)depth], h->copy));
    return pcclSuccess;
}

/* Copies done.  One thread at a time queries the events (the others take
 * the count as it is): two threads querying at once slowed the round trip
 * of a bare copy from 27.3 to 43-47 us at 32 MiB, and from 10.7 to 18-28
 * at 8 B (results/onecopy-h200/, call 7: the driver serializes them, and
 * the issuing thread's calls wait too).  A failure is kept, so the drain
 * hears of it whichever thread saw it. */
static uint64_t g_copied(pcclComm_t c, int *failed)
{
    gpu_bk *h = (gpu_bk *)c->bk;
    uint64_t depth = (uint64_t)c->G.k.depth, d = __atomic_load_n(&h->copies_done, __ATOMIC_ACQUIRE);
    if (d < __atomic_load_n(&c->copies, __ATOMIC_ACQUIRE) && !__atomic_exchange_n(&h->querying, 1, __ATOMIC_ACQUIRE)) {
        d = __atomic_load_n(&h->copies_done, __ATOMIC_ACQUIRE);
        while (d < __atomic_load_n(&c->copies, __ATOMIC_ACQUIRE)) {
            cudaError_t e = cudaEventQuery(h->copy_ev[(d + 1) % depth]);
            if (e == cudaErrorNotReady) break;
            if (e != cudaSuccess) { /* counted done: its invocation completes, with the error */
                cudaGetLastError();
                __atomic_store_n(&h->copy_failed, 1, __ATOMIC_RELEASE);
            }
            __atomic_store_n(&h->copies_done, ++d, __ATOMIC_RELEASE);
        }
        __atomic_store_n(&h->querying, 0, __ATOMIC_RELEASE);
    }
    *failed = __atomic_load_n(&h->copy_failed, __ATOMIC_ACQUIRE);
    return d;
}

/* On the daemon's own non-blocking stream: a copy on the legacy stream
 * would wait for the blocking streams, which may be the ones waiting. */
static pcclResult_t g_set_flags(pcclComm_t c, uint64_t *p, uint64_t v, size_t n)
{
    uint64_t *h = (uint64_t *)malloc(n * sizeof *h);
    if (!h) return pccl_err(c, pcclSystemError, "out of host memory");
    for (size_t i = 0; i < n; i++) h[i] = v;
    cudaStream_t s = ((gpu_bk *)c->bk)->stream;
    cudaSetDevice(c->dev);
    cudaError_t e = cudaMemcpyAsync(p, h, n * sizeof *h, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    free(h);
    CU(c, e);
    return pcclSuccess;
}

/* The daemon's stream holds only the daemon's launches. */
static void g_launch_wait(pcclComm_t c)
{
    cudaSetDevice(c->dev);
    if (cudaStreamSynchronize(((gpu_bk *)c->bk)->stream) != cudaSuccess) cudaGetLastError();
}

/* For the hang report: on the copy stream, so never behind the daemon or
 * the application's streams. */
static pcclResult_t g_download(pcclComm_t c, void *dst, const void *src, size_t n)
{
    return copy_on_copy_stream(c, dst, src, n, cudaMemcpyDeviceToHost);
}

extern "C" const pccl_backend pccl_gpu_backend = {
    "gpu", g_open, g_close, g_export, g_import, g_unimport, g_enable_peer, g_upload,
    g_launch, g_running, g_devsync, g_check_buf, g_alloc, g_free, g_count, NULL,
    g_stream_check, g_stream_write, g_stream_wait, g_set_flags, g_launch_wait, g_download, g_copy, g_copied,
};
