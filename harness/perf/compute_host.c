/* compute_host.c: the host build's stand-in for compute.cu (see compute.h).
 *
 * The host build has no GPU, so --interfere is refused there; only the test
 * knob PCCL_PERF_TEST_HOST_COMPUTE=1 lets tests/perf.sh run the scenarios'
 * logic (rank threads, stop rule, pccl-stuck, checks, report) with this CPU
 * version of the same kernels: a plain triple-loop GEMM and a triad, timed
 * by the wall clock.  Its figures mean nothing. */
#ifndef PERF_HAVE_CUDA
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "compute.h"


struct perf_compute {
    int kind;
    long n;
    size_t elems;
    float *x, *y, *z; /* gemm: A, B, C; stream: a, b, c */
};

void perf_compute_free(perf_compute *c)
{
    if (!c) return;
    free(c->x);
    free(c->y);
    free(c->z);
    free(c);
}

perf_compute *perf_compute_create(int kind, long n, char *err, size_t errlen)
{
    perf_compute *c = calloc(1, sizeof *c);
    if (!c) goto oom;
    c->kind = kind;
    c->n = n;
    c->elems = kind == PERF_KERNEL_GEMM ? (size_t)n * (size_t)n : (size_t)n << 18;
    c->x = malloc(c->elems * sizeof(float));
    c->y = malloc(c->elems * sizeof(float));
    c->z = malloc(c->elems * sizeof(float));
    if (!c->x || !c->y || !c->z) goto oom;
    float *bufs[3] = {c->x, c->y, c->z};
    for (int b = 0; b < 3; b++)
        for (size_t i = 0; i < c->elems; i++) bufs[b][i] = perf_compute_input((uint32_t)b, i);
    return c;
oom:
    snprintf(err, errlen, "out of host memory for the compute stand-in");
    perf_compute_free(c);
    return NULL;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void launch(perf_compute *c)
{
    size_t n = (size_t)c->n;
    if (c->kind == PERF_KERNEL_GEMM) {
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                float acc = 0;
                for (size_t k = 0; k < n; k++) acc = fmaf(c->x[i * n + k], c->y[k * n + j], acc);
                c->z[i * n + j] = acc;
            }
        return;
    }
    for (size_t i = 0; i < c->elems; i++) c->x[i] = fmaf(PERF_STREAM_SCALAR, c->z[i], c->y[i]);
}

double perf_compute_run(perf_compute *c, long k, char *err, size_t errlen)
{
    double t0 = now_ms();
    for (long i = 0; i < k; i++) launch(c);
    return now_ms() - t0;
}

/* The same samples and tolerances as compute.cu's check (compute.h). */
long perf_compute_check(perf_compute *c, char *msg, size_t len)
{
    long wrong = 0;
    size_t n = (size_t)c->n;
    if (msg && len) msg[0] = 0;
    for (size_t s = 0; s < PERF_CHECK_SAMPLES; s++) {
        size_t i, j;
        double want, tol;
        perf_compute_expect(c->kind, n, c->elems, s, &i, &j, &want, &tol);
        double got = c->kind == PERF_KERNEL_GEMM ? c->z[i * n + j] : c->x[i];
        if (!(fabs(got - want) <= tol)) {
            if (!wrong && msg && len) snprintf(msg, len, "%s output %zu,%zu = %.9g, expected %.9g",
                                               c->kind == PERF_KERNEL_GEMM ? "gemm" : "stream", i, j, got, want);
            wrong++;
        }
    }
    return wrong;
}

double perf_compute_work(const perf_compute *c)
{
    if (c->kind == PERF_KERNEL_GEMM) return 2.0 * (double)c->n * (double)c->n * (double)c->n;
    return 3.0 * (double)c->elems * sizeof(float);
}

void perf_compute_describe(const perf_compute *c, char *buf, size_t len)
{
    if (c->kind == PERF_KERNEL_GEMM)
        snprintf(buf, len, "gemm (CPU stand-in, test only): C = A B, %ld x %ld floats", c->n, c->n);
    else
        snprintf(buf, len, "stream (CPU stand-in, test only): triad over 3 buffers of %ld MiB", c->n);
}

#else
typedef int perf_compute_host_unused; /* ISO C: a translation unit is not empty */
#endif
