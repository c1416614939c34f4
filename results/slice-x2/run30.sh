#!/bin/bash
# Call 30 (2 H200s): calls 25-29's 8 MiB pattern (out of place 2-5% faster than in place in a long
# launch, a pace relaunched launches do not reach) with one invocation in flight (--pccl-depth 1):
# if it comes from how the invocations in flight overlap, it goes with them. All-reduce back to back
# at 8 MiB, slice off and on, depth 1 and 4, two interleaved rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30 -b 8M -e 8M -n 10000"
for i in 1 2; do
  for k in 1 4; do
    for us in 0 4000; do
      t timeout 20 env PCCL_SLICE_US=$us ./pccl-perf $P --pccl-depth $k
    done
  done
done
call_end
