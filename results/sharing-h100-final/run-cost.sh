#!/bin/bash
# Final call, part 3 (one GPU): the slice's cost sweeps of helper "share" (its first run's --iter-bytes was refused).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/share; O=$OUT/share; mkdir -p $O; T0=$SECONDS
t() { local f=$1; shift; local t0=$SECONDS; echo "== $*" >> "$O/$f"; "$@" >> "$O/$f" 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$O/$f"; }
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 20"
for i in 1 2; do
  t perf.txt timeout 25 env CUDA_VISIBLE_DEVICES=0 ./pccl-perf $P
  t perf.txt timeout 25 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_US=0 ./pccl-perf $P
done
t perf.txt timeout 15 env CUDA_VISIBLE_DEVICES=0 ./all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50
[ $((SECONDS - T0)) -lt 120 ] && t perf.txt timeout 25 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_EARLY_US=200 ./pccl-perf $P
[ $((SECONDS - T0)) -lt 140 ] && t perf.txt timeout 25 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_GAP_US=0 ./pccl-perf $P
echo "total $((SECONDS - T0)) s" >> $O/perf.txt
