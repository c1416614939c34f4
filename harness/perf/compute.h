/* compute.h: the compute kernel of --interfere, behind a small C ABI.
 *
 * GPU build: compute.cu (nvcc); host build: compute_host.c, a CPU stand-in
 * that only tests/perf.sh uses (PCCL_PERF_TEST_HOST_COMPUTE=1), so that the
 * scenarios' logic runs in CI; its figures mean nothing.
 *
 *   gemm    C = A B, float, n x n (n a multiple of 128): a shared-memory tiled
 *           SGEMM, 128 x 128 tiles per block, 8 x 8 outputs per thread in
 *           registers (compute bound: 2n^3 flops on 12n^2 bytes);
 *   stream  the STREAM triad a = b + s c over three buffers of n MiB each
 *           (memory bound: 3 x n MiB per launch, no reuse in any cache).
 *
 * Inputs are a hash of (buffer, index), so the check recomputes sampled
 * outputs on the host without copying the inputs back. */
#ifndef PCCL_PERF_COMPUTE_H
#define PCCL_PERF_COMPUTE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { PERF_KERNEL_NONE = 0, PERF_KERNEL_GEMM = 1, PERF_KERNEL_STREAM = 2 };

#define PERF_GEMM_TILE 128      /* gemm's n must be a multiple of it */
#define PERF_GEMM_DEFAULT_N 4096
#define PERF_STREAM_DEFAULT_MIB 256
#define PERF_STREAM_SCALAR 3.0f

typedef struct perf_compute perf_compute;

/* Buffers and a non-blocking stream on the calling thread's device, inputs
 * filled.  NULL on failure (err says why). */
perf_compute *perf_compute_create(int kind, long n, char *err, size_t errlen);
/* k launches on the compute object's stream, from any thread (it selects the
 * device); blocks until they finished.  Returns the milliseconds between two
 * events recorded around them (host stand-in: wall clock), or -1 (err). */
double perf_compute_run(perf_compute *c, long k, char *err, size_t errlen);
/* Recomputes sampled outputs of the last launch on the host; returns how
 * many are wrong (msg: the first), or -1 if they could not be fetched. */
long perf_compute_check(perf_compute *c, char *msg, size_t len);
/* Work of one launch: flops (gemm) or bytes moved (stream). */
double perf_compute_work(const perf_compute *c);
/* "SGEMM 4096 x 4096 x 4096 (128 x 128 tiles, 8 x 8 per thread)" ... */
void perf_compute_describe(const perf_compute *c, char *buf, size_t len);
void perf_compute_free(perf_compute *c);

/* Input element i of buffer `which`, in [-1, 1): a 64-bit mix (splitmix64's
 * finalizer), so neighbours are unrelated and no value is special. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline float perf_compute_input(uint32_t which, uint64_t i)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ull + ((uint64_t)which << 32) + which;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return (float)(x >> 40) * (1.0f / 8388608.0f) - 1.0f; /* 24 bits: exact in a float */
}

#define PERF_CHECK_SAMPLES 16

/* Sample s of PERF_CHECK_SAMPLES: corners first, then spread by a
 * multiplicative hash. */
static inline size_t perf_compute_sample(size_t s, size_t range)
{
    if (s == 0) return 0;
    if (s == 1) return range - 1;
    return (size_t)((s * 2654435761u) % range);
}

/* What perf_compute_check compares at sample s, in both builds: the output
 * element (gemm: C[i][j]; stream: a[i], j = 0) and its value recomputed from
 * the inputs, with the tolerance.  gemm: float sums of n products in
 * sequence are off by about sqrt(n) eps |terms|; 3e-5 is far above that, far
 * below a missing tile.  stream: the same fmaf, exact. */
static inline void perf_compute_expect(int kind, size_t n, size_t elems, size_t s, size_t *i, size_t *j,
                                       double *want, double *tol)
{
    if (kind == PERF_KERNEL_GEMM) {
        *i = perf_compute_sample(s, n);
        *j = perf_compute_sample(s * 7 + 3, n);
        double sum = 0, mag = 0;
        for (size_t k = 0; k < n; k++) {
            double p = (double)perf_compute_input(0, *i * n + k) * (double)perf_compute_input(1, k * n + *j);
            sum += p;
            mag += fabs(p);
        }
        *want = sum;
        *tol = 3e-5 * mag + 1e-6;
    } else {
        *i = perf_compute_sample(s, elems);
        *j = 0;
        *want = (double)fmaf(PERF_STREAM_SCALAR, perf_compute_input(2, *i), perf_compute_input(1, *i));
        *tol = 0;
    }
}

#ifdef __cplusplus
}
#endif
#endif
