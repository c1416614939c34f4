#!/bin/bash
# Call 7 (one H200): why the copy path's round trip is slow (call 6: 16 MiB 32.7 us against the
# daemon's 25.9 and nccl-tests' ~20). probe2 --rt: the round trip of a bare copy waited for by its
# event (one thread querying, two), by cudaStreamSynchronize, by a stream write; pccl-perf round trip
# with the copy from 2 MiB, default and with waiters that sleep at once (PCCL_WAIT_SPIN_US=0: only the
# poller queries), and through the daemon; twice.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/oc
. ./call.sh
call_begin d
for r in 1 2; do
  t timeout 100 ./probe2 --rt -n 200
  for e in "PCCL_ONE_RANK_COPY_BYTES=2M" "PCCL_ONE_RANK_COPY_BYTES=2M PCCL_WAIT_SPIN_US=0" "PCCL_ONE_RANK_COPY_BYTES=0"; do
    t timeout 60 env $e ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 2M -e 512M -f 4 -n 200 -w 20 -c 0 --timing rt
  done
done
call_end
