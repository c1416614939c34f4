#!/bin/bash
# Call 5: placed collectives on half the blocks take both halves in turn (run.c place_group: groups 0 and
# 1 where blocks / used = 2; before, group 1 alone): new (this build) against prev (call 4's new, the same
# without it) and ilvfix (call 4's variant); all-reduce, reduce-scatter, all-gather 512 KiB-32 MiB on 4 and 2
# GPUs, two rounds interleaved; then the five collectives against nccl-tests with new on 4 GPUs and on 2, and
# its correctness on 4 GPUs (and the deadlock tests on 2).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
O=$OUT/x4e; mkdir -p $O; S=$O/summary.txt; C=$O/runs.txt; L=$O/log.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
n=$(nvidia-smi -L | grep -c '^GPU')
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
step() { local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-560} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS-t0)) s: $*" >> $S; }
M="--lib pccl -b 512K -e 32M -f 2 -n 500 -w 50 -c 1 --check-max 16M --timing all -T 30"
for i in 1 2; do
  for g in 4 2; do
    [ $g -le $n ] || continue
    V=$(seq -s, 0 $((g - 1)))
    for c in all_reduce reduce_scatter all_gather; do
      for v in prev new ilvfix; do t timeout 60 env CUDA_VISIBLE_DEVICES=$V ./pccl-perf-$v -g $g --coll $c $M; done
    done
  done
done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
step vs$n 0 200 ./perf-vs-nccl-tests --gpus $n --out $O/vs$n --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
[ $n -gt 2 ] && step vs2 0 150 env CUDA_VISIBLE_DEVICES=0,1 ./perf-vs-nccl-tests --gpus 2 --out $O/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
step random$n 0 60 ./pccl-deadlock --gpus $n --iters 100
step random$n-sync 0 60 ./pccl-deadlock --gpus $n --iters 100 --sync
step chaos$n 0 60 ./pccl-deadlock --gpus $n --iters 30 --chaos
step random2-sync 0 60 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-deadlock --gpus 2 --iters 100 --sync
step share$n 0 90 ./pccl-share --gpus $n --seeds 20 --iters 10
step gpu-test$n 0 170 ./pccl-gpu-test --gpus $n
grep -E "^RESULT|passed, |FAILED|^FAIL|agree" $L | head -40 >> $S
grep -c "exit 0" $C >> $S
echo "== total $((SECONDS - T0)) s" >> $S
(cd $O && tar czf vs.tgz vs* && rm -rf vs$n vs2)
gzip -9 $C $L
