/* compute.cu: --interfere's compute kernels on the GPU (see compute.h).
 *
 * gemm: C = A B for n x n floats, no cuBLAS.  Each block of 256 threads
 * computes a 128 x 128 tile of C; per step of 8 along k it stages a 128 x 8
 * slice of A (transposed) and an 8 x 128 slice of B in shared memory, double
 * buffered so one __syncthreads per step suffices and the global loads of the
 * next step overlap this step's math; each thread keeps an 8 x 8 block of C in
 * registers and does 64 FMAs per 16 shared loads, which is what makes the
 * kernel compute bound rather than bound by shared memory.  A thread's 8 rows
 * (and columns) are two groups of 4, 64 apart, so that a warp's float4 reads
 * of B's slice and its float4 stores of C are contiguous.
 *
 * stream: a = b + s c with float4 accesses, a grid-stride loop over a grid
 * that fills every SM; three buffers of hundreds of MiB, far more than L2. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "compute.h"

#define BM 128 /* = PERF_GEMM_TILE */
#define BN 128
#define BK 8
#define GEMM_THREADS 256
#define PAD 4 /* As rows padded: the transposing stores of A hit distinct banks */
#define STREAM_BLOCKS_PER_SM 8
#define STREAM_THREADS 256
#define POLL_NS 200000 /* the compute thread's poll of its kernels' end */

struct perf_compute {
    int kind, dev, sms;
    long n;
    size_t elems; /* per buffer */
    float *x, *y, *z; /* gemm: A, B, C; stream: a, b, c */
    cudaStream_t stream;
    cudaEvent_t e0, e1;
};

static int cuda_fail(cudaError_t e, const char *what, char *err, size_t len)
{
    if (err && len) snprintf(err, len, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return -1;
}

/* ---- kernels ------------------------------------------------------------------ */

__global__ void fill_kernel(float *p, size_t n, uint32_t which)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = perf_compute_input(which, i);
}

