#!/bin/bash
# helper "share" (issue 22): the cross-rank sharing test on 2 GPUs, and the time slice's cost
# (pccl-perf with the slice on / off / unaligned, the relaunch split per rank) beside nccl-tests,
# 1 and 2 GPUs, in one run.  About 90 s.  Writes $OUT/share/share.txt and $OUT/share/perf.txt.
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/share-out}/share; mkdir -p "$O"
T0=$SECONDS
t() { local f=$1; shift; local t0=$SECONDS; echo "== $*" >> "$O/$f"; "$@" >> "$O/$f" 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$O/$f"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; } > "$O/share.txt" 2>&1
# 1. the cross-rank test: each rank's compute thread makes the implicit-sync calls at random points while
#    its communication thread runs the random-order test; NCCL beside it in one order
t share.txt timeout 40 ./pccl-share --gpus 2 --seeds 20 --iters 10 --secs 3 --timeout 15
# 2. the cost: pccl-perf all_reduce, slice on (defaults: 4 ms, gap 20 us, aligned), off, unaligned; nccl-tests
P="--lib pccl --coll all_reduce -b 8 -e 512M -f 8 -n 200 -w 20 --iter-bytes 16G --check-max 64M -T 20"
for i in 1 2; do
  t perf.txt timeout 20 env CUDA_VISIBLE_DEVICES=0 ./pccl-perf -g 1 $P
  t perf.txt timeout 20 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_US=0 ./pccl-perf -g 1 $P
  t perf.txt timeout 20 ./pccl-perf -g 2 $P
  t perf.txt timeout 20 env PCCL_SLICE_US=0 ./pccl-perf -g 2 $P
  t perf.txt timeout 20 env PCCL_SLICE_ALIGN=0 ./pccl-perf -g 2 $P
done
t perf.txt timeout 20 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_GAP_US=0 ./pccl-perf -g 1 $P
for b in 8 2M 512M; do  # the relaunch split per size (one size per run)
  t perf.txt timeout 20 env CUDA_VISIBLE_DEVICES=0 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b $b -e $b -n 20000 -w 20 --iter-bytes 512G -c 0 -T 20
  t perf.txt timeout 20 ./pccl-perf -g 2 --lib pccl --coll all_reduce -b $b -e $b -n 20000 -w 20 --iter-bytes 512G -c 0 -T 20
done
t perf.txt timeout 15 env CUDA_VISIBLE_DEVICES=0 ./all_reduce_perf -g 1 -b 8 -e 512M -f 8 -n 200 -w 20
t perf.txt timeout 15 ./all_reduce_perf -g 2 -b 8 -e 512M -f 8 -n 200 -w 20
# 3. the one-GPU table (the bound with the grid), if time is left
left=$((112 - (SECONDS - T0)))
[ $left -gt 15 ] && t share.txt timeout $left env CUDA_VISIBLE_DEVICES=0 ./pccl-share --reps 12
echo "total $((SECONDS - T0)) s" >> "$O/share.txt"
grep -E "^==|RESULT|HANG|NO " "$O/share.txt" "$O/perf.txt" | cut -c1-220
