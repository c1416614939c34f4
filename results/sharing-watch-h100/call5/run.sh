#!/bin/bash
# The clock reads paced by the SM's cycle counter (tick build) against main (6787609), interleaved.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/tick; cd $d
O=$OUT/tick; mkdir -p $O
t() { local f=$1; shift; echo "== $*" >> $O/$f; "$@" >> $O/$f 2>&1; echo "== exit $?" >> $O/$f; }
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
R="-g 1 --lib pccl --coll all_reduce -b 8 -e 32K -f 8 -n 5000 -w 50 -T 8 --timing rt"
for i in 1 2 3 4; do
  for b in tick main; do
    t cost-$b.txt timeout 12 env PCCL_SLICE_US=0 ./pccl-perf-$b $Q
    t cost-$b.txt timeout 12 ./pccl-perf-$b $Q
    t cost-$b.txt timeout 12 env PCCL_WATCH_US=100 ./pccl-perf-$b $Q
  done
done
for i in 1 2 3 4; do
  for b in tick main; do
    t cost-$b.txt timeout 12 env PCCL_SLICE_US=0 ./pccl-perf-$b $R
    t cost-$b.txt timeout 12 ./pccl-perf-$b $R
    t cost-$b.txt timeout 12 env PCCL_WATCH_US=100 ./pccl-perf-$b $R
  done
done
t nt.txt timeout 8 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50
