#!/bin/bash
# pccl-share --procs 2 with its reference (each rank in turn makes the calls with pccl idle while the
# other's GPU runs plain kernels), the slice alone and the watch, twice each; the one-GPU table once.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/procs; cd $d
O=$OUT/procs; mkdir -p $O; L=$O/log.txt
nvidia-smi -L > $O/summary.txt
t() { local t0=$SECONDS; echo "==== $*" >> $L; "$@" >> $L 2>&1; echo "== exit $? ($((SECONDS - t0)) s): $*" >> $O/summary.txt; }
for i in 1 2; do
  t timeout 60 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
  t timeout 60 env PCCL_WATCH_US=100 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
done
t timeout 60 ./pccl-share --reps 12
grep -E "^RESULT|NO \(" $L >> $O/summary.txt
gzip -9 $L
