#!/bin/bash
# Call 4 (2 H200s): a pass ends after a collective on several blocks completes (scheduler.h,
# pass_end): its completion is posted at once and block 0 looks at the host's SQ before the
# queued ones, where before the pass ran through every queued invocation first (16 MiB: a
# completion held and new invocations not handed on for up to 3 x 55 us). Main (base) against
# this build (new), slice on and off, all-reduce back to back 8 B-128 MiB, three interleaved rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 100000 -w 50 --iter-bytes 64G -c 0 -T 20"
for i in 1 2 3; do
  for b in base new; do
    t timeout 40 ./pccl-perf-$b $P
    t timeout 40 env PCCL_SLICE_US=0 ./pccl-perf-$b $P
  done
done
t timeout 60 ./pccl-perf-new -g 2 --lib pccl --coll all -b 8 -e 64M -f 8 -n 3 -w 1 -c 1 --timing all
call_end
