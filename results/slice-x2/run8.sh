#!/bin/bash
# Call 8 (2 H200s): main's daemon with pccl-perf's new per-size line (preemptions per block
# completion, launches): is the 16 MiB slow mode (slice on, out of place) blocks hopping between
# the invocations queued? 16 MiB, 2 MiB, 128 MiB and 8 B all-reduce back to back, slice on and off.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
for i in 1 2; do
  for s in 16M 2M 128M 8; do
    n=16000; case $s in 2M) n=40000;; 128M) n=1500;; 8) n=100000;; esac
    P="-g 2 --lib pccl --coll all_reduce -b $s -e $s -n $n -w 200 -c 0 -T 30"
    t timeout 30 ./pccl-perf $P
    t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf $P
  done
done
call_end
