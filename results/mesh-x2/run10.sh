#!/bin/bash
# Call 10 (2 H200s): the mesh at its most ranks on the GPU (8, PCCL_MESH_MAX_RANKS: seven peers, every
# operand and destination array full) and at an odd count (5), as threads on 2 GPUs (--share-gpu=2),
# every op and type, 8 B-1 MiB, both placements and timings, checked; memcheck on 8.  Call 7's build.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
O=$OUT/d; mkdir -p $O; S=$O/summary.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
step() { local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-400} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $O/log.txt
  timeout -k 3 $lim "$@" >> $O/log.txt 2>&1; local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS-t0)) s: $*" >> $S; }
P="--lib pccl --coll all_reduce -b 8 -e 1M -f 8 -n 3 -w 1 -c 1 --timing all"
for a in oneshot twoshot; do
  step check8-$a 0 120 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 8 $P -o all -d all
  step check5-$a 0 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 5 $P -o sum,avg,max -d float,half,int8,uint64
done
step memcheck8-two 0 100 env PCCL_ALGO=twoshot compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf --share-gpu=2 -g 8 --lib pccl --coll all_reduce -b 8 -e 256K -f 32 -n 2 -w 1 -c 1 -d float
echo "== all done at $((SECONDS - T0)) s" >> $S
