#!/bin/bash
# Call 3 (one H200): a completion wakes only the threads asleep for its collective (or for all):
# this build (new) against main 0795a4d (base), all-reduce back to back, one rank and two ranks
# sharing the GPU (--share-gpu), eight interleaved rounds (the builds' order turning), round trip
# at 8 B as a control (its waiter spins, it sleeps not).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
for r in $(seq 1 8); do
  B="base new"; [ $((r % 2)) -eq 0 ] && B="new base"
  for b in $B; do
    for s in 8:80000 32K:80000 2M:20000; do
      t timeout 30 ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 \
        --timing b2b -T 30
    done
    t timeout 30 ./pccl-perf-$b -g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 8 -n 40000 -w 500 -c 0 \
      --timing b2b -T 30
    [ $r -le 4 ] && t timeout 30 ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 500 -c 0 \
      --timing rt -T 30
  done
done
call_end
