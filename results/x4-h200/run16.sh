#!/bin/bash
# Call 16 (4 H200s; prepared 2026-11-29, not yet run): main as ../x2-h200/ measured it on 2 GPUs (1c138b6's
# library), now on 4: the five collectives against nccl-tests (8 B-1 GiB by 4, -n 50, both timings,
# nccl-tests run again after pccl-perf: --again),
# bfloat16 all-reduce, reduce-scatter and reduce against nccl-tests, the overlap with a GEMM.
# Staged by `bash results/x2-h200/stage.sh` (.dev/x2); device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/x4-h200/run16.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=570
step vs4 0 240 ./perf-vs-nccl-tests --gpus 4 --out "$O/vs4" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10 --again
(cd "$O" && tar czf vs4.tar.gz vs4 && rm -rf vs4)
step vs4-bf16 0 180 ./perf-vs-nccl-tests --gpus 4 --out "$O/vs4-bf16" --nccl-tests nt --bin ./pccl-perf \
    --colls all_reduce,reduce_scatter,reduce -b 8 -e 1G -f 4 -n 50 -w 10 -d bfloat16
(cd "$O" && tar czf vs4-bf16.tar.gz vs4-bf16 && rm -rf vs4-bf16)
step overlap 0 120 ./pccl-perf -g 4 --interfere gemm --overlap -b 64M
call_end
