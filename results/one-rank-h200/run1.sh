#!/bin/bash
# Call 1 (one H200): where one rank's large collectives lose to nccl-tests (issue 16; 8 MiB-512 MiB
# out of place 0.63-0.88x in ../slice-cost-h200/): the daemon's phases per invocation (--split,
# PCCL_PROFILE), back to back with 1, 4 (the default) and 8 invocations in flight, and the daemon's
# grid at 32, 64 (the default) and 128 blocks (is a copy on 64 blocks bandwidth bound?).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="./pccl-perf -g 1 --lib pccl --coll all_reduce"
t timeout 60 $P -b 8 -e 512M -f 8 -n 200 -w 20 -c 0 --split
for s in 8M:30000 32M:12000 512M:1000; do
  for d in 1 4 8; do
    t timeout 60 $P -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 --timing b2b -T 30 --pccl-depth $d
  done
  for bl in 32 128; do
    t timeout 60 env PCCL_BLOCKS=$bl $P -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 --timing b2b -T 30
  done
  t timeout 30 ./nt/all_reduce_perf -g 1 -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 -z 0
done
call_end
