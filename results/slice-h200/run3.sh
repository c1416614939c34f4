#!/bin/bash
# Call 3 (one H200; the 4-GPU kind asked for first was no longer lent): issue 22's cost table with
# call 2's build, the slice on (defaults) against off (PCCL_SLICE_US=0) and against a slice that never
# comes (PCCL_SLICE_US=60000000: the cut checks without relaunches), three interleaved rounds, and
# nccl-tests' all_reduce_perf -g 1 beside them; scripts/share-cost perf.txt prints the table.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 20"
for i in 1 2 3; do
  for s in "" PCCL_SLICE_US=0 PCCL_SLICE_US=60000000; do
    t timeout 25 env $s ./pccl-perf $P
  done
done
t timeout 20 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50
cp $C $O/perf.txt
call_end
