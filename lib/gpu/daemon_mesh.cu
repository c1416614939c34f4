/* The daemon with the mesh's steps (scheduler.h, PCCL_MESH_ON): daemon.cu
 * compiled again, for communicators that map every peer (pccl_gpu.mesh). */
#define PCCL_MESH_ON 1
#define PCCL_DAEMON pccl_daemon_mesh
#define PCCL_GPU_PRELOAD pccl_gpu_preload_one_mesh
#define PCCL_GPU_LAUNCH pccl_gpu_launch_one_mesh
#include "daemon.cu"
