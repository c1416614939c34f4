#!/bin/bash
# Call 5: the pace of completions around each relaunch (window.py), 8 B back to back, 300000
# iterations, three processes with the slice and two without (pccl-perf-sm: 2b525bf + the sm0 column).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for k in on1 off1 on2 on3 off2; do
  us=4000; case $k in off*) us=0 ;; esac
  t timeout 60 env PCCL_SLICE_US=$us PCCL_SLICE_LOG=$O/slice-$k.csv ./pccl-perf-sm -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 300000 -w 500 -c 0 --timing b2b -T 60 --pccl-times $O/times-$k.csv
  if [ $us = 0 ]; then python3 window.py $O/times-$k.csv > $O/window-$k.txt; else python3 window.py $O/times-$k.csv $O/slice-$k.csv > $O/window-$k.txt; fi
  rm -f $O/times-$k.csv
done
(cd $O && tar czf slice.tgz slice-*.csv && rm -f slice-*.csv)
call_end
