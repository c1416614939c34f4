#!/bin/bash
# Call 1 (4 GPUs): where a round trip loses to back to back at 8-512 MiB (claimed groups per block:
# g4, g8 against this build, new) and at 256 KiB-4 MiB (sb256: one Simple block per 256 KiB), three
# rounds, every collective, both timings; the slice off (new, PCCL_SLICE_US=0) beside; nccl-tests in
# the same lease; the variants checked.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
n=$(nvidia-smi -L | grep -c '^GPU')
L="--lib pccl --coll all -b 8M -e 512M -f 4 -n 40 -w 8 -c 0 --timing all -T 60"
M="--lib pccl --coll all -b 256K -e 4M -f 2 -n 300 -w 30 -c 0 --timing all -T 60"
for i in 1 2 3; do
  for v in new g4 g8; do t timeout 120 ./pccl-perf-$v -g $n $L; done
  t timeout 120 env PCCL_SLICE_US=0 ./pccl-perf-new -g $n $L
  for v in new sb256; do t timeout 120 ./pccl-perf-$v -g $n $M; done
done
for i in 1 2; do for v in new g4 g8; do t timeout 120 env CUDA_VISIBLE_DEVICES=0,1 ./pccl-perf-$v -g 2 $L; done; done
for c in all_reduce all_gather reduce_scatter reduce broadcast; do
  for z in 0 1; do
    t timeout 120 ./nt/${c}_perf -t $n -g 1 -b 256K -e 512M -f 2 -n 50 -w 10 -z $z
    t timeout 120 ./nt/${c}_perf -g $n -b 256K -e 512M -f 2 -n 50 -w 10 -z $z
  done
done
for v in g4 g8 sb256; do step check-$v 0 90 ./pccl-perf-$v -g $n --lib pccl --coll all -b 256K -e 512M -f 4 -n 2 -w 1 -c 1 --timing all; done
call_end
