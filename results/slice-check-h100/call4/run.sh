#!/bin/bash
# Issue 22: with the watch on, the other blocks look at block 0's decision every 16 us (64 in call 2).
# The watch's table twice (the drain of a cut asked), gpu-test once, then single-size pairs of runs:
# off (PCCL_SLICE_US=0), the watch (PCCL_WATCH_US=100), the slice (defaults), 6 rounds interleaved.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/watch3; cd $d
O=$OUT/watch3; mkdir -p $O; C=$O/cost.txt; L=$O/log.txt
nvidia-smi -L > $O/summary.txt
T0=$SECONDS
t() { local f=$1; shift; local t0=$SECONDS; echo "== $*" >> $f; "$@" >> $f 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $f; }
t $L timeout 100 ./pccl-gpu-test --gpus 1
t $L timeout 40 env PCCL_WATCH_US=100 ./pccl-share --reps 12
t $L timeout 40 env PCCL_WATCH_US=100 ./pccl-share --reps 12
t $L timeout 40 ./pccl-share --reps 12
for i in 1 2 3 4 5 6; do
  for sn in 8:150000 32K:120000 2M:80000 16M:16000 128M:4000; do
    s=${sn%:*}; n=${sn#*:}
    P="-g 1 --lib pccl --coll all_reduce -b $s -e $s -n $n -w 200 --check-max 16M -T 10"
    t $C timeout 15 env PCCL_SLICE_US=0 ./pccl-perf $P
    t $C timeout 15 env PCCL_WATCH_US=100 ./pccl-perf $P
    t $C timeout 15 ./pccl-perf $P
  done
done
grep -E "^== exit|^RESULT|asked by the watch" $L >> $O/summary.txt
echo "total $((SECONDS - T0)) s" >> $O/summary.txt
gzip -9 $C $L
