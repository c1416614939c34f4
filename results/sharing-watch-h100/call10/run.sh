#!/bin/bash
# Bisecting the slice's per-operation cost (f5c1ac2 = main): v1, the other blocks never look at block 0's
# decision; v2, no cut check after steps. PCCL_TRACE_LAT daemon hop, off against a 60 s slice, b2b and rt, 8 B.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/bisect; cd $d
O=$OUT/bisect; mkdir -p $O
t() { echo "== $*" >> $O/lat.txt; "$@" >> $O/lat.txt 2>&1; echo "== exit $?" >> $O/lat.txt; }
for i in 1 2; do
  for b in main v1 v2; do
    for tm in b2b rt; do
      t timeout 20 env PCCL_TRACE_LAT=1 PCCL_SLICE_US=0 ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 100 --timing $tm -T 10
      t timeout 20 env PCCL_TRACE_LAT=1 PCCL_SLICE_US=60000000 ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 100 --timing $tm -T 10
    done
  done
done
