#!/bin/bash
# Call 2 (one H200, 2026-11-29, main 9b79051): call 1's table again with the session's build (one
# rank's in-place invocations now complete on the host, results/noop-h200/; completions wake only
# their own waiters), 24 interleaved rounds a size for tighter intervals (on first in odd rounds,
# off first in even ones), no unaligned runs; nccl-tests' all_reduce_perf once per size.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
SZ="8:80000 32K:80000 512K:60000 2M:50000 8M:30000 32M:12000 128M:4000 512M:1000"
for r in $(seq 1 24); do
  order="4000 0"; [ $((r % 2)) -eq 0 ] && order="0 4000"
  for s in $SZ; do
    for us in $order; do
      t timeout 30 env PCCL_SLICE_US=$us ./pccl-perf -g 1 --lib pccl --coll all_reduce -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 --timing b2b -T 30
    done
  done
done
for s in $SZ; do
  t timeout 30 ./nt/all_reduce_perf -g 1 -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 -z 0
done
call_end
