#!/bin/bash
# Final one-H100 call on main after merging both helpers: correctness (full), memcheck, torch tests,
# sharing bound and cross-rank, faults, the lazy stream test, small-message table against nccl-tests.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
root=$(pwd); d=$root/.dev/final; cd $d
O=$OUT/final; mkdir -p $O; S=$O/summary.txt; L=$O/log.txt
{ nvidia-smi -L; cat COMMIT; } > $S
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  [ $((SECONDS + lim)) -gt ${BUDGET:-540} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc, $((SECONDS-t0)) s: $*" >> $S; return $rc; }
step gpu-test 100 env CUDA_VISIBLE_DEVICES=0 ./pccl-gpu-test --gpus 1
step memcheck 120 env CUDA_VISIBLE_DEVICES=0 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
P="--lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 1 --timing all"
step perf-1rank 40 env CUDA_VISIBLE_DEVICES=0 ./pccl-perf -g 1 $P
step perf-2share 40 env CUDA_VISIBLE_DEVICES=0 PCCL_BLOCKS=8 ./pccl-perf -g 2 --share-gpu $P
step nccl-tests-b2b 20 env CUDA_VISIBLE_DEVICES=0 ./nt/all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z 0
step nccl-tests-rt 20 env CUDA_VISIBLE_DEVICES=0 ./nt/all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z 1
step lazy-2procs 20 env CUDA_VISIBLE_DEVICES=0 PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 ./pccl-stream --procs --ranks 2 --lazy --iters 20 --timeout 10
c=$root/.dev/lead/stream
step torch-tests 150 bash -c "cd $c && export PCCL_LIB_DIR=$c PCCL_INCLUDE_DIR=$c/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/python; [ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/cuda-include; python3 -c 'import pccl_torch' && PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=40 PCCL_BLOCKS=8 python3 python/tests/test_backend.py"
step share 30 env CUDA_VISIBLE_DEVICES=0 ./pccl-share --reps 12
step share-procs 25 env CUDA_VISIBLE_DEVICES=0 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
step fault-share 60 env CUDA_VISIBLE_DEVICES=0 ./pccl-fault --share 2 --seeds 6
grep -E "^RESULT|passed, |FAILED|ERROR SUMMARY" $L | head -40 >> $S
echo "== total $SECONDS s" >> $S
