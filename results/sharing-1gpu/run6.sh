#!/bin/bash
# helper "share": the pause before a relaunch after a slice (PCCL_SLICE_GAP_US)
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/share-out}; mkdir -p "$O"
T0=$SECONDS
t() { local f=$1; shift; local t0=$SECONDS; echo "== $*" >> "$O/$f"; "$@" >> "$O/$f" 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$O/$f"; }
for g in 0 20 100 300; do t share.txt timeout 60 env PCCL_SLICE_GAP_US=$g ./pccl-share --lib pccl --reps 16; done
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 1G -f 16 -n 200 -w 20 --iter-bytes 16G --check-max 64M -T 30"
for g in 0 20 100; do t perf.txt timeout 60 env PCCL_SLICE_GAP_US=$g ./pccl-perf $P; done
t perf.txt timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $P
grep -E "^==|cuModuleLoad|never-launched kernel \+ its stream sync \||cudaFree|RESULT" "$O/share.txt"
