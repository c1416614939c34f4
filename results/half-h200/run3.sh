#!/bin/bash
# Call 3 (one H200): avg's division as a shift or a product with 1/n where the rank count is a power of
# two (lib/gpu/ops.cuh), against f7d0611 (pccl-perf-base: CUDA's half conversions, avg dividing).
# pccl-ops-test (the conversions and the division against plain twins, every value) and a mutant of
# it that must fail (ops.cuh without the bias of negative integers, with the float product off by an
# ulp); every type and op of all-reduce, 2 ranks sharing the GPU, back to back, both builds in turn
# at 128 MiB (twice), 2 MiB and 32 KiB; correctness with avg on 1, 2, 3 (n not a power of two) and
# 4 ranks, ring and direct.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
step ops 0 120 ./pccl-ops-test
step mutant 1 120 ./pccl-ops-test-mutant
A="--share-gpu -g 2 --lib pccl --coll all_reduce -d all -o all -c 0 --timing b2b"
for r in 1 2; do
  t timeout 120 ./pccl-perf $A -b 128M -e 128M -n 20 -w 3
  t timeout 120 ./pccl-perf-base $A -b 128M -e 128M -n 20 -w 3
done
t timeout 120 ./pccl-perf $A -b 2M -e 2M -n 200 -w 20
t timeout 120 ./pccl-perf-base $A -b 2M -e 2M -n 200 -w 20
t timeout 120 ./pccl-perf $A -b 32K -e 32K -n 500 -w 50
t timeout 120 ./pccl-perf-base $A -b 32K -e 32K -n 500 -w 50
C="--lib pccl --coll all -b 8 -e 8M -f 8 -n 2 -w 1 -c 1 -o all -d all --timing all -T 60"
step all2 0 120 ./pccl-perf --share-gpu -g 2 $C
step all3 0 120 ./pccl-perf --share-gpu -g 3 $C
step all4 0 120 ./pccl-perf --share-gpu -g 4 $C
step direct4 0 60 env PCCL_ALGO=direct ./pccl-perf --share-gpu -g 4 --lib pccl --coll all_reduce -b 8 -e 64K -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all -T 60
step gpu-test 0 120 ./pccl-gpu-test --gpus 1 --quick
call_end
