/* The GPU count of a process that forks its ranks: asked in a child, since
 * the parent must not initialize CUDA before fork (the children could not
 * use it). */
#ifndef DL_GPU_DEVCOUNT_H
#define DL_GPU_DEVCOUNT_H

#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>

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

#endif
