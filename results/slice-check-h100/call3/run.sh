#!/bin/bash
# Issue 22, the slice's cost at single sizes: 8 interleaved pairs of runs (the slice off, then the
# defaults), one size per run, each run about half a second of all-reduces (100+ slices), one rank.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/cost2; cd $d
O=$OUT/cost2; mkdir -p $O; C=$O/cost.txt
nvidia-smi -L > $O/gpu.txt; git -C .. log -1 --format=%H 2>/dev/null >> $O/gpu.txt
T0=$SECONDS
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
for i in 1 2 3 4 5 6 7 8; do
  for sn in 8:150000 32K:120000 2M:80000 16M:16000 128M:4000; do
    s=${sn%:*}; n=${sn#*:}
    t timeout 15 env PCCL_SLICE_US=0 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b $s -e $s -n $n -w 200 --check-max 16M -T 10
    t timeout 15 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b $s -e $s -n $n -w 200 --check-max 16M -T 10
  done
done
echo "total $((SECONDS - T0)) s" >> $O/gpu.txt
gzip -9 $C
