/* libs.h: the libraries dlreplay replays traces on (replay.h's dr_lib). */
#ifndef DR_LIBS_H
#define DR_LIBS_H

#include "replay.h"

extern const dr_lib dr_lib_host; /* pccl's host backend: threads as GPUs (lib_pccl.c) */
extern const dr_lib dr_lib_pccl; /* pccl on GPUs (lib_pccl.c, CUDA builds) */
extern const dr_lib dr_lib_nccl; /* NCCL (lib_nccl.c, CUDA builds) */

#ifdef PCCL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "../sim/util.h"

/* In a function with `char *err, size_t errlen`: a failed CUDA call makes it
 * return -1 with the call and CUDA's message in err. */
#define DR_CUDA(call)                                                                         \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess)                                                                \
            return dl_fail(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));             \
    } while (0)
#endif

#endif
