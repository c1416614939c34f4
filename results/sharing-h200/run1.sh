#!/bin/bash
# Call 1 (one H200): issue 22's table rerun with the final build (c1d926b): pccl-share --reps 16 with
# lazy loading (the default), with CUDA_MODULE_LOADING=EAGER and with the watch (PCCL_WATCH_US=100);
# then the cost: pccl-perf's all-reduce sweep 8 B-1 GiB, both timings, slice on (the defaults) and
# off (PCCL_SLICE_US=0), three interleaved rounds, and nccl-tests' all_reduce_perf on the same GPU,
# back to back (-z 0) and round trip (-z 1), two rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
for r in 1 2; do
  t timeout 60 ./pccl-share --reps 16
done
t timeout 60 env CUDA_MODULE_LOADING=EAGER ./pccl-share --reps 16
t timeout 60 env PCCL_WATCH_US=100 ./pccl-share --reps 16
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 1G -f 4 -n 200 -w 20 --iter-bytes 16G --check-max 64M -T 60 --timing all"
for r in 1 2 3; do
  t timeout 90 ./pccl-perf $P
  t timeout 90 env PCCL_SLICE_US=0 ./pccl-perf $P
  [ $r -le 2 ] && for z in 0 1; do t timeout 90 ./nt/all_reduce_perf -g 1 -b 8 -e 1G -f 4 -n 200 -w 20 -z $z; done
done
call_end
