#!/bin/bash
# Call 6 (one H200): call 5 again with the driver's JIT cache on but empty for each process
# (CUDA_CACHE_PATH a fresh folder), as on a machine that never ran the program: the first
# cuModuleLoadData compiles the PTX and fills the cache, the later ones read it.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
for b in pccl-share-old pccl-share; do
  t timeout 60 env CUDA_CACHE_PATH=$(mktemp -d) ./$b --lib pccl --reps 16
done
for b in pccl-share-old pccl-share; do
  t timeout 60 env CUDA_CACHE_PATH=$(mktemp -d) ./$b --reps 16
done
call_end
