#!/bin/bash
# Call 5: the slice's length against its cost at 8 B and 32 KiB back to back (out of place): off, 4, 5
# and 6 ms, ten rounds, the order rotated each round.  pccl-perf of main 2b525bf.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
set -- 0 4000 5000 6000
for r in $(seq 1 10); do
  for s in 8 32K; do
    for us in "$@"; do
      t timeout 30 env PCCL_SLICE_US=$us ./pccl-perf -g 1 --lib pccl --coll all_reduce -b $s -e $s -n 80000 -w 500 -c 0 --timing b2b -T 30
    done
  done
  set -- "${@:2}" "$1"
done
call_end
