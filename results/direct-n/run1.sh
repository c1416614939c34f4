#!/bin/bash
# Call 1 (2 GPUs): the direct all-reduce on 3 or more ranks (the inputs around the ring, n - 1 hops, then
# each rank reduces all n in rank order), with 4 ranks as threads on 2 GPUs (--share-gpu=2: rank r on GPU
# r % 2, so every ring hop crosses NVLink) and on one GPU; correctness (every op and type, checked),
# timing against the ring (PCCL_ALGO=ring) at 8 B-512 KiB, round trip and back to back, three rounds;
# 2 ranks on 2 GPUs against main 1b589e0 (base), whose 2-rank path this change keeps; the correctness
# suite, the deadlock tests and memcheck.  Staged by ../x4-h100/stage.sh (BASE: a make gpu of 1b589e0).
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
P="--lib pccl --coll all_reduce"
step check4 0 120 env PCCL_ALGO=direct ./pccl-perf --share-gpu=2 -g 4 $P -b 8 -e 64K -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
step check3 0 60 env PCCL_ALGO=direct ./pccl-perf --share-gpu=2 -g 3 $P -b 8 -e 64K -f 8 -n 3 -w 1 -c 1 -o all -d float,half,int8
step check4-all 0 90 ./pccl-perf --share-gpu=2 -g 4 --lib pccl --coll all -b 8 -e 1M -f 4 -n 5 -w 1 -c 1 --timing all
echo "== (1) done at $((SECONDS - T0)) s" >> $S
M="-b 8 -e 512K -f 4 -n 500 -w 50 -c 0 --timing all -T 30"
for i in 1 2 3; do
  for a in ring auto direct; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 4 $P $M; done
done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
for i in 1 2; do
  for a in ring auto; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu -g 4 $P $M; done
done
echo "== (3) done at $((SECONDS - T0)) s" >> $S
for i in 1 2; do
  for v in base new; do t timeout 60 ./pccl-perf-$v -g 2 $P -b 8 -e 32M -f 4 -n 200 -w 20 -c 0 --timing all -T 30; done
done
echo "== (4) done at $((SECONDS - T0)) s" >> $S
step memcheck4 0 120 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf --share-gpu=2 -g 4 $P -b 8 -e 8K -f 32 -n 3 -w 1 -c 1 -d float,half
step random2 0 60 ./pccl-deadlock --gpus 2 --iters 100
step chaos2 0 60 ./pccl-deadlock --gpus 2 --iters 30 --chaos
step gpu-test2 0 170 ./pccl-gpu-test --gpus 2
grep -E "^RESULT|passed, |FAILED|^FAIL|ERROR SUMMARY" $L | head -40 >> $S
grep -c "exit 0" $C >> $S
echo "== total $((SECONDS - T0)) s" >> $S
gzip -9 $C $L
