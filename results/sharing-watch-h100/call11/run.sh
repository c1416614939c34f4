#!/bin/bash
# The cut check's slow part out of line behind a compare (fast.patch) against main (f5c1ac2):
# slice against off, b2b x4 and rt x3 interleaved, and PCCL_TRACE_LAT's daemon hop x2.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/fast; cd $d
O=$OUT/fast; mkdir -p $O
t() { local f=$1; shift; echo "== $*" >> $O/$f; "$@" >> $O/$f 2>&1; echo "== exit $?" >> $O/$f; }
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
R="-g 1 --lib pccl --coll all_reduce -b 8 -e 32K -f 8 -n 5000 -w 50 -T 8 --timing rt"
for i in 1 2 3 4; do
  for b in fast main; do
    t cost-$b.txt timeout 12 env PCCL_SLICE_US=0 ./pccl-perf-$b $Q
    t cost-$b.txt timeout 12 ./pccl-perf-$b $Q
  done
done
for i in 1 2 3; do
  for b in fast main; do
    t cost-$b.txt timeout 12 env PCCL_SLICE_US=0 ./pccl-perf-$b $R
    t cost-$b.txt timeout 12 ./pccl-perf-$b $R
  done
done
for i in 1 2; do
  for b in fast main; do
    for tm in b2b rt; do
      t lat.txt timeout 20 env PCCL_TRACE_LAT=1 PCCL_SLICE_US=0 ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 100 --timing $tm -T 10
      t lat.txt timeout 20 env PCCL_TRACE_LAT=1 PCCL_SLICE_US=60000000 ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 100 --timing $tm -T 10
    done
  done
done
