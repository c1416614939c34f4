// What pcclRun's buffer check costs (lib/gpu/backend.cu, g_check_buf): cuPointerGetAttributes with its
// five attributes, timed over 200,000 calls on one 1 MiB allocation, three times; against
// an empty loop. Built by stage.sh's caller: nvcc -O2 -arch=sm_90 -o ptrattr ptrattr.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void)
{
    void *p;
    if (cudaMalloc(&p, 1 << 20) != cudaSuccess) return 1;
    CUpointer_attribute at[5] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                 CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    unsigned long long type = 0, managed = 0;
    int dev = -1;
    CUdeviceptr base = 0;
    size_t size = 0;
    void *out[5] = {&type, &managed, &dev, &base, &size};
    const int n = 200000;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        for (int i = 0; i < n; i++)
            if (cuPointerGetAttributes(5, at, out, (CUdeviceptr)p + (i & 1023)) != CUDA_SUCCESS) return 2;
        double t1 = now();
        printf("cuPointerGetAttributes (5 attributes): %.3f us a call (type %llu, device %d, size %zu)\n",
               (t1 - t0) / n * 1e6, type, dev, size);
    }
    return 0;
}
