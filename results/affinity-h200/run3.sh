#!/bin/bash
# Call 3: does the rank thread's spin in pcclWait (PCCL_WAIT_SPIN_US, 100 us by default; pccl-perf's
# back to back waits on copy 0's chain, woken at each of its completions) slow the poller's relaunch
# and the run?  8 B and 32 KiB back to back, slice 4 ms and off, wait spin 100 and 0 us, six rounds
# in turn, each run with the slice's log.  pccl-perf of main 2b525bf.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for r in 1 2 3 4 5 6; do for s in 8 32K; do for w in 100 0; do for us in 4000 0; do
  t timeout 30 env PCCL_WAIT_SPIN_US=$w PCCL_SLICE_US=$us PCCL_SLICE_LOG=$O/slice-$s-$w-$us-$r.csv ./pccl-perf -g 1 --lib pccl --coll all_reduce -b $s -e $s -n 80000 -w 500 -c 0 --timing b2b -T 30
done; done; done; done
(cd $O && tar czf slice.tgz slice-*.csv && rm -f slice-*.csv)
call_end
