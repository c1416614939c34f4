#!/bin/bash
# Call 4: what having a slice costs at 8 B back to back without its relaunches: slice off, 60 s (the
# checks alone) and 4 ms, ten rounds in turn, the order rotated each round.  pccl-perf of main 2b525bf.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
set -- 0 60000000 4000
for r in $(seq 1 10); do
  for us in "$@"; do
    t timeout 30 env PCCL_SLICE_US=$us ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 80000 -w 500 -c 0 --timing b2b -T 30
  done
  set -- "${@:2}" "$1"
done
call_end
