#!/bin/bash
# Call 5 (2 GPUs): the build committed (call 4's, the gather's job fields set only for its step):
# correctness; 4 ranks, 2 on each GPU, auto against the ring; and where 2 ranks' round trip trails
# nccl-tests -t 2 (all-reduce 128-512 KiB, call 4): more blocks for LL (ll16: one per 16 KiB, against
# 32 KiB-512 KiB's 4) and for Simple (sb64: one per 64 KiB, against one per 512 KiB, at least 4), the
# ring and Simple forced, 32 KiB-32 MiB, two rounds; nccl-tests -t 2 -g 1 in the same lease.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
step check4 0 120 env PCCL_ALGO=direct ./pccl-perf --share-gpu=2 -g 4 --lib pccl --coll all_reduce -b 8 -e 64K -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
step check4-auto 0 90 ./pccl-perf --share-gpu=2 -g 4 --lib pccl --coll all -b 8 -e 1M -f 4 -n 5 -w 1 -c 1 -o all --timing all
step memcheck4 0 90 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf --share-gpu=2 -g 4 --lib pccl --coll all_reduce -b 8 -e 32K -f 4 -n 3 -w 1 -c 1 -d float,half
echo "== (1) done at $((SECONDS - T0)) s" >> $S
for a in ring auto; do
  t timeout 60 env PCCL_ALGO=$a ./pccl-perf --share-gpu=2 -g 4 --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 500 -w 50 -c 0 --timing all -T 30
done
M="-b 32K -e 32M -f 4 -n 200 -w 20 -c 0 --timing all -T 30"
for i in 1 2; do
  for v in new ll16 sb64; do t timeout 60 ./pccl-perf-$v -g 2 --lib pccl --coll all_reduce,all_gather,reduce_scatter $M; done
  for e in PCCL_ALGO=ring PCCL_PROTO=simple; do t timeout 60 env $e ./pccl-perf-new -g 2 --lib pccl --coll all_reduce -b 32K -e 2M -f 4 -n 200 -w 20 -c 0 --timing all -T 30; done
  for z in 1 0; do t timeout 60 ./nt/all_reduce_perf -t 2 -g 1 -b 32K -e 32M -f 4 -n 200 -w 20 -z $z; done
done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
step random2 0 40 ./pccl-deadlock --gpus 2 --iters 100
step chaos2 0 40 ./pccl-deadlock --gpus 2 --iters 30 --chaos
step gpu-test2 0 120 ./pccl-gpu-test --gpus 2
call_end
