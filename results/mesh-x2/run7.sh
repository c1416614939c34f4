#!/bin/bash
# Call 7 (2 H200s): call 6's runs on the build that loads the mesh's daemon only for communicators that
# map the mesh (its stack frame, 2136 bytes a thread against 1480, sized every kernel's stack once
# loaded), three rounds of the default path against main instead of six.  Call 6's text follows.
# Call 6 (2 H200s): call 5 again with the daemon every other communicator runs built from main's code
# paths (its job fields, gather primitive and step layout where main had them; -Xptxas -v 32/116 bytes of
# spills, as main); call 5 had it as main on 4 ranks, 0.45 us more daemon time on 2.  Call 5's text:
# call 4 again after its findings (the direct all-reduce's gather back in its own
# primitive, as in main: the mesh's reduction in its place cost 1.2 us of daemon time on 4 ranks; the
# mesh's pointers in 64 bytes of G and at the end of the host's communicator, whose fields keep their
# places within cache lines as in main).  Call 4's text follows: is the default path slower than main's?
# (1) main 4f27d99 (pccl-perf-base) and this build in turn (A B A B ...), six rounds each,
# 4 ranks on 2 GPUs and 2 GPUs, 8 B-32 KiB, -n 1000, both timings; (2) the latency split of both, 4 ranks
# on 2 GPUs; (3) the mesh with its copies' element size from the job (call 3: a table lookup in global
# memory in every copy): 4 ranks on 2 GPUs, auto / oneshot / twoshot, 8 B-4 MiB, two rounds; 2 GPUs and
# the split against direct; (4) exact, memcheck.  Staged by ../x2-h200/stage.sh (VARIANTS=base).
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
A="-b 8 -e 32K -f 4 -n 1000 -w 100 -c 0 --timing all -T 30"
for i in 1 2 3; do
  t timeout 60 env PCCL_ALGO=auto ./pccl-perf --share-gpu=2 -g 4 $P $A
  t timeout 60 ./pccl-perf-base --share-gpu=2 -g 4 $P $A
  t timeout 60 env PCCL_ALGO=auto ./pccl-perf -g 2 $P $A
  t timeout 60 ./pccl-perf-base -g 2 $P $A
done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
for i in 1 2; do
  t timeout 60 env PCCL_ALGO=auto ./pccl-perf --share-gpu=2 -g 4 $P --split -b 8 -e 32K -f 64 -n 2000 -w 100
  t timeout 60 ./pccl-perf-base --share-gpu=2 -g 4 $P --split -b 8 -e 32K -f 64 -n 2000 -w 100
  t timeout 60 env PCCL_ALGO=auto ./pccl-perf -g 2 $P --split -b 8 -e 32K -f 64 -n 2000 -w 100
  t timeout 60 ./pccl-perf-base -g 2 $P --split -b 8 -e 32K -f 64 -n 2000 -w 100
done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
M="-b 8 -e 4M -f 4 -n 300 -w 30 -c 0 --timing all -T 30"
for i in 1 2; do
  for a in auto oneshot twoshot; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 4 $P $M; done
done
for a in oneshot twoshot; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf -g 2 $P $M; done
for a in direct oneshot; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf -g 2 $P --split -b 8 -e 512K -f 64 -n 2000 -w 100; done
t timeout 60 env PCCL_ALGO=oneshot ./pccl-perf --share-gpu=2 -g 4 $P --split -b 8 -e 512K -f 64 -n 2000 -w 100
echo "== (3) done at $((SECONDS - T0)) s" >> $S
for a in oneshot twoshot; do
  step check4-$a 0 90 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 4 $P -b 8 -e 4M -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
  step check3-$a 0 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 3 $P -b 8 -e 1M -f 8 -n 3 -w 1 -c 1 -o sum,max -d float,half,int8
done
step memcheck4-two 0 100 env PCCL_ALGO=twoshot compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf --share-gpu=2 -g 4 $P -b 8 -e 1M -f 32 -n 3 -w 1 -c 1 -d float,half
step random2 0 60 env PCCL_ALGO=oneshot ./pccl-deadlock --gpus 2 --iters 100
echo "== all done at $((SECONDS - T0)) s" >> $S
