#!/bin/bash
# Call 5 (one H200): avg's division with the rank count as an int, the power-of-two test and 1/n built
# per element (pccl-perf: no divisor kept in registers, and every reduction's primitive as in f7d0611,
# dividing where the job says so), and the same with split.patch (pccl-perf-split: sum, prod, max and
# min in primitives that never divide, as call 4), against f7d0611 (pccl-perf-base), in turn: every
# type and op of all-reduce, 2 ranks sharing the GPU, back to back, 128 MiB (three times), 2 MiB,
# 32 KiB; pccl-ops-test; correctness of pccl-perf on 2, 3 and 4 ranks.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
step ops 0 60 ./pccl-ops-test
A="--share-gpu -g 2 --lib pccl --coll all_reduce -d all -o all -c 0 --timing b2b"
for r in 1 2 3; do
  for b in pccl-perf pccl-perf-split pccl-perf-base; do t timeout 120 ./$b $A -b 128M -e 128M -n 20 -w 3; done
done
for s in 2M 32K; do
  for b in pccl-perf pccl-perf-split pccl-perf-base; do t timeout 120 ./$b $A -b $s -e $s -n 300 -w 30; done
done
C="--lib pccl --coll all -b 8 -e 8M -f 8 -n 2 -w 1 -c 1 -o all -d all --timing all -T 60"
step all2 0 120 ./pccl-perf --share-gpu -g 2 $C
step all3 0 120 ./pccl-perf --share-gpu -g 3 $C
step all4 0 120 ./pccl-perf --share-gpu -g 4 $C
call_end
