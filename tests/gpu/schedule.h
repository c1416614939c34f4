/* schedule.h: the deadlock-test schedule of paper 001, Sec. 6.1, shared by the
 * NCCL program (tests/gpu/nccl_deadlock.c) and the pccl test, so both libraries
 * see exactly the same collectives in exactly the same orders.
 *
 * The test: every GPU invokes the same DL_SCHED_NCOLL all-reduces (float sum,
 * out-of-place, dl_sched_bytes[c] bytes each, so dl_sched_bytes[c] / 4
 * elements) once per iteration, each GPU in its own random order, which
 * changes every iteration.
 *
 * The order of GPU `gpu` in iteration `iter` (dl_sched_order) is a
 * Fisher-Yates shuffle of 0..n-1 driven by a splitmix64 stream:
 *
 *   state = mix(seed ^ mix(((uint64_t)iter << 32) | (uint32_t)gpu))
 *   next():  state += 0x9E3779B97F4A7C15;  return mix(state)
 *   out[i] = i for all i;  for i = n-1 down to 1:
 *       j = next() % (i+1);  swap(out[i], out[j])
 *
 * where mix() is the splitmix64 finalizer (dl_sched_mix).  The order depends
 * on (seed, iter, gpu) only: not on the number of GPUs, not on what ran
 * before, so any single (iter, gpu) can be recomputed on its own.
 *
 * Data (also shared, so both tests check the same sums): element k of GPU g's
 * input of collective c is (g+1) + (k % 7) + c, a small integer, exact in
 * float, so the sum over N GPUs is known exactly:
 *   N(N+1)/2 + N * ((k % 7) + c).
 *
 * Plain C11, header only; compiles as C (gcc -std=c11) and as C++/CUDA (nvcc).
 */
#ifndef DL_SCHEDULE_H
#define DL_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DL_SCHED_NCOLL 8

/* Buffer size of each all-reduce, in bytes: 256 B to 1 MB. */
static const size_t dl_sched_bytes[8] = {256, 1024, 4096, 16384, 65536, 131072, 524288, 1048576};

/* Element count of collective c (float elements). */
static inline size_t dl_sched_count(int c)
{
    return dl_sched_bytes[c] / sizeof(float);
}

/* splitmix64 finalizer. */
static inline uint64_t dl_sched_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* Next value of a splitmix64 stream. */
static inline uint64_t dl_sched_next(uint64_t *state)
{
    *state += 0x9E3779B97F4A7C15ULL;
    return dl_sched_mix(*state);
}

/* out[0..n-1] = the order in which GPU `gpu` invokes collectives 0..n-1 in
 * iteration `iter` (out[k] is the k-th collective it invokes). */
static inline void dl_sched_order(uint64_t seed, int iter, int gpu, int n, int *out)
{
    uint64_t state = dl_sched_mix(seed ^ dl_sched_mix(((uint64_t)iter << 32) | (uint32_t)gpu));
    for (int i = 0; i < n; i++)
        out[i] = i;
    for (int i = n - 1; i >= 1; i--) {
        int j = (int)(dl_sched_next(&state) % (uint64_t)(i + 1));
        int t = out[i];
        out[i] = out[j];
        out[j] = t;
    }
}

/* Input value of element k of GPU g (0-based) for collective c. */
static inline float dl_sched_input(int g, size_t k, int c)
{
    return (float)((g + 1) + (int)(k % 7) + c);
}

/* Correct all-reduce (sum) result for element k of collective c over ngpus. */
static inline float dl_sched_expected(int ngpus, size_t k, int c)
{
    return (float)(ngpus * (ngpus + 1) / 2 + ngpus * ((int)(k % 7) + c));
}

/* Print the whole schedule, one line per (iteration, GPU), for reproducing a
 * run: "iter I gpu G order c0 c1 ... c7". */
static inline void dl_sched_print(FILE *f, uint64_t seed, int iters, int gpus)
{
    int order[DL_SCHED_NCOLL];
    fprintf(f, "# schedule seed=%llu iters=%d gpus=%d ncoll=%d bytes=",
            (unsigned long long)seed, iters, gpus, DL_SCHED_NCOLL);
    for (int c = 0; c < DL_SCHED_NCOLL; c++)
        fprintf(f, "%s%zu", c ? "," : "", dl_sched_bytes[c]);
    fputc('\n', f);
    for (int it = 0; it < iters; it++) {
        for (int g = 0; g < gpus; g++) {
            dl_sched_order(seed, it, g, DL_SCHED_NCOLL, order);
            fprintf(f, "iter %d gpu %d order", it, g);
            for (int k = 0; k < DL_SCHED_NCOLL; k++)
                fprintf(f, " %d", order[k]);
            fputc('\n', f);
        }
    }
}

#endif /* DL_SCHEDULE_H */
