#!/bin/bash
# Issue 16: the control warp hands invocations of more than 4 blocks on after a barrier (pccl-perf; fewer: the leader alone), against the leader alone
# with tails in shared memory (pccl-perf-ho) and main (pccl-perf-base); one rank, and two ranks sharing the GPU; the GPU suite.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/hw3; O=$OUT/hw3; mkdir -p $O; C=$O/runs.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
t timeout 120 ./pccl-gpu-test --gpus 1
t timeout 60 ./pccl-share --reps 12
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 4 -n 300 -w 20 -c 1 --check-max 16M --timing all -T 30"
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 4 -n 300 -w 20 -z 0
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 4 -n 300 -w 20 -z 1
for i in 1 2; do
  for v in base ho; do t timeout 60 ./pccl-perf-$v $P; done
  t timeout 60 ./pccl-perf $P
done
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 32K -e 32M -f 4 -n 200 -w 20 -c 1 --check-max 8M --timing all -T 30"
for i in 1 2; do
  t timeout 90 ./pccl-perf-base $S
  t timeout 90 ./pccl-perf $S
done
t timeout 60 env PCCL_TRACE_LAT=1 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 1M -e 64M -f 4 -n 200 -w 20 -c 0 --timing rt -T 30

O2=$OUT/hw3; CS=compute-sanitizer
for tool in synccheck memcheck; do
  timeout 100 $CS --tool $tool --error-exitcode 9 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 2M -f 8 -n 10 -w 2 -c 1 --timing all -T 60 > $O2/$tool.txt 2>&1; echo "$tool exit $?" >> $O2/san.txt
  tail -3 $O2/$tool.txt >> $O2/san.txt
done
gzip -9 $C
