#!/bin/bash
# Call 1 (one H200): the daemon's stack (1488 B a thread, nvcc -Xptxas -v) is above CUDA's default
# stack limit (1 KiB): is the local memory resized at every launch, and is that the relaunch's slow
# launch call? PCCL_TEST_STACK=1 only prints the two; =2 raises the limit to the daemon's need at init
# (cudaDeviceSetLimit). pccl-perf's relaunch split at 8 B and 32 KiB back to back, three rounds each
# way in turn; pccl-slice-ab's slice cost at 8 B and 32 KiB each way; pccl-share --reps 8 each way.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/st
. ./call.sh
call_begin d
for r in 1 2 3; do
  for v in 1 2; do
    for s in 8 32K; do
      t timeout 60 env PCCL_TEST_STACK=$v ./pccl-perf -g 1 --lib pccl --coll all_reduce -b $s -e $s -n 60000 -w 500 -c 0 --timing b2b
    done
  done
done
for v in 2 1; do
  for s in 8 32K; do
    t timeout 90 env PCCL_TEST_STACK=$v ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4
  done
done
for v in 1 2; do t timeout 100 env PCCL_TEST_STACK=$v ./pccl-share --reps 8; done
call_end
