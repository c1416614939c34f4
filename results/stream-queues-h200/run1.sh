#!/bin/bash
# Call 1 (one H200): does the hardware-queue hazard of stream waits still hang with today's build?
# (lib/README.md, "Not yet": on one H100, an older build, 6 of 6 runs hung with the default 8
# queues, 2 of 2 completed with CUDA_DEVICE_MAX_CONNECTIONS=32, results/stream-gpu/run3/.)
# Two ranks as processes sharing the GPU, each of the 8 all-reduces on a stream of its own, random
# orders per rank (pccl-stream --procs --ranks 2 --iters 10): default queues three times, 32 twice,
# 1 once, and --plain (pcclRun, no streams) once.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
S="./pccl-stream --procs --ranks 2 --iters 10 --timeout 20"
for r in 1 2 3; do t timeout 60 env PCCL_DEVICE_OF_RANK=0,0 $S; done
for r in 1 2; do t timeout 60 env PCCL_DEVICE_OF_RANK=0,0 CUDA_DEVICE_MAX_CONNECTIONS=32 $S; done
t timeout 60 env PCCL_DEVICE_OF_RANK=0,0 CUDA_DEVICE_MAX_CONNECTIONS=1 $S
t timeout 60 env PCCL_DEVICE_OF_RANK=0,0 $S --plain
call_end
