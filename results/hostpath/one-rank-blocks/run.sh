#!/bin/bash
# Experiment (probe build of 2520136, tune.c reads PCCL_XONE_BLOCK_MAX): one rank, the largest all-reduce
# on one block, 8 KiB (main), 32 KiB, 128 KiB, 512 KiB; both timings, x2 interleaved; nccl-tests in the same call.
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/final6; O=$OUT/xone; mkdir -p $O; L=$O/log.txt
P="-g 1 --lib pccl --coll all_reduce -b 8K -e 2M -f 2 -n 500 -w 50 -c 1 --timing all"
r() { echo "== $* (at $SECONDS s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
for i in 1 2; do
  r timeout 60 ./pccl-perf-xone $P
  for m in 32768 131072 524288; do r env PCCL_XONE_BLOCK_MAX=$m timeout 60 ./pccl-perf-xone $P; done
done
r timeout 20 ./nt/all_reduce_perf -g 1 -b 8K -e 2M -f 2 -n 500 -w 50 -z 0
r timeout 20 ./nt/all_reduce_perf -g 1 -b 8K -e 2M -f 2 -n 500 -w 50 -z 1
r timeout 60 env PCCL_XONE_BLOCK_MAX=131072 ./pccl-perf-xone -g 1 --lib pccl --coll all -b 8K -e 2M -f 4 -n 200 -w 20 -c 1 --timing all
