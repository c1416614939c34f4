#!/bin/bash
# Call 3 (one H200; probe2 then stopped at wn, refused: see call 4): where the copy path's ~2.5 us a copy go (probe2: the completion signal's cost on
# the GPU and with the host waiting, three kinds of signal), twice; pccl-perf's copy path from 1 MiB
# (PCCL_ONE_RANK_COPY_BYTES=1M) against the daemon's (0), back to back, 1-512 MiB by factors of 2.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/oc
. ./call.sh
call_begin d
for r in 1 2; do
  t timeout 100 ./probe2 -n 200
  for v in 1M 0; do
    t timeout 60 env PCCL_ONE_RANK_COPY_BYTES=$v ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 1M -e 512M -f 2 -n 200 -w 20 -c 0 --timing b2b
  done
done
call_end
