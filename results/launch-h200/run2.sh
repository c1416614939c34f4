#!/bin/bash
# Call 2 (one H200): the relaunch's cost on three builds, slice on (the defaults, 4 ms) against off
# (PCCL_SLICE_US=0), eight interleaved rounds (the builds' and the settings' order turning), all-reduce
# back to back, one size a run: base (main 3926ca0), v1 (the poller spins without its lock near a
# slice's end and in the gap), v2 (v1 + the launch's saved state restored by the first warp's lanes);
# then each build once at 32 KiB with PCCL_SLICE_LOG, for the split.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/s
O=$OUT/d; mkdir -p $O; C=$O/runs.txt
nvidia-smi -L > $O/summary.txt
SZ="8:80000 32K:80000 512M:1000"
B="base v1 v2"
for r in $(seq 1 8); do
  for s in $SZ; do
    for b in $B; do
      order="4000 0"; [ $(((r + ${#b}) % 2)) -eq 0 ] && order="0 4000"
      for us in $order; do
        echo "== round $r build $b slice $us size ${s%%:*}" >> $C
        timeout 30 env PCCL_SLICE_US=$us ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 --timing b2b -T 30 >> $C 2>&1
        echo "== exit $?" >> $C
      done
    done
  done
  B="${B#* } ${B%% *}"
done
for b in base v1 v2; do
  PCCL_SLICE_LOG=$O/slice-$b.csv timeout 30 ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b 32K -e 32K -n 80000 -w 500 -c 0 --timing b2b -T 30 >> $O/log.txt 2>&1
done
./pccl-perf-v2 -g 1 --lib pccl --coll all -b 8 -e 64M -f 8 -n 20 -w 5 -c 1 > $O/check-v2.txt 2>&1; echo "check v2: exit $?" >> $O/summary.txt
grep -c "== exit 0" $C >> $O/summary.txt
gzip -9 $C
