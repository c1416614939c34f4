#!/bin/bash
# Where the slice's small-size cost comes from: off / a 60 s slice (its checks, no relaunch) / 4 ms, main (6787609).
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/tick; cd $d
O=$OUT/tick2; mkdir -p $O
t() { local f=$1; shift; echo "== $*" >> $O/$f; "$@" >> $O/$f 2>&1; echo "== exit $?" >> $O/$f; }
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 2M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
R="-g 1 --lib pccl --coll all_reduce -b 8 -e 32K -f 8 -n 5000 -w 50 -T 8 --timing rt"
for i in 1 2 3 4 5; do
  for q in "$Q" "$R"; do
    t cost.txt timeout 12 env PCCL_SLICE_US=0 ./pccl-perf-main $q
    t cost.txt timeout 12 env PCCL_SLICE_US=60000000 ./pccl-perf-main $q
    t cost.txt timeout 12 ./pccl-perf-main $q
  done
done
