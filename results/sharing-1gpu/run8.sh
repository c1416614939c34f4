#!/bin/bash
# helper "share": final build (PCCL_SLICE_US=4000, PCCL_SLICE_GAP_US=20 by default): the table and the cost
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/share-out}; mkdir -p "$O"
T0=$SECONDS
t() { local f=$1; shift; local t0=$SECONDS; echo "== $*" >> "$O/$f"; "$@" >> "$O/$f" 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$O/$f"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; } > "$O/gpu.txt" 2>&1
t share.txt timeout 60 ./pccl-share --reps 16
t share.txt timeout 60 env CUDA_MODULE_LOADING=EAGER ./pccl-share --reps 16
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 1G -f 4 -n 200 -w 20 --iter-bytes 16G --check-max 64M -T 30"
for i in 1 2 3; do
  t perf.txt timeout 60 ./pccl-perf $P
  t perf.txt timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $P
done
grep -E "^==|RESULT|NO" "$O/share.txt"
