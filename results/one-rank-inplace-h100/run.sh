#!/bin/bash
# Issue 16, one rank in place: a copy onto itself moves nothing (scheduler.h, pccl_fill). One H100: the GPU
# suite on one rank; all-reduce 8 B-128 MiB both timings against nccl-tests -g 1, twice; all_gather and
# broadcast in place too.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/ip; O=$OUT/ip; mkdir -p $O; C=$O/runs.txt
nvidia-smi -L > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
t timeout 100 ./pccl-gpu-test --gpus 1
for i in 1 2; do
  t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 200 -w 20 -z 0
  t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 200 -w 20 -z 1
  t timeout 90 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 200 -w 20 --timing all --check-max 16M -T 30
done
t timeout 90 ./pccl-perf -g 1 --lib pccl --coll all_gather,broadcast -b 2M -e 128M -f 8 -n 200 -w 20 --timing all --check-max 16M -T 30
grep -E "^RESULT" $C >> $O/summary.txt
gzip -9 $C
