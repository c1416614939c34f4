#!/bin/bash
# Call 5 (one H200): no look at the slice after a step that moves nothing (v3: one rank's in-place
# steps), against main 983ff9c (base; the library as 3926ca0), slice on (4 ms) and off, six
# interleaved rounds, the builds' and settings' order turning; all-reduce back to back, one size a
# run; then v3 with every collective checked.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/s
O=$OUT/d; mkdir -p $O; C=$O/runs.txt
nvidia-smi -L > $O/summary.txt
SZ="8:80000 8M:30000 32M:12000 512M:2000"
B="base v3"
for r in $(seq 1 6); do
  order="4000 0"; [ $((r % 2)) -eq 0 ] && order="0 4000"
  for s in $SZ; do
    for b in $B; do
      for us in $order; do
        echo "== round $r build $b slice $us size ${s%%:*}" >> $C
        timeout 30 env PCCL_SLICE_US=$us ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 --timing b2b -T 30 >> $C 2>&1
        echo "== exit $?" >> $C
      done
    done
  done
  B="${B#* } ${B%% *}"
done
./pccl-perf-v3 -g 1 --lib pccl --coll all -b 8 -e 64M -f 8 -n 20 -w 5 -c 1 > $O/check-v3.txt 2>&1; echo "check v3: exit $?" >> $O/summary.txt
grep -c "== exit 0" $C >> $O/summary.txt
gzip -9 $C
