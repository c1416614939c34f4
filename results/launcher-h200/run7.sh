#!/bin/bash
# Call 7 (2 H200s, 2026-11-29): call 6 again with pace.py's means (the medians of call 6 cannot show a
# longer tail inside the relaunched launches): 8 B back to back, -w 100, every completion's time and
# every relaunch; a 6 ms, a 12 ms and no slice, three rounds in turn.
# Staged by bash results/x2-h200/stage.sh after make gpu; device command:
#   tar xJf .dev/x2.tar.xz -C .dev && bash results/launcher-h200/run7.sh
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
p="./pccl-perf --lib pccl --coll all_reduce -c 0 --timing b2b -g 2 -b 8 -e 8 -n 100000 -w 100"
for k in 1 2 3; do
  for s in 6000 12000; do
    t env PCCL_SLICE_US=$s PCCL_SLICE_LOG=$O/t/log-$s-$k.csv $p --times $O/t/t-$s-$k.csv
  done
  t env PCCL_SLICE_US=0 $p --times $O/t/t-0-$k.csv
  for s in 6000 12000; do
    t python3 ../../results/launcher-h200/pace.py $O/t/t-$s-$k.csv $O/t/log-$s-$k.csv $O/t/t-0-$k.csv
  done
  rm -f $O/t/t-*-$k.csv
done
(cd $O && tar cf - t/log-* | xz -T4 > logs.tar.xz && rm -rf t)
call_end
