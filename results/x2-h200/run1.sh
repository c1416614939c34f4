#!/bin/bash
# Call 1 (2 H200s; prepared, not yet run): main with the daemon's arithmetic by CUDA's conversions and avg's division (lib/gpu/ops.cuh), the
# first multi-GPU lease since c1d926b (since then: one rank's copies, the 6 ms slice, completions that
# wake only their waiters): the five collectives against nccl-tests (8 B-1 GiB by 4, -n 50, both
# timings); bfloat16 all-reduce, reduce-scatter and reduce against nccl-tests (-d bfloat16); scripts/test-gpu
# --sanitize (every step, ITERS=100); the overlap with a GEMM on 2 GPUs (fixed work, both libraries).
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x2 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=570
step vs2 0 200 ./perf-vs-nccl-tests --gpus 2 --out "$O/vs2" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
(cd "$O" && tar czf vs2.tar.gz vs2 && rm -rf vs2)
step vs2-bf16 0 150 ./perf-vs-nccl-tests --gpus 2 --out "$O/vs2-bf16" --nccl-tests nt --bin ./pccl-perf \
    --colls all_reduce,reduce_scatter,reduce -b 8 -e 1G -f 4 -n 50 -w 10 -d bfloat16
(cd "$O" && tar czf vs2-bf16.tar.gz vs2-bf16 && rm -rf vs2-bf16)
(cd ../.. && step test-gpu 0 300 env ITERS=100 scripts/test-gpu --sanitize --report "$O/pccl-gpu.md")
step overlap 0 120 ./pccl-perf -g 2 --interfere gemm --overlap -b 64M
call_end
