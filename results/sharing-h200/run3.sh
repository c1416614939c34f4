#!/bin/bash
# Call 3 (one H200): where call 2's 3.7-5.0% at 32 KiB goes (a relaunch is 1.4%): all-reduce back to
# back at 32 KiB and 8 B, slice on and off, every completion's time (--pccl-times) and every relaunch
# (PCCL_SLICE_LOG), two rounds: the pace against the time since the relaunch call (pace.py, run
# here: pace.txt; the times themselves are too large to bring back, the slice logs come in x.tar.xz).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
P="-g 1 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30 -n 80000"
for i in 1 2; do
  for n in 32K 8; do
    t timeout 20 env PCCL_SLICE_US=0 ./pccl-perf $P -b $n -e $n --pccl-times $O/x/t-off-$i-$n.csv
    t timeout 20 env PCCL_SLICE_LOG=$O/x/s-on-$i-$n.csv ./pccl-perf $P -b $n -e $n --pccl-times $O/x/t-on-$i-$n.csv
  done
done
for i in 1 2; do
  for n in 32K 8; do
    echo "== off, round $i, $n" >> $O/pace.txt; python3 ../../results/sharing-h200/pace.py $O/x/t-off-$i-$n.csv >> $O/pace.txt 2>&1
    echo "== on, round $i, $n" >> $O/pace.txt; python3 ../../results/sharing-h200/pace.py $O/x/t-on-$i-$n.csv $O/x/s-on-$i-$n.csv >> $O/pace.txt 2>&1
  done
done
(cd $O && tar cJf x.tar.xz x/s-* && rm -rf x)
call_end
