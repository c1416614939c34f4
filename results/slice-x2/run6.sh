#!/bin/bash
# Call 6 (2 H200s): where the 16 MiB slow mode's time goes, hop by hop (PCCL_TRACE_LAT=1: SQ store
# to block 0's fetch, the daemon's fetch to completion, completion to the host's sight), slice on
# and off, main (base) and call 4's build (new); the slow mode against the slice's length (16 ms)
# and each rank's own slice (PCCL_SLICE_ALIGN=0).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -b 16M -e 16M -n 16000 -w 500 -c 0 -T 30"
for b in base new; do
  t timeout 30 env PCCL_TRACE_LAT=1 ./pccl-perf-$b $P
  t timeout 30 env PCCL_TRACE_LAT=1 PCCL_SLICE_US=0 ./pccl-perf-$b $P
done
for v in PCCL_SLICE_US=16000 PCCL_SLICE_ALIGN=0 PCCL_SLICE_US=1000; do
  t timeout 30 env $v ./pccl-perf-base $P
done
call_end
