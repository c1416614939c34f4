#!/bin/bash
# Call 1 (2 H200s): the mesh all-reduce (PCCL_ALGO=oneshot, twoshot: connectors to every peer).
# (1) exact: every op and type, 8 B-4 MiB, out of place and in place, both timings, on 2 ranks (2 GPUs)
# and on 4 and 3 ranks as threads on 2 GPUs (--share-gpu=2: rank r on GPU r % 2); (2) compute-sanitizer
# memcheck, 4 ranks; (3) the paper's random orders and chaos with the mesh, the GPU suite (--quick);
# (4) time per all-reduce, 4 ranks on 2 GPUs, ring / auto / oneshot / twoshot, two rounds; (5) 2 ranks:
# auto / oneshot / twoshot, and this build against main 4f27d99 (pccl-perf-base: the mesh's kernel
# changes spill more in the daemon's loop, -Xptxas -v), two rounds.  Staged by ../x2-h200/stage.sh
# (VARIANTS=base).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
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
for a in oneshot twoshot; do
  step check2-$a 0 60 env PCCL_ALGO=$a ./pccl-perf -g 2 $P -b 8 -e 4M -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
  step check4-$a 0 90 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 4 $P -b 8 -e 4M -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
  step check3-$a 0 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 3 $P -b 8 -e 1M -f 8 -n 3 -w 1 -c 1 -o sum,max -d float,half,int8
done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
M="-b 8 -e 4M -f 4 -n 300 -w 30 -c 0 --timing all -T 30"
for i in 1 2; do
  for a in ring auto oneshot twoshot; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 4 $P $M; done
done
echo "== (4) done at $((SECONDS - T0)) s" >> $S
for i in 1 2; do
  for a in auto oneshot twoshot; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf -g 2 $P $M; done
  t timeout 60 ./pccl-perf-base -g 2 $P $M
done
echo "== (5) done at $((SECONDS - T0)) s" >> $S
step memcheck4-two 0 100 env PCCL_ALGO=twoshot compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf --share-gpu=2 -g 4 $P -b 8 -e 64K -f 32 -n 3 -w 1 -c 1 -d float,half
step memcheck4-one 0 100 env PCCL_ALGO=oneshot compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf --share-gpu=2 -g 4 $P -b 8 -e 64K -f 32 -n 3 -w 1 -c 1 -d float,int8
step random2 0 60 env PCCL_ALGO=twoshot ./pccl-deadlock --gpus 2 --iters 100
step chaos2 0 60 env PCCL_ALGO=oneshot ./pccl-deadlock --gpus 2 --iters 30 --chaos
step suite2 0 150 env PCCL_ALGO=twoshot ./pccl-gpu-test --gpus 2 --quick
echo "== all done at $((SECONDS - T0)) s" >> $S
