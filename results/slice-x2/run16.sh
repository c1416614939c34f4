#!/bin/bash
# Outcome: this build handed every listed invocation on again after each step; every pccl run hung to
# its 30 s timeout (call16/). Not kept; the fixed build is call 17's.
# Call 16 (2 H200s): block 0 looks ahead (lib/scheduler.h, pccl_look_ahead: one look at the host's SQ
# per pick of a collective on several blocks, while the movers move its first step; such a
# collective's completion posted at once). pccl-perf is this checkout's build, pccl-perf-base main
# c0adaaf's. 16 MiB with the slice and without, three interleaved rounds; 8-64 MiB one round; sweeps
# 8 B-128 MiB both timings, two rounds; then a data check of every size.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -n 16000 -w 500 -c 0 -T 30"
for i in 1 2 3; do
  for b in pccl-perf pccl-perf-base; do
    t timeout 30 ./$b $P -b 16M -e 16M
    t timeout 30 env PCCL_SLICE_US=0 ./$b $P -b 16M -e 16M
  done
done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
for s in 8M 12M 24M 32M 64M; do
  for b in pccl-perf pccl-perf-base; do
    t timeout 30 ./$b $P -b $s -e $s
    t timeout 30 env PCCL_SLICE_US=0 ./$b $P -b $s -e $s
  done
done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
W="-g 2 --lib pccl --coll all_reduce -b 8 -e 128M -f 4 -n 2000 -w 100 -c 0 --timing all -T 60"
for i in 1 2; do
  for b in pccl-perf pccl-perf-base; do
    t timeout 60 ./$b $W
    t timeout 60 env PCCL_SLICE_US=0 ./$b $W
  done
done
echo "== (3) done at $((SECONDS - T0)) s" >> $S
BUDGET=560 step check 0 120 ./pccl-perf -g 2 --lib pccl --coll all -b 8 -e 64M -f 4 -n 20 -w 2 -c 20 --timing all
call_end
