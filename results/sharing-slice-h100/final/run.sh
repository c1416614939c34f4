#!/bin/bash
# helper "slice" (issue 22), final cost run (lead), ONE GPU: main after merging the branch slice (block 0 decides a launch's
# end, with main's pccl_hold_done), checked and measured once more: the cost (pccl-perf all_reduce 8 B-128 MiB,
# defaults against PCCL_SLICE_US=0, six times each, interleaved, and a 6 ms slice three times, relaunch split), nccl-tests beside it, the
# one-GPU sharing table, the cross-rank sharing test (2 processes on GPU 0), the lazy-loading stream test
# (the hold), the one-GPU correctness suite.  About 130 s; each step bounded, none starts after 170 s.
# Writes $OUT/slice/perf.txt (everything) and $OUT/slice/log.csv (PCCL_SLICE_LOG).
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"
O=${OUT:-/tmp/slice-out}/slice; mkdir -p "$O"
T0=$SECONDS
L=$O/log.csv
t() { local t0=$SECONDS; echo "== $*" >> "$O/perf.txt"; echo "# run: $*" >> "$L"; "$@" >> "$O/perf.txt" 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> "$O/perf.txt"; }
ok() { [ $((SECONDS - T0)) -lt ${1:-170} ]; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; cat COMMIT; } > "$O/perf.txt" 2>&1
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
E="env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_LOG=$L"
for i in 1 2 3 4 5 6; do
  ok && t timeout 10 $E ./pccl-perf $P
  ok && t timeout 10 env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_US=0 ./pccl-perf $P
done
for i in 1 2 3; do ok && t timeout 10 $E PCCL_SLICE_US=6000 ./pccl-perf $P; done
ok && t timeout 8 env CUDA_VISIBLE_DEVICES=0 ./all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50
ok && t timeout 10 env CUDA_VISIBLE_DEVICES=0 ./pccl-share --reps 16
ok && t timeout 20 env CUDA_VISIBLE_DEVICES=0 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
ok && t timeout 12 env CUDA_VISIBLE_DEVICES=0 PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 ./pccl-stream --procs --ranks 2 --lazy --iters 20 --timeout 10
ok && t timeout 30 env CUDA_VISIBLE_DEVICES=0 ./pccl-gpu-test --gpus 1 --quick
echo "total $((SECONDS - T0)) s" >> "$O/perf.txt"
grep -E "^==|RESULT|# pccl rank 0:|PASS|FAIL" "$O/perf.txt" | cut -c1-240
