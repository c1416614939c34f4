#!/bin/bash
# Call 3 (2 H200s): the 16 MiB out-of-place slow mode of call 2 (slice on: 65-68 us per all-reduce
# in every round, completions one at a time every ~67 us; off 57.5-58.5, in pairs), through the
# daemon's own counters: pccl-perf --split (PCCL_PROFILE=1: per block completion the flag waits,
# primitives, commits, preemptions; --blocks-csv per block), slice on and off, two rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
P="-g 2 --lib pccl --coll all_reduce -b 16M -e 16M -n 16000 -w 500 -c 0 -T 30 --split"
for i in 1 2; do
  t timeout 30 ./pccl-perf $P --blocks-csv $O/x/blk-on-$i.csv
  t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf $P --blocks-csv $O/x/blk-off-$i.csv
  t timeout 30 env PCCL_SLICE_US=60000000 ./pccl-perf $P --blocks-csv $O/x/blk-checks-$i.csv
done
t timeout 30 ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 16M -e 16M -n 16000 -w 500 -c 0 -T 30 --pccl-depth 2
t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 16M -e 16M -n 16000 -w 500 -c 0 -T 30 --pccl-depth 2
(cd $O && tar cJf x.tar.xz x && rm -rf x)
call_end
