#!/bin/bash
# Call 10 (2 H200s): where the direct all-reduce stops winning on 2 ranks (call 9: ahead of the ring
# in both timings up to 2 MiB, equal back to back at 2 MiB): 2-32 MiB, the tuner's choice (the ring)
# against PCCL_ALGO=direct, three interleaved rounds, nccl-tests -t 2 beside them.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -b 2M -e 32M -f 2 -n 1000 -w 20 -c 0 -T 20 --timing all"
for i in 1 2 3; do
  for v in PCCL_X=auto PCCL_ALGO=direct; do
    t timeout 30 env $v ./pccl-perf $P
  done
  t timeout 30 ./nt/all_reduce_perf -t 2 -g 1 -b 2M -e 32M -f 2 -n 1000 -w 20 -z 0
  t timeout 30 ./nt/all_reduce_perf -t 2 -g 1 -b 2M -e 32M -f 2 -n 1000 -w 20 -z 1
done
call_end
