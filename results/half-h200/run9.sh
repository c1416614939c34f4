#!/bin/bash
# Call 9 (one H200): call 8's 2-rank sanitizer runs reached 32 KiB (the LL protocol); here 2-8 MiB,
# where the Simple protocol's vector primitives run (avg's last step in the dividing one): memcheck
# and racecheck (8 blocks) of every type with avg, memcheck with sum.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
BUDGET=560
CS="compute-sanitizer --error-exitcode 9"
P="--share-gpu -g 2 --lib pccl -d all -b 2M -e 8M -f 4 -n 1 -w 0 -c 1 --timing b2b -T 0"
step memcheck-2-avg 0 200 $CS --tool memcheck ./pccl-perf $P --coll all_reduce,reduce_scatter,reduce -o avg
step memcheck-2-sum 0 120 $CS --tool memcheck ./pccl-perf $P --coll all_reduce -o sum
step racecheck-2-avg 0 200 env PCCL_BLOCKS=8 $CS --tool racecheck ./pccl-perf $P --coll all_reduce -o avg
call_end
