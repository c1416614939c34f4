#!/bin/bash
# Where the slice's 0.1-0.2 us per 8 B all-reduce goes: PCCL_TRACE_LAT hop medians, off against a 60 s slice, b2b and rt (f5c1ac2).
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/lat; cd $d
O=$OUT/lat; mkdir -p $O
t() { echo "== $*" >> $O/lat.txt; "$@" >> $O/lat.txt 2>&1; echo "== exit $?" >> $O/lat.txt; }
for i in 1 2 3; do
  for tm in b2b rt; do
    t timeout 20 env PCCL_TRACE_LAT=1 PCCL_SLICE_US=0 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 100 --timing $tm -T 10
    t timeout 20 env PCCL_TRACE_LAT=1 PCCL_SLICE_US=60000000 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 100 --timing $tm -T 10
  done
done
