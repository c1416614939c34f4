#!/bin/bash
# Call 25 (2 H200s): the racecheck fix (../racecheck-h200/: the scheduling warp meets after every read
# of the hand-on count) under scripts/test-gpu --sanitize on 2 GPUs (its racecheck of the paper's
# deadlock test on 2 GPUs reported call 24's hazards); then the slice's cost against its length,
# two interleaved rounds: all-reduce back to back at 8 B (-n 50000) and 8 MiB (-n 10000) with
# PCCL_SLICE_US=0 (off), 4000 (the default), 6000, and at 8 B the default without the gap
# (PCCL_SLICE_GAP_US=0); broadcast at 512 MiB round trip (-n 40), off and 4000.
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x4 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x4
. ./call.sh
call_begin d
cd ../..
timeout 15 .dev/x4/pccl-perf -g 2 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
BUDGET=300 step test-gpu 0 270 env ITERS=100 scripts/test-gpu --sanitize --report $O/pccl-gpu.md
cd .dev/x4
P="-g 2 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30"
for i in 1 2; do
  for s in "8 -n 50000" "8M -n 10000"; do
    for us in 0 4000 6000; do
      t timeout 20 env PCCL_SLICE_US=$us ./pccl-perf $P -b ${s%% *} -e $s
    done
  done
  t timeout 20 env PCCL_SLICE_GAP_US=0 ./pccl-perf $P -b 8 -e 8 -n 50000
  for us in 0 4000; do
    t timeout 30 env PCCL_SLICE_US=$us ./pccl-perf -g 2 --lib pccl --coll broadcast -b 512M -e 512M -n 40 -w 5 -c 0 --timing rt -T 30
  done
done
call_end
