/* pccl-fault: the fault-injection suite of tests/pccl (mproc.c), one process
 * per GPU on the GPU backend: a rank killed with -9 or stopped with SIGSTOP
 * at a random point of init, registration, a collective, a synchronization or
 * destroy; every survivor must get pcclRemoteError within its deadline,
 * shrink (or re-init), complete the next collectives exactly, and leave no
 * pccl thread behind.  Buffers are device memory (staged through the host).
 *
 *   pccl-fault [--gpus N] [--share N] [--seeds K] [--first S] [--help]
 *     --gpus N    ranks on GPUs 0..N-1 (default: every GPU, at least 2)
 *     --share N   N ranks, all on GPU 0 (PCCL_DEVICE_OF_RANK=0,0,...): two
 *                 processes sharing one GPU, where only one is lent
 *     --seeds K   fault cases (default 10), seeds S..S+K-1 (--first, default 1),
 *                 after a run without a fault (exact results, no false alarm)
 * Exit: 0 every case passed, 1 a case failed, 2 bad arguments, 77 no GPU.
 * Build: make gpu (build/gpu/pccl-fault). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "../pccl/mproc.h"

static void *g_alloc(size_t n)
{
    void *p = NULL;
    return cudaMalloc(&p, n ? n : 1) == cudaSuccess ? p : NULL;
}
static void g_release(void *p) { cudaFree(p); }
static void g_put(void *d, const void *h, size_t n) { cudaMemcpy(d, h, n, cudaMemcpyHostToDevice); }
static void g_get(void *h, const void *d, size_t n) { cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost); }
static const mp_mem gpu_mem = {g_alloc, g_release, g_put, g_get};

int main(int argc, char **argv)
{
    setenv("PCCL_BACKEND", "gpu", 1);
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    if (argc > 1 && !strcmp(argv[1], "--child")) { /* a rank: CUDA starts in this fresh process */
        mp_mem_ops = &gpu_mem;
        return mp_child_main(argc, argv);
    }
    int gpus = 0, share = 0, seeds = 10, first = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: pccl-fault [--gpus N] [--share N] [--seeds K] [--first S]\n");
            return 0;
        }
        int *v = !strcmp(argv[i], "--gpus") ? &gpus : !strcmp(argv[i], "--share") ? &share
               : !strcmp(argv[i], "--seeds") ? &seeds : !strcmp(argv[i], "--first") ? &first : NULL;
        if (!v || i + 1 >= argc || (*v = atoi(argv[++i])) < 1) {
            fprintf(stderr, "pccl-fault: bad argument '%s' (--help)\n", argv[i]);
            return 2;
        }
    }
    int have = 0; /* counted in a child: this process stays without CUDA */
    FILE *p = popen("nvidia-smi -L 2>/dev/null | grep -c '^GPU'", "r");
    if (!p || fscanf(p, "%d", &have) != 1) have = 0;
    if (p) pclose(p);
    int n = share ? share : gpus ? gpus : have;
    if (have < 1 || (!share && have < n) || n < 2 || n > 8) {
        printf("SKIP: %d GPUs here; pccl-fault needs --share N (N >= 2 ranks on GPU 0) or >= 2 GPUs\n", have);
        return 77;
    }
    if (share) {
        char dor[64] = "0";
        for (int r = 1; r < n; r++) strcat(dor, ",0");
        setenv("PCCL_DEVICE_OF_RANK", dor, 1);
    }
    /* A GPU rank's init (a CUDA context) takes longer than a host rank's. */
    setenv("PCCL_BOOT_TIMEOUT", "10", 0);
    mp_stats st;
    memset(&st, 0, sizeof st);
    char why[1024];
    int failed = !mp_clean_case(PCCL_BACKEND_GPU, n, 10, 1, 0, 1, why, sizeof why);
    printf("%s without a fault, %d ranks, syncs: %s\n", failed ? "FAILED" : "ok", n, failed ? why : "exact");
    fflush(stdout);
    for (int s = first; s < first + seeds; s++) {
        if (!mp_fault_case((uint64_t)s, PCCL_BACKEND_GPU, n, n, &st, why, sizeof why)) {
            printf("FAILED %s\n", why);
            failed++;
        }
        fflush(stdout);
    }
    mp_print_stats(&st, stdout);
    printf("RESULT %d ranks%s: %d faults injected, %d survived\n", n, share ? " sharing GPU 0" : "", st.injected,
           st.survived);
    return failed ? 1 : 0;
}
