#!/bin/bash
# Call 4 (2 GPUs): the build to commit (direct on 3-5 ranks, auto up to 32 KiB; the LL primitive as in
# call 1): 4 ranks, 2 on each GPU, auto against the ring, 8 B-512 KiB, three rounds; 2 ranks against main
# 1b589e0 (base), two rounds; the five collectives against nccl-tests (8 B-1 GiB); correctness.
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
step check4-auto 0 90 ./pccl-perf --share-gpu=2 -g 4 --lib pccl --coll all -b 8 -e 1M -f 4 -n 5 -w 1 -c 1 -o all --timing all
step check3 0 60 env PCCL_ALGO=direct ./pccl-perf --share-gpu=2 -g 3 --lib pccl --coll all_reduce -b 8 -e 64K -f 8 -n 3 -w 1 -c 1 -o all -d float,half,int8
echo "== (1) done at $((SECONDS - T0)) s" >> $S
M="-b 8 -e 512K -f 4 -n 500 -w 50 -c 0 --timing all -T 30"
for i in 1 2 3; do for a in ring auto; do
  t timeout 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 4 --lib pccl --coll all_reduce $M
done; done
for i in 1 2; do for v in base new; do
  t timeout 60 ./pccl-perf-$v -g 2 --lib pccl --coll all_reduce -b 8 -e 32M -f 4 -n 200 -w 20 -c 0 --timing all -T 30
done; done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
step vs2 0 240 ./perf-vs-nccl-tests --gpus 2 --out $O/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
(cd $O && tar czf vs2.tgz vs2 && cp vs2/vs-nccl-tests.txt vs2-nccl-tests.txt && rm -rf vs2)
step memcheck4 0 90 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf --share-gpu=2 -g 4 --lib pccl --coll all_reduce -b 8 -e 32K -f 4 -n 3 -w 1 -c 1 -d float,half
step random2 0 40 ./pccl-deadlock --gpus 2 --iters 100
step chaos2 0 40 ./pccl-deadlock --gpus 2 --iters 30 --chaos
step gpu-test2 0 120 ./pccl-gpu-test --gpus 2
grep -E "^RESULT|passed, |FAILED|^FAIL|ERROR SUMMARY" $L | head -40 >> $S
grep -c "exit 0" $C >> $S
echo "== total $((SECONDS - T0)) s" >> $S
gzip -9 $C $L
