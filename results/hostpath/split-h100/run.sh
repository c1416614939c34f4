#!/bin/bash
# Where block 0's time goes per small all-reduce, back to back and round trip (PCCL_PROFILE via --split), plus the trace.
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")"; O=$OUT/split; mkdir -p $O; L=$O/split.txt
t() { echo "== $*" >> $L; timeout 40 "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
t env CUDA_VISIBLE_DEVICES=0 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8K -f 4 -n 500 -w 50 -c 1 --split --timing b2b
t env CUDA_VISIBLE_DEVICES=0 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8K -f 4 -n 500 -w 50 -c 1 --split --timing rt
t env CUDA_VISIBLE_DEVICES=0 PCCL_TRACE_LAT=1 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8K -f 4 -n 500 -w 50 -c 1 --timing all
t env CUDA_VISIBLE_DEVICES=0 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8K -f 4 -n 500 -w 50 -c 1 --timing b2b --pccl-depth 1
t env CUDA_VISIBLE_DEVICES=0 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8K -f 4 -n 500 -w 50 -c 1 --timing b2b --pccl-depth 16
