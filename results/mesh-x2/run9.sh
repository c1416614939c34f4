#!/bin/bash
# Call 9 (2 H200s): compute-sanitizer's racecheck and synccheck on the mesh's daemon (pccl_daemon_mesh,
# its own kernel since call 3; calls 1-8 ran memcheck only) and, beside it, on the default daemon:
# 4 ranks on 2 GPUs (--share-gpu=2), 8 blocks, all-reduce 8 B-8 MiB (LL and Simple steps, one and
# several loops), both timings, checked; then the mesh's initcheck.  Call 7's build (88f1f5f).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
O=$OUT/d; mkdir -p $O; S=$O/summary.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
step() { local name=$1 want=$2 lim=$3; shift 3; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-560} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $O/log.txt
  timeout -k 3 $lim "$@" >> $O/log.txt 2>&1; local rc=$?
  echo "== $name: exit $rc (want $want), $((SECONDS-t0)) s: $*" >> $S; }
SW="--share-gpu=2 -g 4 --lib pccl --coll all_reduce -b 8 -e 8M -f 64 -n 2 -w 1 -c 1 --timing all -T 0"
for a in oneshot twoshot auto; do
  step race-$a 0 110 env PCCL_ALGO=$a PCCL_BLOCKS=8 compute-sanitizer --error-exitcode 9 --tool racecheck ./pccl-perf $SW
done
for a in twoshot oneshot; do
  step sync-$a 0 80 env PCCL_ALGO=$a PCCL_BLOCKS=8 compute-sanitizer --error-exitcode 9 --tool synccheck ./pccl-perf $SW
done
step init-twoshot 0 80 env PCCL_ALGO=twoshot PCCL_BLOCKS=8 compute-sanitizer --error-exitcode 9 --tool initcheck ./pccl-perf $SW
echo "== all done at $((SECONDS - T0)) s" >> $S
