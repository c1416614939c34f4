#!/bin/bash
# helper "share": issue 22's GPU runs (one GPU), final batch
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/share-out}; mkdir -p "$O"
T0=$SECONDS
t() { local f=$1; shift; local t0=$SECONDS; echo "== $*" >> "$O/$f"; "$@" >> "$O/$f" 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$O/$f"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; } > "$O/gpu.txt" 2>&1
t share.txt timeout 90 ./pccl-share
t share.txt timeout 90 env CUDA_MODULE_LOADING=EAGER ./pccl-share
t share.txt timeout 90 env PCCL_SLICE_US=1000 ./pccl-share --lib pccl
t share.txt timeout 90 env PCCL_SLICE_US=0 ./pccl-share --lib pccl --reps 2 --cap-s 1
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 1G -f 4 -n 200 -w 20 --iter-bytes 16G --check-max 64M -T 30"
for i in 1 2 3; do
  for s in 0 2000 4000 8000 1000; do t perf.txt timeout 100 env PCCL_SLICE_US=$s ./pccl-perf $P; done
  t nccl-tests.txt timeout 80 ./all_reduce_perf -g 1 -b 8 -e 1G -f 4 -n 200 -w 20
done
t gpu-test.txt timeout 200 ./pccl-gpu-test --gpus 1 --quick
t gpu-test.txt timeout 200 env PCCL_SLICE_US=100 ./pccl-gpu-test --gpus 1 --quick --chaos
cat "$O/share.txt"
