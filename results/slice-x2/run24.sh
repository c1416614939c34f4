#!/bin/bash
# Call 24 (2 H200s): the final build of this series (a neighbour's wait in invocation order, read
# from 1024 polls of a wait on, pccl_had on the GPU's completion flag): scripts/test-gpu --sanitize
# (the paper's deadlock tests on pccl and NCCL, chaos, one process per GPU, the suite, the sharing
# tests, compute-sanitizer's memcheck, racecheck and synccheck), then, time allowing, the table
# against nccl-tests on 2 GPUs.
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x4 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x4
. ./call.sh
call_begin d
cd ../..
timeout 15 .dev/x4/pccl-perf -g 2 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
BUDGET=330 step test-gpu 0 300 env ITERS=100 scripts/test-gpu --sanitize --report $O/pccl-gpu.md
cd .dev/x4
BUDGET=330 step vs2 0 130 ./perf-vs-nccl-tests --gpus 2 --out $O/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
[ -f $O/vs2/vs-nccl-tests.txt ] && cp $O/vs2/vs-nccl-tests.txt $O/vs2-nccl-tests.txt && rm -rf $O/vs2
call_end
