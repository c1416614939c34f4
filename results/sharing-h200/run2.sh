#!/bin/bash
# Call 2 (one H200): the slice's cost on one GPU with rows long enough to hold many slices (call 1's
# sweep ran 200 iterations a size: under one slice up to 2 MiB): all-reduce back to back, one size a
# run, about 0.3 s of collectives each (70-80 slices), slice on (the defaults) and off
# (PCCL_SLICE_US=0), three interleaved rounds; nccl-tests' all_reduce_perf on the same sizes, one
# run each (-z 0, the same iteration counts).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
SZ="8:80000 32K:80000 2M:50000 32M:12000 512M:1000"
for r in 1 2 3; do
  for s in $SZ; do
    for us in 4000 0; do
      t timeout 30 env PCCL_SLICE_US=$us ./pccl-perf -g 1 --lib pccl --coll all_reduce -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 --timing b2b -T 30
    done
  done
done
for s in $SZ; do
  t timeout 30 ./nt/all_reduce_perf -g 1 -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 -z 0
done
call_end
