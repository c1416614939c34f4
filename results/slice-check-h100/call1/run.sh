#!/bin/bash
# Issue 22, the slice's per-operation cost: main (0fda14d) against two builds where a cut check is a
# clock read and a compare until something can be due, and the other blocks look at block 0's decision
# from the deadline on (1, 2, 4 .. 64 us apart): va (the check's slow part out of line), vc (only the
# next-check computation out of line). PCCL_TRACE_LAT daemon hop at 8 B (off / 60 s / default 4 ms),
# then the cost sweeps off / on / watch per build, interleaved, and nccl-tests.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/slice2; cd $d
O=$OUT/slice2; mkdir -p $O
nvidia-smi -L > $O/gpu.txt
T0=$SECONDS
lat() { echo "== $*" >> $O/lat.txt; "$@" >> $O/lat.txt 2>&1; echo "== exit $?" >> $O/lat.txt; }
t() { local f=$1; shift; local t0=$SECONDS; echo "== $*" >> $f; "$@" >> $f 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $f; }
B="main va vc"
for i in 1 2; do for b in $B; do for tm in b2b rt; do
  for s in "PCCL_SLICE_US=0" "PCCL_SLICE_US=60000000" "PCCL_SLICE_DEFAULT=1"; do
    lat timeout 20 env PCCL_TRACE_LAT=1 $s ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 100 --timing $tm -T 10
  done
done; done; done
echo "lat done at $((SECONDS - T0)) s" >> $O/times.txt
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
for i in 1 2; do for b in $B; do
  t $O/cost-$b.txt timeout 12 env PCCL_SLICE_US=0 ./pccl-perf-$b $Q
  t $O/cost-$b.txt timeout 12 ./pccl-perf-$b $Q
  t $O/cost-$b.txt timeout 12 env PCCL_WATCH_US=100 ./pccl-perf-$b $Q
done; done
for b in $B; do t $O/cost-$b.txt timeout 8 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50; done
echo "total $((SECONDS - T0)) s" >> $O/times.txt
