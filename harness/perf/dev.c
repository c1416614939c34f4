/* dev.c: the benchmark's buffers.  GPU build: cudaMalloc'd memory of the
 * calling thread's device (both libraries take the same buffers); host build:
 * plain memory, which is what pccl's host backend works on. */
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#ifdef PERF_HAVE_CUDA
#include <cuda_runtime.h>

static __thread char last_error[256];

static int fail(cudaError_t e, const char *what)
{
    snprintf(last_error, sizeof last_error, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return -1;
}

int dev_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

int dev_set(int dev)
{
    cudaError_t e = cudaSetDevice(dev);
    return e == cudaSuccess ? 0 : fail(e, "cudaSetDevice");
}

void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        fail(e, "cudaMalloc");
        return NULL;
    }
    return p;
}

void dev_free(void *p)
{
    if (p) cudaFree(p);
}

/* cudaMemcpy from pageable memory may return before the DMA to the device
 * finished, and the libraries' kernels run on non-blocking streams, which do
 * not wait for the legacy stream: wait for the copy here.  (Synchronizing the
 * legacy stream, not the device, does not wait for pccl's daemon.) */
int dev_h2d(void *dst, const void *src, size_t n)
{
    cudaError_t e = n ? cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice) : cudaSuccess;
    if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamLegacy);
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy (to the GPU)");
}

int dev_d2h(void *dst, const void *src, size_t n)
{
    cudaError_t e = n ? cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost) : cudaSuccess;
    return e == cudaSuccess ? 0 : fail(e, "cudaMemcpy (from the GPU)");
}

const char *dev_last_error(void) { return last_error; }

void dev_describe(char *buf, size_t len, int ndev)
{
    size_t n = 0;
    buf[0] = 0;
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    for (int d = 0; d < ndev && n < len; d++) {
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess) snprintf(p.name, sizeof p.name, "?");
        n += (size_t)snprintf(buf + n, len - n, "%sGPU %d: %s", d ? "; " : "", d, p.name);
    }
    if (n < len) snprintf(buf + n, len - n, "; CUDA driver %d, runtime %d", driver, runtime);
}

#else /* host build */

int dev_count(void) { return PERF_MAX_RANKS; }
int dev_set(int dev) { return 0; }

void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 4096, bytes ? bytes : 1) ? NULL : p;
}

void dev_free(void *p) { free(p); }

int dev_h2d(void *dst, const void *src, size_t n)
{
    if (n) memcpy(dst, src, n);
    return 0;
}

int dev_d2h(void *dst, const void *src, size_t n)
{
    if (n) memcpy(dst, src, n);
    return 0;
}

const char *dev_last_error(void) { return "out of host memory"; }

void dev_describe(char *buf, size_t len, int ndev)
{
    snprintf(buf, len, "pccl host backend: %d emulated GPUs (threads), no CUDA", ndev);
}

#endif
