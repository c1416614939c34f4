#!/bin/bash
# Call 7 (4 GPUs, the same kind as call 6): more blocks for medium sizes, which call 5 (2 H200s) found
# faster round trip (sb64: a Simple collective on one block per 64 KiB, against one per 512 KiB and at
# least 4) or faster both ways at 128 KiB (ll16: an LL collective on one block per 16 KiB, against 32
# KiB-512 KiB's 4), against this build (new): all-reduce, all-gather, reduce-scatter, 32 KiB-32 MiB,
# round trip and back to back, two rounds, on 4 GPUs and on GPUs 0-1; nccl-tests -t N -g 1 beside them.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
n=$(nvidia-smi -L | grep -c '^GPU')
M="--lib pccl --coll all_reduce,all_gather,reduce_scatter -b 32K -e 32M -f 4 -n 200 -w 20 -c 0 --timing all -T 30"
for g in $n 2; do
  V=$(seq -s, 0 $((g - 1)))
  for i in 1 2; do for v in new ll16 sb64; do t timeout 60 env CUDA_VISIBLE_DEVICES=$V ./pccl-perf-$v -g $g $M; done; done
  for c in all_reduce all_gather reduce_scatter; do for z in 0 1; do
    t timeout 60 env CUDA_VISIBLE_DEVICES=$V ./nt/${c}_perf -t $g -g 1 -b 32K -e 32M -f 4 -n 200 -w 20 -z $z
  done; done
done
call_end
