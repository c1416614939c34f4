/* The daemon kernel: lib/scheduler.h's loop, run by every block of the grid
 * (one block per channel, each with its own task queue in shared memory and
 * its own connectors), with thread 0 deciding and the warps after the first
 * moving data. */
#include <cuda_runtime.h>

/* This file's daemon runs no mesh step; daemon_mesh.cu compiles it again
 * with them (scheduler.h, PCCL_MESH_ON), as pccl_daemon_mesh, with its own
 * preload and launch, which pccl_gpu_preload and pccl_gpu_launch call. */
#ifndef PCCL_MESH_ON
#define PCCL_MESH_ON 0
#define PCCL_DAEMON pccl_daemon
#define PCCL_GPU_PRELOAD pccl_gpu_preload_ring
#define PCCL_GPU_LAUNCH pccl_gpu_launch_ring
#endif

/* Host-device, so the scheduler's host-device functions may read it; only
 * the device side ever runs. */
__host__ __device__ __forceinline__ unsigned long long pccl_globaltimer(void)
{
#ifdef __CUDA_ARCH__
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#else
    return 0;
#endif
}

__host__ __device__ __forceinline__ unsigned pccl_smid(void)
{
#ifdef __CUDA_ARCH__
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
#else
    return 0;
#endif
}

/* The first warp schedules (its thread 0 leads), the others move data:
 * the leader's fence and posts of one step overlap the next step's data. */
#define PCCL_LEADER (threadIdx.x == 0)
#define PCCL_MOVER (threadIdx.x >= PCCL_CTRL_THREADS)
#define PCCL_BARRIER() __syncthreads()
/* The first warp schedules: its thread 0 decides, and all of it hands
 * invocations on (scheduler.h, pccl_hand_on_lanes). */
#define PCCL_CTRL (threadIdx.x < PCCL_CTRL_THREADS)
#define PCCL_CTRL_LANE ((int)threadIdx.x)
#define PCCL_CTRL_LANES PCCL_CTRL_THREADS
#define PCCL_CTRL_SYNC() __syncwarp()
#define PCCL_NOW_NS() pccl_globaltimer()
#define PCCL_POLL_PAUSE(i) ((void)0)
/* An idle block (nothing queued, nothing new) looks again after a pause:
 * 128 ns doubling to 1 us.  Only block 0 reads pinned memory then (its SQ),
 * and it does not pause: each look is a PCIe round trip already, and a new
 * invocation waits for the next one (a sleep of 1 us asked for is often
 * more).  The others read theirs in device memory (core.h, "SQ"). */
#define PCCL_IDLE_PAUSE(i) (blockIdx.x == 0 ? (void)0 : __nanosleep((i) < 3 ? 128u << (i) : 1024u))
#define PCCL_EXEC(job) pccl_gpu_exec(job)
#define PCCL_SM_ID() ((int)pccl_smid())
#include "prims.cuh"

/* 512 threads at most (PCCL_THREADS), in 64 registers each: a daemon block
 * then holds at most half an SM's register file (ncu: registers limit 2
 * blocks per SM, results/perf-split/ncu.txt), so a compute kernel's block
 * still fits beside it; unbounded, 512 threads took 119 registers, nearly
 * all of it.  The primitives spill a few words (nvcc -Xptxas -v) at no
 * measured cost (results/perf-tune-4gpu: lb2_512 against d512).  512 threads
 * keep twice the bytes of 256 in flight: on 4 H200s reduce-scatter at
 * 32 MiB went from 0.91 to 1.01 of NCCL's busbw, reduce at 64 MiB from 0.91
 * to 0.94 (the same folder, d256 against lb2_512). */
__global__ void __launch_bounds__(512, 2) PCCL_DAEMON(const __grid_constant__ pccl_gpu G)
{
    extern __shared__ int32_t pccl_tq[];
    __shared__ pccl_blk S;
    if (threadIdx.x == 0) {
        memset(&S, 0, sizeof S);
        S.tq = pccl_tq;
    }
    __syncthreads();
    const pccl_gpu *g = &G;
    PCCL_DAEMON_BODY(&S, g, (int)blockIdx.x);
}

/* Loads the daemon's module now (CUDA loads a kernel's module lazily, at
 * its first launch, by default): that first launch call took milliseconds,
 * the offset of the GPU's clock taken from it was milliseconds long, and
 * with every later relaunch queued ahead none corrected it, so slices
 * ended off the grid, each rank at its own moment (results/launcher-h200/,
 * call 3).  And sizes the context's local memory for the daemon's stack
 * frame (1480 bytes a thread, past the 1 KiB default): the first launch
 * grew it otherwise, a call of 1.7-1.8 ms on 2 H200s with the module
 * loaded (results/x4-h200/, call 23).  Raised only, never lowered; CUDA
 * keeps the growth a launch makes anyway. */
static cudaError_t PCCL_GPU_PRELOAD(void)
{
    cudaFuncAttributes a;
    size_t stack = 0;
    cudaError_t e = cudaFuncGetAttributes(&a, PCCL_DAEMON);
    if (e == cudaSuccess) e = cudaDeviceGetLimit(&stack, cudaLimitStackSize);
    if (e == cudaSuccess && a.localSizeBytes > stack) e = cudaDeviceSetLimit(cudaLimitStackSize, a.localSizeBytes);
    return e;
}

static cudaError_t PCCL_GPU_LAUNCH(const pccl_gpu *G, cudaStream_t stream)
{
    PCCL_DAEMON<<<G->k.blocks, G->k.threads, sizeof(int32_t) * (size_t)G->k.depth, stream>>>(*G);
    return cudaGetLastError();
}

#if PCCL_MESH_ON
extern "C" cudaError_t pccl_gpu_preload_mesh(void) { return PCCL_GPU_PRELOAD(); }
extern "C" cudaError_t pccl_gpu_launch_mesh(const pccl_gpu *G, cudaStream_t s) { return PCCL_GPU_LAUNCH(G, s); }
#else
extern "C" cudaError_t pccl_gpu_preload_mesh(void);
extern "C" cudaError_t pccl_gpu_launch_mesh(const pccl_gpu *G, cudaStream_t s);
/* The daemon's module, loaded at once (see above), and the mesh's too for
 * a communicator that maps it: loading it sizes every kernel's stack to its
 * larger frame (2136 bytes a thread against 1480), local memory the others
 * would not use */
extern "C" cudaError_t pccl_gpu_preload(int mesh)
{
    cudaError_t e = pccl_gpu_preload_ring();
    return e == cudaSuccess && mesh ? pccl_gpu_preload_mesh() : e;
}
extern "C" cudaError_t pccl_gpu_launch(const pccl_gpu *G, cudaStream_t stream)
{
    return G->mesh ? pccl_gpu_launch_mesh(G, stream) : pccl_gpu_launch_ring(G, stream);
}
#endif
