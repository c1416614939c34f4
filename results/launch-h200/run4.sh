#!/bin/bash
# Call 4 (one H200): the slice's cost by its length.  main 3926ca0's pccl-perf (pccl-perf-base),
# all-reduce back to back, one size a run, one rank; PCCL_SLICE_US 0 (off), 4000 (the default), 5000,
# 6000 and 60000000 (a slice that never comes: the checks alone), eight interleaved rounds, the
# settings' order reversed in even rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/s
O=$OUT/d; mkdir -p $O; C=$O/runs.txt
nvidia-smi -L > $O/summary.txt
SZ="8:80000 32K:80000 2M:50000 512M:2000"
for r in $(seq 1 8); do
  order="0 4000 5000 6000 60000000"; [ $((r % 2)) -eq 0 ] && order="60000000 6000 5000 4000 0"
  for s in $SZ; do
    for us in $order; do
      echo "== round $r build base slice $us size ${s%%:*}" >> $C
      timeout 30 env PCCL_SLICE_US=$us ./pccl-perf-base -g 1 --lib pccl --coll all_reduce -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 --timing b2b -T 30 >> $C 2>&1
      echo "== exit $?" >> $C
    done
  done
done
grep -c "== exit 0" $C >> $O/summary.txt
gzip -9 $C
