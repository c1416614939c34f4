#!/bin/bash
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/watch3; cd $d
O=$OUT/watch3; mkdir -p $O; C=$O/cost.txt
T0=$SECONDS
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
R="-g 1 --lib pccl --coll all_reduce -b 8 -e 32K -f 8 -n 5000 -w 50 -T 8 --timing rt"
for i in 1 2 3 4; do
  t timeout 12 ./pccl-perf $Q
  t timeout 12 env PCCL_WATCH_US=0 ./pccl-perf $Q
  t timeout 12 env PCCL_WATCH_US=0 PCCL_SLICE_US=0 ./pccl-perf $Q
done
for i in 1 2 3; do
  t timeout 12 ./pccl-perf $R
  t timeout 12 env PCCL_WATCH_US=0 PCCL_SLICE_US=0 ./pccl-perf $R
done
t timeout 8 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50
./pccl-share --reps 12 --lib pccl > $O/share.txt 2>&1
echo "== total $((SECONDS - T0)) s" >> $C
