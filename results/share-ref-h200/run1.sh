#!/bin/bash
# Call 1 (one H200): pccl-share --lib pccl now times every call with pccl idle first and judges the
# streamed call by that reference (its slowest + 2 slices + --grace-ms), as NCCL's column does with
# both libraries. With the JIT cache on (default) and off (CUDA_CACHE_DISABLE=1: every
# cuModuleLoadData compiles, 9-11 ms, which failed the bound without a reference); both libraries
# once (unchanged). Then the gap (PCCL_SLICE_GAP_US 0, 10, 20; two rounds, --reps 32): the
# cuModuleLoadData row's slowest, which on one H100 missed its turn at 0 and 10 us (7.1, 7.8 ms).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
t timeout 90 ./pccl-share --lib pccl --reps 16
t timeout 90 env CUDA_CACHE_DISABLE=1 ./pccl-share --lib pccl --reps 8
t timeout 90 ./pccl-share --reps 16
for r in 1 2; do
  for g in 0 10 20; do
    t timeout 90 env PCCL_SLICE_GAP_US=$g ./pccl-share --lib pccl --reps 32
  done
done
call_end
