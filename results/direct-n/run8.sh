#!/bin/bash
# Call 8 (4 GPUs): an LL collective on one block per 16 KiB (ll16; before: one per 512 KiB, at least 4),
# against this build (new), at every size it changes and around: 64-512 KiB by 2x (2 ranks: LL to 256
# KiB; 3-8 ranks: to 128 KiB), all-reduce, all-gather, reduce-scatter, round trip and back to back,
# three rounds, on 4 GPUs and on GPUs 0-1.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
n=$(nvidia-smi -L | grep -c '^GPU')
M="--lib pccl --coll all_reduce,all_gather,reduce_scatter -b 64K -e 512K -f 2 -n 300 -w 30 -c 0 --timing all -T 30"
for g in $n 2; do
  V=$(seq -s, 0 $((g - 1)))
  for i in 1 2 3; do for v in new ll16; do t timeout 60 env CUDA_VISIBLE_DEVICES=$V ./pccl-perf-$v -g $g $M; done; done
done
step check 0 60 ./pccl-perf-ll16 -g $n --lib pccl --coll all -b 64K -e 512K -f 2 -n 3 -w 1 -c 1 -o all --timing all
call_end
