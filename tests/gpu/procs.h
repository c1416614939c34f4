/* What the GPU programs that fork one process per rank share: the GPU
 * count, and the wait for the ranks with a deadline. */
#ifndef DL_GPU_PROCS_H
#define DL_GPU_PROCS_H

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

/* Asked in a child, since the parent must not initialize CUDA before fork
 * (the children could not use it). */
static int dl_gpu_count_forked(void)
{
    int fds[2], have = 0;
    if (pipe(fds)) return 0;
    pid_t p = fork();
    if (p == 0) {
        int k = 0;
        if (cudaGetDeviceCount(&k) != cudaSuccess) k = 0;
        if (write(fds[1], &k, sizeof k) != sizeof k) _exit(1);
        _exit(0);
    }
    if (p < 0 || read(fds[0], &have, sizeof have) != sizeof have) have = 0;
    close(fds[0]);
    close(fds[1]);
    if (p > 0) waitpid(p, NULL, 0);
    return have;
}

/* Waits for the n ranks kids[]: the worst exit status (a signal counts as
 * 1), or 3 (a hang) when they have not all ended limit_s seconds after the
 * call, once every rank is killed. */
static int dl_reap_ranks(const pid_t *kids, int n, double limit_s)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int worst = 0;
    for (int left = n; left > 0;) {
        int st;
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w > 0) {
            left--;
            int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
            if (rc > worst) worst = rc;
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 > limit_s) {
            for (int r = 0; r < n; r++) kill(kids[r], SIGKILL);
            while (waitpid(-1, NULL, 0) > 0) ;
            return 3;
        }
        usleep(10000);
    }
    return worst;
}

#endif
