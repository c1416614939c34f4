#!/bin/bash
# helper "slice" (issue 22: the time slice's cost), call 1, ONE GPU: where a relaunch's time goes, per
# relaunch (PCCL_SLICE_LOG: one CSV line each) and per size (pccl-perf's "# pccl rank 0 at N B" lines),
# with the defaults (b2b and round trip), without the gap, with eager module loading, and the cost at
# slices of 2, 4 and 8 ms against the slice off; then the one-GPU sharing table with gaps of 0, 10, 20 us
# (does cuModuleLoadData need the gap?).  About 75 s; every step bounded (limits sum to 132 s).
# Writes $OUT/slice/perf.txt (pccl-perf and pccl-share outputs) and $OUT/slice/log.csv.
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/slice-out}/slice; mkdir -p "$O"
T0=$SECONDS
L=$O/log.csv
t() { local t0=$SECONDS; echo "== $*" >> "$O/perf.txt"; echo "# run: $*" >> "$L"; "$@" >> "$O/perf.txt" 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$O/perf.txt"; }
ok() { [ $((SECONDS - T0)) -lt ${1:-125} ]; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; } > "$O/perf.txt" 2>&1
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 10"
E="env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_LOG=$L"
ok && t timeout 12 $E ./pccl-perf $P
ok && t timeout 12 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_US=0 ./pccl-perf $P
ok && t timeout 12 $E ./pccl-perf $P --timing rt
ok && t timeout 12 $E PCCL_SLICE_GAP_US=0 ./pccl-perf $P
ok && t timeout 12 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_US=0 ./pccl-perf $P
ok && t timeout 12 $E CUDA_MODULE_LOADING=EAGER ./pccl-perf $P
ok && t timeout 12 $E PCCL_SLICE_US=8000 ./pccl-perf $P
ok && t timeout 12 $E PCCL_SLICE_US=2000 ./pccl-perf $P
for g in 0 10 20; do ok && t timeout 12 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_GAP_US=$g ./pccl-share --reps 16; done
echo "total $((SECONDS - T0)) s" >> "$O/perf.txt"
grep -E "^==|RESULT|# pccl rank 0:|cuModuleLoadData" "$O/perf.txt" | cut -c1-240
