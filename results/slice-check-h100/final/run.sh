#!/bin/bash
# The final one-H100 call on main (COMMIT; results/slice-check-h100): correctness (full), memcheck (watch
# off and on), the sharing table with the slice alone and with the watch (NCCL beside), two processes
# sharing, faults, lazy stream, torch tests; the daemon's time per 8 B all-reduce (PCCL_TRACE_LAT) off /
# 60 s / 4 ms; cost off / slice / watch sweeps x5 interleaved (b2b) and x3 (rt), nccl-tests; the slice at
# single sizes, 4 rounds.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 CUDA_VISIBLE_DEVICES=0
root=$(pwd); d=$root/.dev/final12; cd $d
O=$OUT/final12; mkdir -p $O; S=$O/summary.txt; L=$O/log.txt; C=$O/cost.txt; A=$O/lat.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-570} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc, $((SECONDS-t0)) s: $*" >> $S; return $rc; }
t() { local f=$1; shift; local t0=$SECONDS; echo "== $*" >> $f; "$@" >> $f 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $f; }
step gpu-test 100 ./pccl-gpu-test --gpus 1
step memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
step memcheck-watch 60 env PCCL_WATCH_US=100 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
step share-slice 40 ./pccl-share --reps 12
step share-watch 40 env PCCL_WATCH_US=100 ./pccl-share --reps 12
step share-procs 25 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
step share-procs-watch 25 env PCCL_WATCH_US=100 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
for i in 1 2; do for tm in b2b rt; do for s in "PCCL_SLICE_US=0" "PCCL_SLICE_US=60000000" "PCCL_SLICE_DEFAULT=1"; do
  t $A timeout 20 env PCCL_TRACE_LAT=1 $s ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 100 --timing $tm -T 10
done; done; done
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
R="-g 1 --lib pccl --coll all_reduce -b 8 -e 32K -f 8 -n 5000 -w 50 -T 8 --timing rt"
for i in 1 2 3 4 5; do
  t $C timeout 12 env PCCL_SLICE_US=0 ./pccl-perf $Q
  t $C timeout 12 ./pccl-perf $Q
  t $C timeout 12 env PCCL_WATCH_US=100 ./pccl-perf $Q
done
for i in 1 2 3; do
  t $C timeout 12 env PCCL_SLICE_US=0 ./pccl-perf $R
  t $C timeout 12 ./pccl-perf $R
  t $C timeout 12 env PCCL_WATCH_US=100 ./pccl-perf $R
done
t $C timeout 8 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50
P2=$O/pairs.txt
for i in 1 2 3 4; do
  for sn in 8:150000 32K:120000 2M:80000 16M:16000 128M:4000; do
    s=${sn%:*}; n=${sn#*:}
    P="-g 1 --lib pccl --coll all_reduce -b $s -e $s -n $n -w 200 --check-max 16M -T 10"
    t $P2 timeout 15 env PCCL_SLICE_US=0 ./pccl-perf $P
    t $P2 timeout 15 ./pccl-perf $P
  done
done
step nccl-tests-rt 20 ./nt/all_reduce_perf -g 1 -b 8 -e 32K -f 8 -n 2000 -w 50 -z 1
step lazy-2procs 20 env PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 ./stream/pccl-stream --procs --ranks 2 --lazy --iters 20 --timeout 10
step fault-share 60 ./pccl-fault --share 2 --seeds 6
c=$d/stream
step torch-tests 150 bash -c "cd $c && export PCCL_LIB_DIR=$c PCCL_INCLUDE_DIR=$c/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/python; [ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/cuda-include; python3 -c 'import pccl_torch' && PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=40 PCCL_BLOCKS=8 python3 python/tests/test_backend.py"
grep -E "^RESULT|passed, |FAILED|ERROR SUMMARY|^PASS|^FAIL|pccl: no watch" $L | head -70 >> $S
echo "== total $((SECONDS - T0)) s" >> $S
gzip -9 $L $C $A $P2
