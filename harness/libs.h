/* libs.h: the libraries dlreplay replays traces on (replay.h's dr_lib). */
#ifndef DR_LIBS_H
#define DR_LIBS_H

#include "replay.h"

extern const dr_lib dr_lib_host; /* pccl's host backend: threads as GPUs (lib_pccl.c) */
extern const dr_lib dr_lib_pccl; /* pccl on GPUs (lib_pccl.c, CUDA builds) */
extern const dr_lib dr_lib_nccl; /* NCCL (lib_nccl.c, CUDA builds) */

#endif
