#!/bin/bash
# Call 3 (one H200): where the slice's 2.2% at 512 MiB in place goes.  main 3926ca0's pccl-perf
# (pccl-perf-base), all-reduce back to back at 512 MiB, one rank: every completion's time
# (--pccl-times, the host's clock) and every relaunch (PCCL_SLICE_LOG) with the slice on (4 ms), the
# same times with it off and with a slice that never comes (60 s: the checks alone); then on/off at
# 4, 8 and 16 ms, three rounds, for how the cost scales with the slice.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/s
O=$OUT/d; mkdir -p $O; C=$O/runs.txt
nvidia-smi -L > $O/summary.txt
P="./pccl-perf-base -g 1 --lib pccl --coll all_reduce -b 512M -e 512M -n 1000 -w 100 -c 0 --timing b2b -T 30"
for us in 4000 0 60000000; do
  echo "== times slice $us" >> $C
  env PCCL_SLICE_US=$us PCCL_SLICE_LOG=$O/slice-$us.csv timeout 30 $P --pccl-times $O/times-$us.csv >> $C 2>&1
  echo "== exit $?" >> $C
done
for r in 1 2 3; do
  for us in 0 4000 8000 16000 60000000; do
    echo "== round $r build base slice $us size 512M" >> $C
    env PCCL_SLICE_US=$us timeout 30 $P >> $C 2>&1
    echo "== exit $?" >> $C
  done
done
grep -c "== exit 0" $C >> $O/summary.txt
gzip -9 $C $O/times-*.csv
