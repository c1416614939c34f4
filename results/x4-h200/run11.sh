#!/bin/bash
# Call 11 (4 H200s): the preemption storms of call 10 (128 MiB back to back: 6,000-13,600
# preemptions per rank in 100 iterations, 70-80% of them "crossed", i.e. a wait that yielded because a
# ring neighbour's posted wait named a collective of lower id) against when a wait starts reading its
# neighbours' posts: PCCL_CROSS_POLLS=64 (the default: at its first look), 256, 1024, and 0 (never:
# the thresholds alone end waits). Five collectives at 32 and 128 MiB back to back, -n 100, slice on
# (and off for 64 and 0), two interleaved rounds; the small all-reduce (8 B-2 MiB, -n 2000) and the
# paper's random-order test (which crossing speeds up) for each value.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
timeout 15 ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
L="-g 4 --lib pccl --coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 32M -e 128M -f 4 -n 100 -w 10 -c 0 --timing b2b -T 60"
for i in 1 2; do
  for x in 64 256 1024 0; do
    t timeout 60 env PCCL_CROSS_POLLS=$x ./pccl-perf $L
  done
  for x in 64 0; do
    t timeout 60 env PCCL_CROSS_POLLS=$x PCCL_SLICE_US=0 ./pccl-perf $L
  done
done
echo "== large done at $((SECONDS - T0)) s" >> $S
for x in 64 256 1024 0; do
  t timeout 60 env PCCL_CROSS_POLLS=$x ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 2M -f 16 -n 2000 -w 100 -c 0 --timing all -T 60
  t timeout 60 env PCCL_CROSS_POLLS=$x ./pccl-deadlock --gpus 4 --iters 100
done
call_end
