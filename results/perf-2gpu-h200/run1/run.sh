#!/bin/bash
# The first 2-GPU call in many sessions (nvidia-h200-x2): pccl's multi-GPU correctness and deadlock
# freedom (random orders, with cudaDeviceSynchronize, chaos, one process per GPU), NCCL hanging where
# pccl does not, issue 22's cross-rank sharing test (slice and watch, NCCL beside), faults, and issue 16's
# all-reduce against nccl-tests in the same run.
set -u
export NCCL_NVLS_ENABLE=0
d=$(pwd)/.dev/gpu2; cd $d
O=$OUT/gpu2; mkdir -p $O; S=$O/summary.txt; L=$O/log.txt
{ nvidia-smi -L; nvidia-smi topo -m | head -4; cat COMMIT; } > $S
T0=$SECONDS
step() { local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-560} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS-t0)) s: $*" >> $S; }
step gpu-test 0 150 ./pccl-gpu-test --gpus 2
step random 0 60 ./pccl-deadlock --gpus 2 --iters 100
step random-sync 0 60 ./pccl-deadlock --gpus 2 --iters 100 --sync
step nccl-random 3 40 ./nccl-deadlock --gpus 2 --iters 100 --timeout 10
step chaos 0 60 ./pccl-deadlock --gpus 2 --iters 30 --chaos
step multiproc 0 60 ./pccl-multiproc --gpus 2 --iters 30 --sync
step share-gpus 0 60 ./pccl-share --gpus 2 --seeds 20 --iters 10
step share-gpus-watch 0 60 env PCCL_WATCH_US=100 ./pccl-share --gpus 2 --seeds 20 --iters 10
step perf-vs-nccl-tests 0 150 ./perf-vs-nccl-tests --gpus 2 --colls all_reduce --out $O/perf --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 20 -w 5
step fault 0 120 ./pccl-fault --gpus 2 --seeds 4
grep -E "^RESULT|passed, |FAILED|^FAIL|NO \(|agree" $L | head -60 >> $S
echo "== total $((SECONDS - T0)) s" >> $S
(cd $O && tar czf perf.tgz perf && rm -rf perf)
gzip -9 $L
