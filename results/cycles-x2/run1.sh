#!/bin/bash
# Call 1 (2 H200s): the cut checks on the SM's cycle counter (lib/cut.h, "The check's clock") against
# the base (main 36b52e5, whose checks read the globaltimer each time): (a) a 15 s smoke run; (b) what a
# read of each clock costs (clockread, one and 132 blocks); (c) all-reduce back to back at 8 B and
# 8 KiB (-n 100000) and 8 MiB (-n 20000), slice off / 4 ms (default) / 60 s (checks without
# relaunches), this build and the base, three interleaved rounds; (d) the one-GPU table of CUDA calls
# that wait for the GPU while collectives stream (the bound); (e) the GPU suite on 2 GPUs and the
# paper's random-order test.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
timeout 15 ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
t ./clockread
P="-g 2 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30"
for i in 1 2 3; do
  for b in new base; do
    for m in 0 4000 60000000; do
      t timeout 30 env PCCL_SLICE_US=$m ./pccl-perf-$b $P -b 8 -e 8K -f 1024 -n 100000
      t timeout 30 env PCCL_SLICE_US=$m ./pccl-perf-$b $P -b 8M -e 8M -n 20000
    done
  done
done
echo "== (c) done at $((SECONDS - T0)) s" >> $S
BUDGET=560 step share 0 120 env CUDA_VISIBLE_DEVICES=0 ./pccl-share --reps 8 --lib pccl
BUDGET=560 step suite 0 150 ./pccl-gpu-test --gpus 2 --quick
BUDGET=560 step random 0 40 ./pccl-deadlock --gpus 2 --iters 100
call_end
