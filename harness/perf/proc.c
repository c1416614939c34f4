/* pccl-perf-proc: one rank of a pccl all-reduce benchmark, in its own
 * process.  pccl-perf runs every rank in one process, so a profiler that
 * serializes the kernels of the process it watches (Nsight Compute) would
 * stop every daemon but one, and that one would wait for its peers forever.
 * Started once per rank, this lets the profiler watch rank 0 alone while the
 * other ranks run unprofiled:
 *
 *   for r in 1 2 3; do pccl-perf-proc --rank $r --nranks 4 --id-file F -b 1G & done
 *   ncu ... pccl-perf-proc --rank 0 --nranks 4 --id-file F -b 1G
 *
 * Rank 0 writes the communicator's unique id to F; the others wait for it.
 * Each rank runs -w untimed and -n timed out-of-place float sum all-reduces of
 * -b bytes (pcclRun, pcclWait), checks the output of the last one, and prints
 * its time per iteration and nccl-tests' bus bandwidth.  GPU build only (the
 * host backend joins ranks of one process only).
 *
 * Exit: 0 correct, 4 wrong data, 3 the id file did not come, 2 bad
 * arguments, 1 any other failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "../../lib/pccl.h"
#include "size.h"

static const char *usage =
    "usage: pccl-perf-proc --rank R --nranks N --id-file F [-b BYTES] [-n ITERS] [-w WARMUP] [--device D]\n"
    "One rank of a pccl all-reduce benchmark per process (float, sum, out of place), so that a\n"
    "profiler can watch one rank's daemon while the others run free.  Rank 0 writes the unique id\n"
    "to F (replacing it) and removes it once every rank joined; the others wait for F, at most\n"
    "120 s.  A rank that finds a stale F joins no one: remove F before a run.\n"
    "  -b BYTES     bytes per all-reduce, a multiple of 4 (K, M, G: powers of 1024; as pccl-perf -b) [64M]\n"
    "  -n ITERS     timed iterations [20]\n"
    "  -w WARMUP    untimed iterations first [5]\n"
    "  --device D   the CUDA device [R modulo the visible devices]\n";

static int rank = -1;

static void die(int code, const char *fmt, const char *arg)
{
    fprintf(stderr, "pccl-perf-proc: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(code);
}

#define PC(call)                                                                                     \
    do {                                                                                             \
        pcclResult_t r_ = (call);                                                                    \
        if (r_) {                                                                                    \
            fprintf(stderr, "pccl-perf-proc: rank %d: %s: %s (%s)\n", rank, #call, pcclGetErrorString(r_), \
                    pcclGetLastError(NULL));                                                         \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

/* The value after flag: an integer in [lo, hi], or (size) a byte size as
 * pccl-perf's -b takes it. */
static long long arg_num(int argc, char **argv, int *i, const char *flag, long long lo, long long hi, int size)
{
    if (*i + 1 >= argc) die(2, "%s: needs a value (see --help)", flag);
    const char *v = argv[++*i];
    char *end;
    size_t bytes;
    errno = 0;
    long long n = size ? (perf_parse_size(v, &bytes) ? -1 : (long long)bytes) : strtoll(v, &end, 10);
    if (!size && (errno || end == v || *end)) n = -1;
    if (n < lo || n > hi) {
        fprintf(stderr, "pccl-perf-proc: %s: '%s' must be %s in [%lld, %lld] (see --help)\n", flag, v,
                size ? "a size" : "an integer", lo, hi);
        exit(2);
    }
    return n;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Rank 0: publish the id (write, then rename, so no rank reads half a file).
 * The others: wait for it. */
static int exchange_id(const char *path, pcclUniqueId *id)
{
    if (rank == 0) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
        FILE *f = fopen(tmp, "wb");
        if (!f || fwrite(id, sizeof *id, 1, f) != 1 || fclose(f) || rename(tmp, path))
            die(1, "--id-file %s: cannot write it", path);
        return 0;
    }
    for (double t0 = now_s(); now_s() - t0 < 120;) {
        FILE *f = fopen(path, "rb");
        if (f) {
            size_t got = fread(id, sizeof *id, 1, f);
            fclose(f);
            if (got == 1) return 0;
        }
        usleep(20000);
    }
    return -1;
}

