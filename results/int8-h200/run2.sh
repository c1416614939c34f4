#!/bin/bash
# Call 2 (one H200): whether call 1's +0.6% for the wider types at 128 MiB is the change or the order
# (call 1 ran the new build first in every pair): all-reduce sum of every type, 2 ranks sharing the
# GPU, back to back, 128 MiB, builds in the order new base base new, four times over; then int8 and
# uint8, every op, the same way twice.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
A="--share-gpu -g 2 --lib pccl --coll all_reduce -c 0 --timing b2b -b 128M -e 128M -n 20 -w 3"
for r in 1 2 3 4; do
  for b in pccl-perf pccl-perf-base pccl-perf-base pccl-perf; do t timeout 120 ./$b $A -d all -o sum; done
done
for r in 1 2; do
  for b in pccl-perf-base pccl-perf pccl-perf pccl-perf-base; do
    for d in int8 uint8; do t timeout 120 ./$b $A -d $d -o all; done
  done
done
call_end
