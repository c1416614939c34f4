#!/bin/bash
# Issue 16, one rank: 1 MiB chunks by default on one GPU rank (register.c, ONE_RANK_CHUNK) and no connector
# arena. One H100: the GPU suite on one rank; pccl-share (the slice's bound); all-reduce 8 B-128 MiB both
# timings against nccl-tests -g 1, twice; the five collectives 2-128 MiB; 128 MiB slice off / on, 3 rounds.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/ck2; O=$OUT/ck2; mkdir -p $O; C=$O/runs.txt
nvidia-smi -L > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
t timeout 100 ./pccl-gpu-test --gpus 1
t timeout 60 ./pccl-share --reps 12
for i in 1 2; do
  t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 200 -w 20 -z 0
  t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 8 -n 200 -w 20 -z 1
  t timeout 90 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 200 -w 20 --timing all --check-max 16M -T 30
done
t timeout 90 ./pccl-perf -g 1 --lib pccl --coll all -b 2M -e 128M -f 8 -n 200 -w 20 --timing all --check-max 16M -T 30
for i in 1 2 3; do
  P="-g 1 --lib pccl --coll all_reduce -b 128M -e 128M -n 3000 -w 50 --check-max 16M -T 30"
  t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $P
  t timeout 60 ./pccl-perf $P
done
grep -E "^RESULT" $C >> $O/summary.txt
gzip -9 $C
