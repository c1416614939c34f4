#!/bin/bash
# Call 4 (one H200, the machine of call 3 still warm): call 3 again, longer and more often (its sweeps
# ran 1-2 s each): -n 100000 (about 5x as many invocations per size), six interleaved rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 100000 -w 50 --iter-bytes 64G --check-max 16M -T 20"
for i in 1 2 3 4 5 6; do
  for s in "" PCCL_SLICE_US=0 PCCL_SLICE_US=60000000; do
    t timeout 25 env $s ./pccl-perf $P
  done
done
t timeout 20 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 2000 -w 50
cp $C $O/perf.txt
call_end
