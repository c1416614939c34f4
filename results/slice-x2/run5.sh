#!/bin/bash
# Call 5 (2 H200s): which knob the 16 MiB slow mode follows (slice on: most launches ~69 us per
# all-reduce out of place, the one long launch of the slice off ~57): groups dealt instead of
# claimed (PCCL_DYNAMIC=0), one invocation in flight (--pccl-depth 1: no overlap of invocations),
# 32 blocks; main's build (base) and call 4's (new), slice on and off.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -b 16M -e 16M -n 16000 -w 500 -c 0 -T 30"
for i in 1 2; do
  for v in PCCL_DYNAMIC=0 PCCL_BLOCKS=32 PCCL_X=depth1; do
    a=; [ $v = PCCL_X=depth1 ] && a="--pccl-depth 1"
    t timeout 30 env $v ./pccl-perf-base $P $a
    t timeout 30 env $v PCCL_SLICE_US=0 ./pccl-perf-base $P $a
  done
  t timeout 30 ./pccl-perf-new $P
  t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf-new $P
done
call_end
