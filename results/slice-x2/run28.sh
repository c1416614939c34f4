#!/bin/bash
# Call 28 (2 H200s): the 8 MiB modes (calls 25, 27: out of place the slice-off run one fast launch,
# relaunched launches averaging a fast and a slow mode). Does a deeper queue hide them? All-reduce
# back to back at 8 MiB, slice off and on, pccl-perf's default 4 invocations in flight and 8
# (--pccl-depth), two interleaved rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30 -b 8M -e 8M -n 10000"
for i in 1 2; do
  for k in 4 8; do
    for us in 0 4000; do
      t timeout 20 env PCCL_SLICE_US=$us ./pccl-perf $P --pccl-depth $k
    done
  done
done
call_end
