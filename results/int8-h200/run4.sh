#!/bin/bash
# Call 4 (one H200): call 1 had bfloat16 and int64 avg 1.8-2% slower with the change (one order,
# new first): bfloat16 and float avg and sum, int64 avg, 128 MiB all-reduce, 2 ranks sharing the
# GPU, back to back, new and base in the order new base base new, four times over.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
A="--share-gpu -g 2 --lib pccl --coll all_reduce -c 0 --timing b2b -b 128M -e 128M -n 20 -w 3"
for r in 1 2 3 4; do
  for b in pccl-perf pccl-perf-base pccl-perf-base pccl-perf; do
    for d in bfloat16 float; do for o in sum avg; do t timeout 60 ./$b $A -d $d -o $o; done; done
    t timeout 60 ./$b $A -d int64 -o avg
  done
done
call_end
