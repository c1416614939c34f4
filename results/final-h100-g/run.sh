#!/bin/bash
# Final one-H100 call of the session on main (COMMIT): correctness (full), memcheck, small-message table against
# nccl-tests (both timings), slice cost on/off x3 interleaved, lazy stream test, sharing bound and cross-rank,
# faults, torch tests.  Each step bounded; the whole within BUDGET seconds.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 CUDA_VISIBLE_DEVICES=0
root=$(pwd); d=$root/.dev/final8; cd $d
O=$OUT/final8; mkdir -p $O; S=$O/summary.txt; L=$O/log.txt; C=$O/cost.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-570} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc, $((SECONDS-t0)) s: $*" >> $S; return $rc; }
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
step gpu-test 100 ./pccl-gpu-test --gpus 1
step memcheck 110 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
P="--lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 1 --timing all"
step perf-1rank 40 ./pccl-perf -g 1 $P
step nccl-tests-b2b 20 ./nt/all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z 0
step nccl-tests-rt 20 ./nt/all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z 1
step perf-1rank-2 40 ./pccl-perf -g 1 $P
step perf-spread0 40 env PCCL_SPREAD=0 ./pccl-perf -g 1 $P
step perf-spread1 40 env PCCL_SPREAD=1 ./pccl-perf -g 1 $P
step perf-d16 30 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 1 --timing b2b --pccl-depth 16
step perf-spread0-d16 30 env PCCL_SPREAD=0 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 1 --timing b2b --pccl-depth 16
step nccl-tests-b2b-2 20 ./nt/all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z 0
step nccl-tests-rt-2 20 ./nt/all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 500 -w 50 -z 1
step perf-1rank-3 40 ./pccl-perf -g 1 $P
step rtprobe 40 ./rtprobe 20000
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
for i in 1 2 3; do
  t timeout 10 ./pccl-perf $Q
  t timeout 10 env PCCL_SLICE_US=0 ./pccl-perf $Q
done
t timeout 8 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50
step lazy-2procs 20 env PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 ./pccl-stream --procs --ranks 2 --lazy --iters 20 --timeout 10
step share 30 ./pccl-share --reps 12
step share-procs 25 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
step fault-share 60 ./pccl-fault --share 2 --seeds 6
c=$d/stream
step torch-tests 150 bash -c "cd $c && export PCCL_LIB_DIR=$c PCCL_INCLUDE_DIR=$c/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/python; [ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/cuda-include; python3 -c 'import pccl_torch' && PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=40 PCCL_BLOCKS=8 python3 python/tests/test_backend.py"
grep -E "^RESULT|passed, |FAILED|ERROR SUMMARY|^PASS|^FAIL" $L | head -60 >> $S
echo "== total $((SECONDS - T0)) s" >> $S
