#!/bin/bash
# Call 1 (one H200): the daemon's half and bfloat16 conversions by CUDA's intrinsics (lib/gpu/half.cuh)
# against core.h's plain C (pccl-perf-base: main 55d5fb7). The conversions on every value
# (pccl-conv-test); reductions by 2 ranks sharing GPU 0 (one rank reduces nothing), all-reduce half,
# bfloat16 and float, both builds in turn, twice; every collective in half; then correctness: every
# collective, op and type on 2 ranks and the direct algorithm on 4 (as scripts/test-gpu runs them),
# the one-rank suite.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
step conv 0 60 ./pccl-conv-test
P="--share-gpu -g 2 --lib pccl -b 32K -e 512M -f 8 -n 50 -w 5 -c 0 --timing b2b"
for r in 1 2; do
  for d in half bfloat16 float; do
    for b in base new; do
      bin=./pccl-perf; [ $b = base ] && bin=./pccl-perf-base
      t timeout 60 $bin $P --coll all_reduce -d $d
    done
  done
done
for b in base new; do
  bin=./pccl-perf; [ $b = base ] && bin=./pccl-perf-base
  t timeout 90 $bin $P --coll all -d half
done
step all2 0 200 ./pccl-perf --share-gpu -g 2 --lib pccl --coll all -b 8 -e 8M -f 8 -n 2 -w 1 -c 1 -o all -d all --timing all -T 60
step direct4 0 120 env PCCL_ALGO=direct ./pccl-perf --share-gpu -g 4 --lib pccl --coll all_reduce -b 8 -e 64K -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all -T 60
step gpu-test 0 150 ./pccl-gpu-test --gpus 1 --quick
call_end
