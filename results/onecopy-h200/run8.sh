#!/bin/bash
# Call 8 (one H200): one thread at a time queries the copies' events (g_copied's token). pccl-perf round
# trip and back to back, the copy from 2 MiB against the daemon, 2-512 MiB by 4, twice; nccl-tests beside
# (-z 0 and -z 1).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/oc
. ./call.sh
call_begin d
for r in 1 2; do
  t timeout 60 ./nt/all_reduce_perf -g 1 -b 2M -e 512M -f 4 -n 200 -w 20 -c 0 -z 0
  t timeout 60 ./nt/all_reduce_perf -g 1 -b 2M -e 512M -f 4 -n 200 -w 20 -c 0 -z 1
  for v in 2M 0; do
    for tm in rt b2b; do
      t timeout 60 env PCCL_ONE_RANK_COPY_BYTES=$v ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 2M -e 512M -f 4 -n 200 -w 20 -c 0 --timing $tm
    done
  done
done
call_end
