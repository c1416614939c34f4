#!/bin/bash
# Call 1 (one H200): int8 and uint8 sum, max and min four to a word (ops.cuh's pccl_simd4) against
# 1937884 (pccl-perf-base, one element at a time in 32 bits): pccl-ops-test and its mutant
# (int8 max by the unsigned intrinsic: must fail); all-reduce, every type and op, 2 ranks sharing
# the GPU, back to back, 128 MiB five times and 2 MiB twice, new and base in turn; reduce-scatter and
# reduce of int8 and uint8 at 128 MiB three times; correctness on 2, 3 and 4 ranks sharing the GPU,
# every collective, op and type; one rank's suite; compute-sanitizer memcheck on int8.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
step ops 0 60 ./pccl-ops-test
step ops-mutant 1 60 ./pccl-ops-test-mutant
A="--share-gpu -g 2 --lib pccl -o all -c 0 --timing b2b"
for r in 1 2 3 4 5; do
  for b in pccl-perf pccl-perf-base; do t timeout 120 ./$b $A --coll all_reduce -d all -b 128M -e 128M -n 20 -w 3; done
done
for r in 1 2; do
  for b in pccl-perf pccl-perf-base; do t timeout 120 ./$b $A --coll all_reduce -d all -b 2M -e 2M -n 300 -w 30; done
done
for r in 1 2 3; do
  for d in int8 uint8; do
    for b in pccl-perf pccl-perf-base; do
      t timeout 120 ./$b $A --coll reduce_scatter,reduce -d $d -b 128M -e 128M -n 20 -w 3
    done
  done
done
C="--lib pccl --coll all -b 8 -e 8M -f 8 -n 2 -w 1 -c 1 -o all -d all --timing all -T 60"
for g in 2 3 4; do step all$g 0 100 ./pccl-perf --share-gpu -g $g $C; done
step gpu-test 0 100 ./pccl-gpu-test --gpus 1 --quick
step memcheck 0 150 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf --share-gpu -g 2 --lib pccl \
  --coll all -d int8 -o all -b 8 -e 8M -f 8 -n 2 -w 1 -c 1 --timing b2b -T 100
call_end
