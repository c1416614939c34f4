#!/bin/bash
# Call 27 (2 H200s): one GPU's relaunched launches keep the pace of one long launch
# (../sharing-h200/, calls 3-4); do two GPUs'? All-reduce back to back at 8 B and 8 MiB, slice off
# and on, rank 0's every completion (--pccl-times) and both ranks' relaunches (PCCL_SLICE_LOG), two
# rounds; ../sharing-h200/pace.py --tail and scripts/slice-log --ranks run here (pace.txt).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
cp ../../scripts/slice-log $O/x/ 2>/dev/null
P="-g 2 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30"
for i in 1 2; do
  for s in "8 -n 50000" "8M -n 10000"; do
    n=${s%% *}
    t timeout 20 env PCCL_SLICE_US=0 ./pccl-perf $P -b $n -e $s --pccl-times $O/x/t-off-$i-$n.csv
    t timeout 20 env PCCL_SLICE_LOG=$O/x/s-on-$i-$n.csv ./pccl-perf $P -b $n -e $s --pccl-times $O/x/t-on-$i-$n.csv
    { echo "== off, round $i, $n"; python3 ../../results/sharing-h200/pace.py --tail $O/x/t-off-$i-$n.csv
      echo "== on, round $i, $n"; python3 ../../results/sharing-h200/pace.py --tail $O/x/t-on-$i-$n.csv $O/x/s-on-$i-$n.csv
      bash ../../scripts/slice-log --ranks $O/x/s-on-$i-$n.csv; } >> $O/pace.txt 2>&1
  done
done
(cd $O && tar cJf x.tar.xz x/s-* && rm -rf x)
call_end
