#!/bin/bash
# Call 7 (one H200): the build committed (call 6's split2, comments apart). pccl-ops-test; 32 KiB (the
# LL protocol) against f7d0611 in four interleaved rounds, every type and op, 2 ranks sharing the GPU;
# the one-GPU part of scripts/test-gpu (staged with ALL=1).
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/hf build/gpu # the staged binaries, where test-gpu looks
cd .dev/hf
. ./call.sh
call_begin d
step ops 0 60 ./pccl-ops-test
A="--share-gpu -g 2 --lib pccl --coll all_reduce -d all -o all -c 0 --timing b2b -b 32K -e 32K -n 500 -w 50"
for r in 1 2 3 4; do
  t timeout 120 ./pccl-perf $A
  t timeout 120 ./pccl-perf-base $A
done
(cd ../.. && step test-gpu 0 400 scripts/test-gpu --report "$O/pccl-gpu.md")
call_end
