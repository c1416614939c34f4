#!/bin/bash
# Call 3 (2 GPUs): the LL primitive waits for a batch of units together (each poll round reloads every
# unit not arrived: one round trip for all), this build (new), against call 1's build (c1: each unit
# waited for in turn) and main 1b589e0 (base); 2 ranks (all-reduce, all-gather, reduce-scatter, 8 B-512
# KiB, LL's sizes, round trip and back to back, two rounds) and 4 ranks, 2 on each GPU (all-reduce, ring
# and direct, 2-512 KiB); the tables against nccl-tests up to 8 MiB with this build; correctness.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
O=$OUT/d; mkdir -p $O; S=$O/summary.txt; C=$O/runs.txt; L=$O/log.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s, at $((SECONDS - T0)) s)" >> $C; }
step() { local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-570} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS-t0)) s: $*" >> $S; }
step check4 0 120 env PCCL_ALGO=direct ./pccl-perf --share-gpu=2 -g 4 --lib pccl --coll all_reduce -b 8 -e 64K -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
step check2 0 120 ./pccl-perf -g 2 --lib pccl --coll all -b 8 -e 1M -f 4 -n 3 -w 1 -c 1 -o all -d float,half,int8,double --timing all
echo "== (1) done at $((SECONDS - T0)) s" >> $S
M="-b 8 -e 512K -f 4 -n 500 -w 50 -c 0 --timing all -T 30"
for i in 1 2; do
  for v in base c1 new; do t timeout 90 ./pccl-perf-$v -g 2 --lib pccl --coll all_reduce,all_gather,reduce_scatter $M; done
done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
M4="-b 2K -e 512K -f 4 -n 500 -w 50 -c 0 --timing all -T 30"
for i in 1 2; do
  for v in c1 new; do for a in ring direct; do
    t timeout 60 env PCCL_ALGO=$a ./pccl-perf-$v --share-gpu=2 -g 4 --lib pccl --coll all_reduce $M4
  done; done
done
echo "== (3) done at $((SECONDS - T0)) s" >> $S
step vs2 0 150 ./perf-vs-nccl-tests --gpus 2 --out $O/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 8M -f 4 -n 100 -w 10
step memcheck2 0 90 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf -g 2 --lib pccl --coll all -b 8 -e 256K -f 8 -n 3 -w 1 -c 1
step gpu-test2 0 170 ./pccl-gpu-test --gpus 2
grep -E "^RESULT|passed, |FAILED|^FAIL|ERROR SUMMARY" $L | head -40 >> $S
grep -c "exit 0" $C >> $S
echo "== total $((SECONDS - T0)) s" >> $S
gzip -9 $C $L
