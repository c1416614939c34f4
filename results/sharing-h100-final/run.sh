#!/bin/bash
# helper "share" (issue 22), for ONE GPU (H100 or H200): the cross-rank sharing test with 2 ranks as
# processes sharing the GPU, the one-GPU table of CUDA calls against the bound, and the time slice's cost
# (pccl-perf all_reduce with the slice on / off / early cuts / without the gap, long runs; the relaunch split
# per run) beside nccl-tests.  About 75 s (stops starting steps at 110 s).
# Writes $OUT/share/share.txt and $OUT/share/perf.txt.
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/share-out}/share; mkdir -p "$O"
T0=$SECONDS
t() { local f=$1; shift; local t0=$SECONDS; echo "== $*" >> "$O/$f"; "$@" >> "$O/$f" 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$O/$f"; }
ok() { [ $((SECONDS - T0)) -lt ${1:-110} ]; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; } > "$O/share.txt" 2>&1
# 1. cross-rank: 2 ranks as processes on GPU 0, each a communication thread in random orders and a compute
#    thread making the implicit-sync calls at random points
t share.txt timeout 40 env CUDA_VISIBLE_DEVICES=0 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
# 2. the one-GPU table (pccl beside NCCL)
ok 60 && t share.txt timeout 30 env CUDA_VISIBLE_DEVICES=0 ./pccl-share --reps 12
# 3. the cost: long runs per size (about 50-250 slices each), on/off interleaved
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 20"
for i in 1 2; do
  ok && t perf.txt timeout 25 env CUDA_VISIBLE_DEVICES=0 ./pccl-perf $P
  ok && t perf.txt timeout 25 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_US=0 ./pccl-perf $P
done
ok 95 && t perf.txt timeout 15 env CUDA_VISIBLE_DEVICES=0 ./all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50
ok 95 && t perf.txt timeout 25 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_EARLY_US=200 ./pccl-perf $P
ok 100 && t perf.txt timeout 25 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_GAP_US=0 ./pccl-perf $P
echo "total $((SECONDS - T0)) s" >> "$O/share.txt"
grep -E "^==|RESULT|HANG|NO |# pccl rank" "$O/share.txt" "$O/perf.txt" | cut -c1-240
