#!/bin/bash
# Call 2 (one H200): pccl-share after the review's change (cudaFree's buffers allocated once where
# missing, the idle run's own kept for the streamed run): --lib pccl and both libraries.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
t timeout 90 ./pccl-share --lib pccl --reps 8
t timeout 90 ./pccl-share --reps 8
call_end
