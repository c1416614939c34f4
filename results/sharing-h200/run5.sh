#!/bin/bash
# Call 5 (one H200): pccl-share's one-GPU table now JIT-compiles its PTX module once before timing
# (x_prewarm, as the cross-rank tests did). With the driver's JIT cache off (CUDA_CACHE_DISABLE=1,
# so every process compiles anew, as on a fresh machine): the build before (pccl-share-old) with
# --lib pccl alone, whose first cuModuleLoadData took the compile; this build the same; and both
# libraries with this build (NCCL's row without the compile).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
t timeout 60 env CUDA_CACHE_DISABLE=1 ./pccl-share-old --lib pccl --reps 4
t timeout 60 env CUDA_CACHE_DISABLE=1 ./pccl-share --lib pccl --reps 4
t timeout 60 env CUDA_CACHE_DISABLE=1 ./pccl-share --reps 4
t timeout 60 env CUDA_CACHE_DISABLE=1 ./pccl-share-old --reps 4
call_end
