#!/bin/bash
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
d=$(pwd)/.dev/watch2; cd $d
O=$OUT/watch2; mkdir -p $O; S=$O/summary.txt; L=$O/log.txt; C=$O/cost.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-570} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc, $((SECONDS-t0)) s: $*" >> $S; return $rc; }
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
for i in 1 2; do
  step launchcost 40 ./launchcost
  step launchcost-nowatch 40 env PCCL_WATCH_US=0 ./launchcost
done
step share-watch 40 ./pccl-share --reps 12
step share-slice 40 env PCCL_WATCH_US=0 ./pccl-share --reps 12 --lib pccl
step share-watch-2 40 ./pccl-share --reps 12 --lib pccl
step share-procs 25 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
Q="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 8"
for i in 1 2 3 4; do
  t timeout 12 ./pccl-perf $Q
  t timeout 12 env PCCL_WATCH_US=0 ./pccl-perf $Q
  t timeout 12 env PCCL_WATCH_US=0 PCCL_SLICE_US=0 ./pccl-perf $Q
done
t timeout 8 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50
grep -E "^RESULT|passed, |FAILED|ERROR SUMMARY|^PASS|^FAIL|pccl: no watch" $L | head -60 >> $S
echo "== total $((SECONDS - T0)) s" >> $S
