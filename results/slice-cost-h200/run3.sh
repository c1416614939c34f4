#!/bin/bash
# Call 3 (one H200, main 9b79051): where the slice's 2.8% at 8 B out of place (call 2) goes, as
# ../launch-h200/ call 3 did at 512 MiB: every completion's time (--pccl-times) and every relaunch
# (PCCL_SLICE_LOG) with the slice on (4 ms), off, and a slice that never comes (60 s: the checks
# alone), twice each in turn, at 8 B and 32 KiB.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
for r in 1 2; do
  for s in 8 32K; do
    for us in 4000 0 60000000; do
      t timeout 30 env PCCL_SLICE_US=$us PCCL_SLICE_LOG=$O/slice-$s-$us-$r.csv ./pccl-perf -g 1 --lib pccl \
        --coll all_reduce -b $s -e $s -n 80000 -w 500 -c 0 --timing b2b -T 30 --pccl-times $O/times-$s-$us-$r.csv
    done
  done
done
(cd $O && tar czf times.tgz times-*.csv slice-*.csv && rm -f times-*.csv slice-*.csv)
call_end