int main(int argc, char **argv)
{
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    long long nranks = -1, bytes = 64ll << 20, iters = 20, warmup = 5, dev = -1;
    const char *idfile = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(usage, stdout); return 0; }
        else if (!strcmp(a, "--rank")) rank = (int)arg_num(argc, argv, &i, a, 0, 1023, 0);
        else if (!strcmp(a, "--nranks")) nranks = arg_num(argc, argv, &i, a, 1, 1024, 0);
        else if (!strcmp(a, "--id-file")) {
            if (i + 1 >= argc) die(2, "%s: needs a value (see --help)", a);
            idfile = argv[++i];
        } else if (!strcmp(a, "-b")) bytes = arg_num(argc, argv, &i, a, 4, 1ll << 36, 1);
        else if (!strcmp(a, "-n")) iters = arg_num(argc, argv, &i, a, 1, 1000000, 0);
        else if (!strcmp(a, "-w")) warmup = arg_num(argc, argv, &i, a, 0, 1000000, 0);
        else if (!strcmp(a, "--device")) dev = arg_num(argc, argv, &i, a, 0, 1023, 0);
        else die(2, "unknown argument '%s' (see --help)", a);
    }
    if (rank < 0 || nranks < 0 || !idfile) die(2, "%s", "--rank, --nranks and --id-file are required (see --help)");
    if (rank >= nranks) die(2, "%s", "--rank must be below --nranks");
    if (bytes % 4) die(2, "%s", "-b: a multiple of 4 bytes (floats)");
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) die(1, "%s", "no CUDA device");
    if (dev < 0) dev = rank % ndev;
    if (dev >= ndev) die(2, "%s", "--device: not a visible device");
    if (cudaSetDevice((int)dev) != cudaSuccess) die(1, "%s", "cudaSetDevice failed");

    pcclUniqueId id;
    if (rank == 0) PC(pcclGetUniqueId(&id));
    if (exchange_id(idfile, &id)) die(3, "--id-file %s: rank 0 did not write it within 120 s", idfile);
    pcclComm_t comm;
    PC(pcclCommInitRank(&comm, (int)nranks, id, rank));
    if (rank == 0) unlink(idfile); /* every rank has joined: the file is not needed any more */

    size_t count = (size_t)bytes / 4;
    int coll;
    float *send, *recv, *host = malloc((size_t)bytes);
    if (!host) die(1, "%s", "out of host memory");
    PC(pcclRegisterAllReduce(comm, count, pcclFloat, pcclSum, 0, &coll));
    PC(pcclMemAlloc(comm, (void **)&send, (size_t)bytes));
    PC(pcclMemAlloc(comm, (void **)&recv, (size_t)bytes));
    for (size_t e = 0; e < count; e++) host[e] = (float)(rank + 1 + (int)(e % 7));
    if (cudaMemcpy(send, host, (size_t)bytes, cudaMemcpyHostToDevice) != cudaSuccess) die(1, "%s", "cudaMemcpy failed");

    for (long long i = 0; i < warmup; i++) {
        PC(pcclRun(comm, coll, send, recv, NULL, NULL));
        PC(pcclWait(comm, coll));
    }
    double t0 = now_s();
    for (long long i = 0; i < iters; i++) {
        PC(pcclRun(comm, coll, send, recv, NULL, NULL));
        PC(pcclWait(comm, coll));
    }
    double sec = (now_s() - t0) / (double)iters;

    if (cudaMemcpy(host, recv, (size_t)bytes, cudaMemcpyDeviceToHost) != cudaSuccess) die(1, "%s", "cudaMemcpy failed");
    long long wrong = 0;
    for (size_t e = 0; e < count; e++) {
        /* sum over ranks of (r + 1 + e % 7): exact in float at these sizes */
        float want = (float)(nranks * (nranks + 1) / 2 + nranks * (long long)(e % 7));
        wrong += host[e] != want;
    }
    double busbw = (double)bytes / sec / 1e9 * 2.0 * (double)(nranks - 1) / (double)nranks;
    printf("rank %d: all_reduce %lld bytes, %lld iterations: %.2f us, busbw %.2f GB/s, %lld wrong\n", rank, bytes,
           iters, sec * 1e6, busbw, wrong);
    PC(pcclMemFree(comm, send));
    PC(pcclMemFree(comm, recv));
    PC(pcclCommDestroy(comm));
    free(host);
    return wrong ? 4 : 0;
}
