#!/bin/bash
# Issue 16 on 2 H200s (NV18): the five collectives against nccl-tests in one run, back to back and
# round trip (-n 50 -w 10); the overlap with a GEMM (scripts/perf --interfere-only); compute-sanitizer
# memcheck and racecheck on 2 GPUs.
set -u
export NCCL_NVLS_ENABLE=0
d=$(pwd)/.dev/gpu2b; cd $d
O=$OUT/gpu2b; mkdir -p $O; S=$O/summary.txt; L=$O/log.txt
{ nvidia-smi -L; cat COMMIT; } > $S
T0=$SECONDS
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  [ $((SECONDS - T0 + lim)) -gt ${BUDGET:-560} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc, $((SECONDS-t0)) s: $*" >> $S; }
step perf-vs-nccl-tests 280 ./perf-vs-nccl-tests --gpus 2 --out $O/vs --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
step overlap 150 ./perf --gpus 2 --interfere-only --out $O/overlap --bin ./pccl-perf
step memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-deadlock --gpus 2 --iters 2
step racecheck 60 compute-sanitizer --tool racecheck --error-exitcode 9 ./pccl-deadlock --gpus 2 --iters 1
grep -E "^RESULT|ERROR SUMMARY|agree" $L | head -30 >> $S
echo "== total $((SECONDS - T0)) s" >> $S
(cd $O && tar czf vs.tgz vs overlap 2>/dev/null && rm -rf vs overlap)
gzip -9 $L
