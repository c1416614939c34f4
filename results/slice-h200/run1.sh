#!/bin/bash
# Call 1 (4 H200s): main 28a63b7 as committed. (1) correctness on 4 GPUs and compute-sanitizer's
# racecheck/synccheck on GPU 0 (the final version of the looked-at-work rule, cut.h, never ran on a GPU);
# (2) where the slice's cost comes from: PCCL_SLICE_US off (0), 4000 (the default), 16000, and 60000000
# (a slice that never comes: the cut checks without relaunches), all-reduce back to back at 8 KiB and
# 2 MiB, on 2 and 4 GPUs, two rounds interleaved; (3) the build against nccl-tests on 4 GPUs.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
n=$(nvidia-smi -L | grep -c '^GPU')
CS="compute-sanitizer --error-exitcode 9"
step racecheck 0 120 env CUDA_VISIBLE_DEVICES=0 PCCL_BLOCKS=8 $CS --tool racecheck ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 1024 -n 2 -w 1 -c 1 --timing all -T 0
step synccheck 0 60 env CUDA_VISIBLE_DEVICES=0 $CS --tool synccheck ./pccl-perf -g 1 --lib pccl --coll all -b 8 -e 128M -f 64 -n 4 -w 1 -c 1 --timing all -T 0
step check-auto 0 90 ./pccl-perf -g $n --lib pccl --coll all -b 8 -e 4M -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
step random$n 0 40 ./pccl-deadlock --gpus $n --iters 100
step chaos$n 0 40 ./pccl-deadlock --gpus $n --iters 30 --chaos
step share$n 0 60 ./pccl-share --gpus $n
echo "== (1) done at $((SECONDS - T0)) s" >> $S
for i in 1 2; do for g in 2 $n; do for s in 0 4000 16000 60000000; do
  V=$(seq -s, 0 $((g - 1)))
  t timeout 30 env CUDA_VISIBLE_DEVICES=$V PCCL_SLICE_US=$s ./pccl-perf -g $g --lib pccl --coll all_reduce -b 8K -e 8K -n 100000 -w 500 -c 0 -T 30
  t timeout 30 env CUDA_VISIBLE_DEVICES=$V PCCL_SLICE_US=$s ./pccl-perf -g $g --lib pccl --coll all_reduce -b 2M -e 2M -n 40000 -w 200 -c 0 -T 30
done; done; done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
step vs$n 0 240 ./perf-vs-nccl-tests --gpus $n --out $O/vs$n --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
(cd $O && tar czf vs$n.tgz vs$n && cp vs$n/vs-nccl-tests.txt vs$n-nccl-tests.txt && rm -rf vs$n)
call_end
