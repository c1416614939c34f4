#!/bin/bash
# Call 6 (2 H200s, 2026-11-29): the placement by id against nccl-tests in bfloat16 sum (all-reduce,
# reduce-scatter, reduce; the ring collectives on groups of blocks too), as results/x2-h200 call 1 and
# results/offset-h200 call 3 ran it before.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/slowmode-x2/run6.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=150
step vs2-bf16 0 140 ./perf-vs-nccl-tests --gpus 2 --out "$O/vs2-bf16" --nccl-tests nt --bin ./pccl-perf \
    --colls all_reduce,reduce_scatter,reduce -b 8 -e 1G -f 4 -n 50 -w 10 -d bfloat16
[ -d "$O/vs2-bf16" ] && (cd "$O" && tar czf vs2-bf16.tar.gz vs2-bf16 && rm -rf vs2-bf16)
call_end
