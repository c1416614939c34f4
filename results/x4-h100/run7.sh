#!/bin/bash
# Call 7: one-block collectives placed by the host (run.c place_group: block 0 where no other invocation
# of the rank is in flight, else block 1 + (id + n) % 31, alike on every rank), this build (new), against
# prev (call 6's: block 0 while free, else by the record's place in the SQ: each rank its own); all-reduce
# 8 B-512 KiB back to back (4 in flight) and round trip, two rounds, on 4 GPUs where lent and on 2; the
# correctness suite and the deadlock and sharing tests on all the GPUs.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
O=$OUT/x4g; mkdir -p $O; S=$O/summary.txt; C=$O/runs.txt; L=$O/log.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
n=$(nvidia-smi -L | grep -c '^GPU')
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
step() { local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-560} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS-t0)) s: $*" >> $S; }
M="--lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 1 --timing all -T 30"
for i in 1 2; do for g in 4 2; do
  [ $g -le $n ] || continue
  for v in prev new; do t timeout 60 env CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((g - 1))) ./pccl-perf-$v -g $g $M; done
done; done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
step random$n 0 60 ./pccl-deadlock --gpus $n --iters 100
step random$n-sync 0 60 ./pccl-deadlock --gpus $n --iters 100 --sync
step chaos$n 0 60 ./pccl-deadlock --gpus $n --iters 30 --chaos
step share$n 0 90 ./pccl-share --gpus $n --seeds 20 --iters 10
step gpu-test$n 0 170 ./pccl-gpu-test --gpus $n
grep -E "^RESULT|passed, |FAILED|^FAIL" $L | head -40 >> $S
grep -c "exit 0" $C >> $S
echo "== total $((SECONDS - T0)) s" >> $S
gzip -9 $C $L
