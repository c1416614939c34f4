#!/bin/bash
# One H100, the session's last build (COMMIT): correctness (full), memcheck, the one-GPU
# sharing table (slice, watch; NCCL beside), pccl-share --procs 2 with its reference, faults, the lazy
# stream test.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
root=$(pwd); d=$root/.dev/final15; cd $d
O=$OUT/final15; mkdir -p $O; S=$O/summary.txt; L=$O/log.txt; P2=$O/pairs.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc, $((SECONDS-t0)) s: $*" >> $S; return $rc; }
t() { local f=$1; shift; local t0=$SECONDS; echo "== $*" >> $f; "$@" >> $f 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $f; }
step gpu-test 100 ./pccl-gpu-test --gpus 1
step memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
step share-slice 40 ./pccl-share --reps 12
step share-watch 40 env PCCL_WATCH_US=100 ./pccl-share --reps 12
step share-procs 40 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
step share-procs-watch 40 env PCCL_WATCH_US=100 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
step lazy-2procs 20 env PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 ./stream/pccl-stream --procs --ranks 2 --lazy --iters 20 --timeout 10
step fault-share 60 ./pccl-fault --share 2 --seeds 6
grep -E "^RESULT|passed, |FAILED|ERROR SUMMARY|^FAIL|NO \(" $L | head -40 >> $S
echo "== total $((SECONDS - T0)) s" >> $S
gzip -9 $L
