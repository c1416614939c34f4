#!/bin/bash
# Four H100s (nvidia-h100-x4), call 1: pccl's multi-GPU checks on 4 GPUs (and the deadlock tests on 2),
# issue 22's cross-rank sharing test on 4, and issue 16's five collectives against nccl-tests 2.19.6 in the
# same run on 4 GPUs and on GPUs 0-1, back to back and round trip, out of place and in place.
# Staged by results/x4-h100/stage.sh into .dev/x4 (carried).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
O=$OUT/x4a; mkdir -p $O; S=$O/summary.txt; L=$O/log.txt
{ nvidia-smi -L; nvidia-smi topo -m | head -6; cat COMMIT; } > $S
T0=$SECONDS
step() { local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-560} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS-t0)) s: $*" >> $S; }
step random4 0 60 ./pccl-deadlock --gpus 4 --iters 100
step random4-sync 0 60 ./pccl-deadlock --gpus 4 --iters 100 --sync
step nccl-random4 3 40 ./nccl-deadlock --gpus 4 --iters 100 --timeout 10
step chaos4 0 60 ./pccl-deadlock --gpus 4 --iters 30 --chaos
step random2-sync 0 60 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-deadlock --gpus 2 --iters 100 --sync
step multiproc4 0 60 ./pccl-multiproc --gpus 4 --iters 30 --sync
step share4 0 90 ./pccl-share --gpus 4 --seeds 20 --iters 10
step share4-watch 0 90 env PCCL_WATCH_US=100 ./pccl-share --gpus 4 --seeds 20 --iters 10
step fault4 0 120 ./pccl-fault --gpus 4 --seeds 4
step vs4 0 200 ./perf-vs-nccl-tests --gpus 4 --out $O/vs4 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
step vs2 0 150 env CUDA_VISIBLE_DEVICES=0,1 ./perf-vs-nccl-tests --gpus 2 --out $O/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
step gpu-test4 0 170 ./pccl-gpu-test --gpus 4
grep -E "^RESULT|passed, |FAILED|^FAIL|agree" $L | head -60 >> $S
echo "== total $((SECONDS - T0)) s" >> $S
(cd $O && tar czf vs.tgz vs4 vs2 && rm -rf vs4 vs2)
gzip -9 $L
