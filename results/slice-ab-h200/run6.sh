#!/bin/bash
# Call 6: the pace of completions by their place on the host clock's 4 ms grid (grid.py, 10 us bins), 8 B
# back to back, 600000 iterations, the slice on (its ends on that grid) and off, two processes each.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for k in on1 off1 on2 off2; do
  us=4000; case $k in off*) us=0 ;; esac
  t timeout 60 env PCCL_SLICE_US=$us ./pccl-perf-sm -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 600000 -w 500 -c 0 --timing b2b -T 60 --pccl-times $O/times-$k.csv
  python3 grid.py $O/times-$k.csv > $O/grid-$k.txt
  rm -f $O/times-$k.csv
done
call_end
