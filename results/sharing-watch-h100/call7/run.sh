#!/bin/bash
# Idle blocks look at block 0's decision every 16 us (idle16) against every 2 us (main 6787609): off / slice / watch.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/tick; cd $d
O=$OUT/tick3; mkdir -p $O
t() { local f=$1; shift; echo "== $*" >> $O/$f; "$@" >> $O/$f 2>&1; echo "== exit $?" >> $O/$f; }
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 2M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
R="-g 1 --lib pccl --coll all_reduce -b 8 -e 32K -f 8 -n 5000 -w 50 -T 8 --timing rt"
for i in 1 2 3 4 5; do
  for q in "$Q"; do
    for b in main idle16; do
      t cost-$b.txt timeout 12 env PCCL_SLICE_US=0 ./pccl-perf-$b $q
      t cost-$b.txt timeout 12 ./pccl-perf-$b $q
      t cost-$b.txt timeout 12 env PCCL_WATCH_US=100 ./pccl-perf-$b $q
    done
  done
done
