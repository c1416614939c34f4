#!/bin/bash
# Call 2 (4 GPUs): the all-reduce's round trip at 32 KiB-4 MiB, where nccl-tests wins: LL against Simple
# (PCCL_PROTO=ll / simple against the tuner's pick), all-reduce, reduce-scatter and all-gather, both
# timings, three rounds on 4 GPUs, two on GPUs 0-1; where the time goes (--split) at 256 KiB and 1 MiB;
# LL checked at every size it is forced to.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
n=$(nvidia-smi -L | grep -c '^GPU')
A="--lib pccl --coll all_reduce,reduce_scatter,all_gather -b 32K -e 4M -f 2 -n 300 -w 30 -c 0 --timing all -T 60"
for i in 1 2 3; do
  for p in auto ll simple; do t timeout 120 env PCCL_PROTO=$p ./pccl-perf-new -g $n $A; done
done
for i in 1 2; do
  for p in auto ll; do t timeout 120 env PCCL_PROTO=$p CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-new -g 2 $A; done
done
for p in auto ll; do
  t timeout 120 env PCCL_PROTO=$p ./pccl-perf-new -g $n --lib pccl --coll all_reduce -b 256K -e 1M -f 4 -n 300 -w 30 --split
done
for i in 1 2; do
  for z in 0 1; do t timeout 120 ./nt/all_reduce_perf -t $n -g 1 -b 32K -e 4M -f 2 -n 300 -w 30 -z $z; done
done
step check-ll 0 90 env PCCL_PROTO=ll ./pccl-perf-new -g $n --lib pccl --coll all -b 32K -e 4M -f 4 -n 2 -w 1 -c 1 -o all --timing all
call_end
