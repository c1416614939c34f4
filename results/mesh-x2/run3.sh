#!/bin/bash
# Call 3 (2 H200s): the mesh's steps in a daemon of their own (gpu/daemon_mesh.cu, launched for
# communicators that map the mesh); the daemon every other communicator runs spills as main's (32/116
# bytes, -Xptxas -v), and the direct all-reduce's gather is filled inline again (call 2: 0.3-0.8 us slower
# round trip at 8 B-128 KiB than main on the default path); the mesh's fill and post inline in its daemon.
# (1) this build against main 4f27d99 (pccl-perf-base), the default path (auto), 2 GPUs, three rounds
# in turn; (2) 4 ranks on 2 GPUs (--share-gpu=2), ring / auto / oneshot / twoshot, two rounds; (3) 2 GPUs,
# oneshot / twoshot, two rounds; (4) the latency split (--split, PCCL_PROFILE) of direct against
# oneshot on 2 GPUs and of auto against oneshot on 4 ranks; (5) exact again (every op and type), memcheck,
# the paper's random orders.  Staged by ../x2-h200/stage.sh (VARIANTS=base).
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
M="-b 8 -e 4M -f 4 -n 300 -w 30 -c 0 --timing all -T 30"
for i in 1 2 3 4; do
  t timeout 60 env PCCL_ALGO=auto ./pccl-perf -g 2 $P $M
  t timeout 60 ./pccl-perf-base -g 2 $P $M
done
for i in 1 2; do
  t timeout 60 env PCCL_ALGO=auto ./pccl-perf --share-gpu=2 -g 4 $P $M
  t timeout 60 env PCCL_ALGO=auto ./pccl-perf-base --share-gpu=2 -g 4 $P $M
done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
for i in 1 2; do
  for a in ring auto oneshot twoshot; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 4 $P $M; done
  for a in oneshot twoshot; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf -g 2 $P $M; done
done
echo "== (3) done at $((SECONDS - T0)) s" >> $S
for a in direct oneshot; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf -g 2 $P --split -b 8 -e 512K -f 64 -n 2000 -w 100; done
for a in auto oneshot; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 4 $P --split -b 8 -e 512K -f 64 -n 2000 -w 100; done
echo "== (4) done at $((SECONDS - T0)) s" >> $S
for a in oneshot twoshot; do
  step check4-$a 0 90 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 4 $P -b 8 -e 4M -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
  step check2-$a 0 60 env PCCL_ALGO=$a ./pccl-perf -g 2 $P -b 8 -e 4M -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
done
step memcheck4-two 0 100 env PCCL_ALGO=twoshot compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf --share-gpu=2 -g 4 $P -b 8 -e 1M -f 32 -n 3 -w 1 -c 1 -d float,half
step memcheck4-one 0 100 env PCCL_ALGO=oneshot compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf --share-gpu=2 -g 4 $P -b 8 -e 1M -f 32 -n 3 -w 1 -c 1 -d float,int8
step random2 0 60 env PCCL_ALGO=twoshot ./pccl-deadlock --gpus 2 --iters 100
step chaos2 0 60 env PCCL_ALGO=oneshot ./pccl-deadlock --gpus 2 --iters 30 --chaos
step suite2 0 150 env PCCL_ALGO=oneshot ./pccl-gpu-test --gpus 2 --quick
echo "== all done at $((SECONDS - T0)) s" >> $S
