#!/bin/bash
# Call 4 (one H200): the stream steps of scripts/test-gpu with the check skipping one rank: one rank
# (must not warn), two processes sharing GPU 0 with 8 streams on 8 queues (must warn on both, then
# hang), with 32 queues and --lazy (neither).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
t timeout 60 ./pccl-stream --ranks 1 --iters 30
t timeout 60 ./pccl-stream --ranks 1 --iters 30 --sync
t timeout 60 env PCCL_DEVICE_OF_RANK=0,0 ./pccl-stream --procs --ranks 2 --iters 10 --timeout 10
t timeout 60 env PCCL_DEVICE_OF_RANK=0,0 CUDA_DEVICE_MAX_CONNECTIONS=32 ./pccl-stream --procs --ranks 2 --iters 10 --timeout 30
t timeout 60 env PCCL_DEVICE_OF_RANK=0,0 ./pccl-stream --procs --ranks 2 --iters 10 --lazy --timeout 30
call_end
