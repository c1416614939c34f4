#!/bin/bash
# Call 14 (4 H200s): call 13's build with a neighbour's wait read from 64 polls of a wait (the default),
# 256 and 1024 (PCCL_CROSS_POLLS): five collectives at 32 and 128 MiB back to back (-n 100, slice on,
# two rounds), the small all-reduce both ways (8 B-2 MiB, -n 2000), and the paper's random-order test,
# plain and with a device synchronization after each invocation, for each.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
timeout 15 ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
P="-g 4 --lib pccl --coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 32M -e 128M -f 4 -n 100 -w 10 -c 0 --timing b2b -T 60"
for i in 1 2; do
  for x in 64 256 1024; do
    t timeout 60 env PCCL_CROSS_POLLS=$x ./pccl-perf $P
  done
done
for x in 64 256 1024; do
  t timeout 60 env PCCL_CROSS_POLLS=$x ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 2M -f 16 -n 2000 -w 100 -c 0 --timing all -T 60
  t timeout 60 env PCCL_CROSS_POLLS=$x ./pccl-deadlock --gpus 4 --iters 100
  t timeout 60 env PCCL_CROSS_POLLS=$x ./pccl-deadlock --gpus 4 --iters 100 --sync
done
call_end
