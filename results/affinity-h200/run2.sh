#!/bin/bash
# Call 2: is the relaunch's launch call a matter of the vCPU it is made on?  ../launch-h200/probe.cu
# (the stand-in daemon, every launch path, gap 0 and 20 us) pinned to each vCPU in turn, twice; and
# pccl-perf (main 2b525bf) at 8 B back to back with the slice's log, pinned to each pair of vCPUs.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for r in 1 2; do for c in $(seq 0 15); do t timeout 30 taskset -c $c ./lprobe --iters 200; done; done
for r in 1 2; do for c in 0 2 4 6 8 10 12 14; do
  t timeout 30 taskset -c $c,$((c + 1)) env PCCL_SLICE_US=4000 PCCL_SLICE_LOG=$O/slice-cpu$c-$r.csv ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 80000 -w 500 -c 0 --timing b2b -T 30
done; done
(cd $O && tar czf slice.tgz slice-*.csv && rm -f slice-*.csv)
call_end
