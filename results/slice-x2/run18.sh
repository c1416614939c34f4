#!/bin/bash
# Call 18 (2 H200s): the look-ahead build (call 17's): every all-reduce op and type at 128 KiB-8 MiB
# checked in both timings, random orders and chaos, pccl against nccl-tests on 2 GPUs, then
# scripts/test-gpu --sanitize (ITERS=100).
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x4 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
step check 0 90 ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 128K -e 8M -f 2 -n 3 -w 1 -c 1 -o all -d all --timing all
step random 0 40 ./pccl-deadlock --gpus 2 --iters 100
step chaos 0 40 ./pccl-deadlock --gpus 2 --iters 30 --chaos
step vs2 0 150 ./perf-vs-nccl-tests --gpus 2 --out $O/x/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
cp $O/x/vs2/vs-nccl-tests.txt $O/vs2-nccl-tests.txt
(cd $O && tar cJf x.tar.xz x && rm -rf x)
cd ../..
BUDGET=560 step test-gpu 0 300 env ITERS=100 scripts/test-gpu --sanitize --report $O/pccl-gpu.md
call_end