__global__ void __launch_bounds__(GEMM_THREADS, 2)
sgemm_kernel(int n, const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C)
{
    __shared__ __align__(16) float As[2][BK][BM + PAD]; /* As[k][m] = A[row0 + m][k0 + k] */
    __shared__ __align__(16) float Bs[2][BK][BN];       /* Bs[k][c] = B[k0 + k][col0 + c] */
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int tr = tid >> 4, tc = tid & 15; /* rows tr*4 + {0..3, 64..67}, columns tc*4 + {0..3, 64..67} */
    /* staging: A's slice is 128 rows of 8 (a float4 per thread), B's 8 rows of 128 */
    const int ar = tid >> 1, ac = (tid & 1) << 2;
    const int br = tid >> 5, bc = (tid & 31) << 2;
    const float *Ap = A + (size_t)(row0 + ar) * n + ac;
    const float *Bp = B + (size_t)br * n + col0 + bc;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;

    float4 a4 = *(const float4 *)Ap, b4 = *(const float4 *)Bp;
    As[0][ac + 0][ar] = a4.x;
    As[0][ac + 1][ar] = a4.y;
    As[0][ac + 2][ar] = a4.z;
    As[0][ac + 3][ar] = a4.w;
    *(float4 *)&Bs[0][br][bc] = b4;
    __syncthreads();

    for (int k0 = 0, cur = 0; k0 < n; k0 += BK, cur ^= 1) {
        const int more = k0 + BK < n;
        if (more) { /* the next slice, into registers while this one is used */
            a4 = *(const float4 *)(Ap + k0 + BK);
            b4 = *(const float4 *)(Bp + (size_t)(k0 + BK) * n);
        }
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float ra[8], rb[8];
            *(float4 *)&ra[0] = *(const float4 *)&As[cur][k][tr * 4];
            *(float4 *)&ra[4] = *(const float4 *)&As[cur][k][tr * 4 + 64];
            *(float4 *)&rb[0] = *(const float4 *)&Bs[cur][k][tc * 4];
            *(float4 *)&rb[4] = *(const float4 *)&Bs[cur][k][tc * 4 + 64];
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
        if (more) { /* the other buffer: nobody reads it since the last barrier */
            As[cur ^ 1][ac + 0][ar] = a4.x;
            As[cur ^ 1][ac + 1][ar] = a4.y;
            As[cur ^ 1][ac + 2][ar] = a4.z;
            As[cur ^ 1][ac + 3][ar] = a4.w;
            *(float4 *)&Bs[cur ^ 1][br][bc] = b4;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int row = row0 + tr * 4 + (i & 3) + (i >> 2) * 64;
        float *c = C + (size_t)row * n + col0 + tc * 4;
        *(float4 *)c = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *(float4 *)(c + 64) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

__global__ void triad_kernel(float4 *__restrict__ a, const float4 *__restrict__ b, const float4 *__restrict__ c,
                             size_t n4, float s)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
        float4 x = b[i], y = c[i];
        a[i] = make_float4(__fmaf_rn(s, y.x, x.x), __fmaf_rn(s, y.y, x.y), __fmaf_rn(s, y.z, x.z),
                           __fmaf_rn(s, y.w, x.w));
    }
}

/* ---- the ABI -------------------------------------------------------------------- */

extern "C" void perf_compute_free(perf_compute *c)
{
    if (!c) return;
    cudaSetDevice(c->dev);
    cudaFree(c->x);
    cudaFree(c->y);
    cudaFree(c->z);
    if (c->stream) cudaStreamDestroy(c->stream);
    if (c->e0) cudaEventDestroy(c->e0);
    if (c->e1) cudaEventDestroy(c->e1);
    free(c);
}

extern "C" perf_compute *perf_compute_create(int kind, long n, char *err, size_t errlen)
{
    perf_compute *c = (perf_compute *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of host memory");
        return NULL;
    }
    c->kind = kind;
    c->n = n;
    c->elems = kind == PERF_KERNEL_GEMM ? (size_t)n * (size_t)n : (size_t)n << 18; /* n MiB of floats */
    cudaError_t e = cudaGetDevice(&c->dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&c->sms, cudaDevAttrMultiProcessorCount, c->dev);
    /* its own non-blocking stream: it must not wait for, nor be waited for
     * by, the legacy stream the benchmark copies on, nor the libraries' */
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreate(&c->e0);
    if (e == cudaSuccess) e = cudaEventCreate(&c->e1);
    if (e != cudaSuccess) {
        cuda_fail(e, "setting up the compute stream", err, errlen);
        perf_compute_free(c);
        return NULL;
    }
    float **bufs[3] = {&c->x, &c->y, &c->z};
    for (int i = 0; i < 3; i++) {
        e = cudaMalloc((void **)bufs[i], c->elems * sizeof(float));
        if (e != cudaSuccess) {
            char what[96];
            snprintf(what, sizeof what, "cudaMalloc of %zu MiB for the compute kernel", c->elems * sizeof(float) >> 20);
            cuda_fail(e, what, err, errlen);
            perf_compute_free(c);
            return NULL;
        }
        fill_kernel<<<c->sms * 4, 256, 0, c->stream>>>(*bufs[i], c->elems, (uint32_t)i);
    }
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
    if (e != cudaSuccess) {
        cuda_fail(e, "filling the compute kernel's inputs", err, errlen);
        perf_compute_free(c);
        return NULL;
    }
    return c;
}

static void launch(perf_compute *c)
{
    if (c->kind == PERF_KERNEL_GEMM) {
        dim3 grid((unsigned)(c->n / BN), (unsigned)(c->n / BM));
        sgemm_kernel<<<grid, GEMM_THREADS, 0, c->stream>>>((int)c->n, c->x, c->y, c->z);
    } else {
        triad_kernel<<<c->sms * STREAM_BLOCKS_PER_SM, STREAM_THREADS, 0, c->stream>>>(
            (float4 *)c->x, (const float4 *)c->y, (const float4 *)c->z, c->elems / 4, PERF_STREAM_SCALAR);
    }
}

extern "C" double perf_compute_run(perf_compute *c, long k, char *err, size_t errlen)
{
    cudaError_t e = cudaSetDevice(c->dev);
    if (e == cudaSuccess) e = cudaEventRecord(c->e0, c->stream);
    for (long i = 0; e == cudaSuccess && i < k; i++) {
        launch(c);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaEventRecord(c->e1, c->stream);
    /* polled with sleeps, not cudaEventSynchronize: that may spin a core for
     * the whole run, next to the rank threads, NCCL's proxies and pccl's
     * pollers; the events time the kernels, not this wait */
    while (e == cudaSuccess && (e = cudaEventQuery(c->e1)) == cudaErrorNotReady) {
        struct timespec t = {0, POLL_NS};
        nanosleep(&t, NULL);
        e = cudaSuccess;
    }
    float ms = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, c->e0, c->e1);
    if (e != cudaSuccess) return cuda_fail(e, "compute kernel", err, errlen);
    return ms;
}

extern "C" long perf_compute_check(perf_compute *c, char *msg, size_t len)
{
    long wrong = 0;
    if (msg && len) msg[0] = 0;
    cudaSetDevice(c->dev);
    for (size_t s = 0; s < PERF_CHECK_SAMPLES; s++) {
        size_t i, j;
        double want, tol;
        perf_compute_expect(c->kind, (size_t)c->n, c->elems, s, &i, &j, &want, &tol);
        size_t at = c->kind == PERF_KERNEL_GEMM ? i * (size_t)c->n + j : i;
        float got;
        cudaError_t e = cudaMemcpy(&got, (c->kind == PERF_KERNEL_GEMM ? c->z : c->x) + at, sizeof got,
                                   cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            cuda_fail(e, "fetching the compute kernel's output", msg, len);
            return -1;
        }
        if (!(fabs((double)got - want) <= tol)) {
            if (!wrong && msg && len) {
                if (c->kind == PERF_KERNEL_GEMM)
                    snprintf(msg, len, "gemm C[%zu][%zu] = %.7g, expected %.7g (tolerance %.2g)", i, j, got, want, tol);
                else
                    snprintf(msg, len, "stream a[%zu] = %.9g, expected %.9g", i, got, want);
            }
            wrong++;
        }
    }
    return wrong;
}

extern "C" double perf_compute_work(const perf_compute *c)
{
    if (c->kind == PERF_KERNEL_GEMM) return 2.0 * (double)c->n * (double)c->n * (double)c->n;
    return 3.0 * (double)c->elems * sizeof(float); /* STREAM's count: b and c read, a written */
}

extern "C" void perf_compute_describe(const perf_compute *c, char *buf, size_t len)
{
    if (c->kind == PERF_KERNEL_GEMM)
        snprintf(buf, len,
                 "gemm: SGEMM C = A B, %ld x %ld floats (%d x %d tiles of 256 threads, 8 x 8 outputs per thread; "
                 "%.1f GFLOP per launch)",
                 c->n, c->n, BM, BN, perf_compute_work(c) / 1e9);
    else
        snprintf(buf, len, "stream: triad a = b + %g c, 3 buffers of %ld MiB (%d blocks of %d threads; %.0f MB moved "
                 "per launch)",
                 (double)PERF_STREAM_SCALAR, c->n, c->sms * STREAM_BLOCKS_PER_SM, STREAM_THREADS,
                 perf_compute_work(c) / 1e6);
}
