#!/bin/bash
# Call 23 (2 H200s): where the other half of the slice's cost goes (call 22: relaunched launches ran
# ~2% slower than the slice-off run's one long launch). 8 MiB and 8 B all-reduce back to back, slice on
# and off, every completion's time (--pccl-times) and every relaunch (PCCL_SLICE_LOG), two rounds:
# the pace against the time since the relaunch.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
timeout 15 ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
P="-g 2 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30"
for i in 1 2; do
  for s in "8M -n 20000" "8 -n 50000"; do
    n=${s%% *}
    t timeout 20 env PCCL_SLICE_US=0 ./pccl-perf $P -b $n -e $s --pccl-times $O/x/t-off-$i-$n.csv
    t timeout 20 env PCCL_SLICE_LOG=$O/x/s-on-$i-$n.csv ./pccl-perf $P -b $n -e $s --pccl-times $O/x/t-on-$i-$n.csv
  done
done
(cd $O && tar cJf x.tar.xz x && rm -rf x)
call_end
