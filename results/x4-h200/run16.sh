#!/bin/bash
# Call 16 (4 H200s, 2026-11-29): results/tune-x4's block rule (4 blocks from 2 KiB on 3+ ranks, 8 for
# Simple) against the build before it (pccl-perf-base, main 7bb45fd) for the five collectives at
# 2-16 KiB and 512 KiB-2 MiB, two rounds in turn; then main as ../x2-h200/ measured it on 2 GPUs, now on
# 4: the five collectives against nccl-tests (8 B-1 GiB by 4, -n 50, both timings, nccl-tests run
# again after pccl-perf: --again), the overlap with a GEMM, bfloat16 as far as the budget goes.
# Staged by `VARIANTS=base bash results/x2-h200/stage.sh` (.dev/variants/pccl-perf-base: 7bb45fd's
# build/gpu/pccl-perf); device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/x4-h200/run16.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=570
for r in 1 2; do
  for b in pccl-perf-base pccl-perf; do
    t ./$b -g 4 --lib pccl --coll all -n 100 -w 20 -c 0 --timing all -b 2K -e 16K -f 2
    t ./$b -g 4 --lib pccl --coll all -n 100 -w 20 -c 0 --timing all -b 512K -e 2M -f 2
  done
done
step vs4 0 240 ./perf-vs-nccl-tests --gpus 4 --out "$O/vs4" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10 --again
(cd "$O" && tar czf vs4.tar.gz vs4 && rm -rf vs4)
step overlap 0 120 ./pccl-perf -g 4 --interfere gemm --overlap -b 64M
step vs4-bf16 0 180 ./perf-vs-nccl-tests --gpus 4 --out "$O/vs4-bf16" --nccl-tests nt --bin ./pccl-perf \
    --colls all_reduce,reduce_scatter,reduce -b 8 -e 1G -f 4 -n 50 -w 10 -d bfloat16
[ -d "$O/vs4-bf16" ] && (cd "$O" && tar czf vs4-bf16.tar.gz vs4-bf16 && rm -rf vs4-bf16)
call_end
