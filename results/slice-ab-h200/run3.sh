#!/bin/bash
# Call 3: does a launch's pace follow the SM its block 0 lands on?  pccl-perf with block 0's SM in the
# slice log (lib/slice.c's sm0 column; the working tree at 2b525bf + that column), 8 B back to back,
# 300000 iterations (~1 s, ~250 launches), the slice on, three processes; then the slice off once.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for k in 1 2 3; do
  t timeout 60 env PCCL_SLICE_LOG=$O/slice-$k.csv ./pccl-perf-sm -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 300000 -w 500 -c 0 --timing b2b -T 60
done
t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf-sm -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 300000 -w 500 -c 0 --timing b2b -T 60
(cd $O && tar czf slice.tgz slice-*.csv && rm -f slice-*.csv)
call_end
