#!/bin/bash
# Call 17 (4 H200s, 2026-11-29): the final block rule (results/tune-x4; one block to 2 KiB only for the
# direct all-reduce on 3+ ranks, call 16 having shown the ring collectives lose by it): the GPU suite
# with the sanitizers on 4 GPUs (scripts/test-gpu --sanitize, ITERS=100), then the five collectives at
# 2-16 KiB and 512 KiB-2 MiB against 7bb45fd's build (pccl-perf-base) as far as the budget goes.
# Staged by `VARIANTS=base bash results/x2-h200/stage.sh`.
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x2 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=560
(cd ../.. && step test-gpu 0 360 env ITERS=100 scripts/test-gpu --sanitize --report "$O/pccl-gpu.md")
for r in 1 2; do
  for b in pccl-perf-base pccl-perf; do
    [ $((SECONDS - T0)) -gt 530 ] && break 2
    t ./$b -g 4 --lib pccl --coll all -n 100 -w 20 -c 0 --timing all -b 2K -e 16K -f 2
    t ./$b -g 4 --lib pccl --coll all -n 100 -w 20 -c 0 --timing all -b 512K -e 2M -f 2
  done
done
call_end
