#!/bin/bash
# Call 18 (4 H200s, 2026-11-29): what call 17's scripts/test-gpu --sanitize did not reach in its 360 s
# (its steps from "correctness suite, chaos mode, 4 GPUs" on, the same commands as scripts/test-gpu
# runs them), on call 17's build (92a61dd); then call 17's unreached comparison: the five collectives
# at 2-16 KiB and 512 KiB-2 MiB against 7bb45fd's build (pccl-perf-base), two rounds.
# Staged by `VARIANTS=base bash results/x2-h200/stage.sh`.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=560
CS="compute-sanitizer --error-exitcode 9"
step chaos4 0 200 ./pccl-gpu-test --gpus 4 --chaos --quick
step direct-4on2 0 120 env PCCL_ALGO=direct ./pccl-perf --share-gpu=2 -g 4 --lib pccl --coll all_reduce -b 8 -e 64K -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all -T 60
step example4 0 60 ./pccl-example 4
step memcheck-suite1 0 200 $CS --tool memcheck ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
step memcheck-share2 0 120 $CS --tool memcheck ./pccl-multiproc --share 2 --iters 2
step racecheck-1rank 0 200 env PCCL_BLOCKS=8 $CS --tool racecheck ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 1024 -n 2 -w 1 -c 1 --timing all -T 0
step synccheck-1rank 0 150 $CS --tool synccheck ./pccl-perf -g 1 --lib pccl --coll all -b 8 -e 128M -f 64 -n 4 -w 1 -c 1 --timing all -T 0
step memcheck-deadlock2 0 120 $CS --tool memcheck ./pccl-deadlock --gpus 2 --iters 2
step racecheck-deadlock2 0 120 $CS --tool racecheck ./pccl-deadlock --gpus 2 --iters 1
for r in 1 2; do
  for b in pccl-perf-base pccl-perf; do
    [ $((SECONDS - T0)) -gt 500 ] && break 2
    t ./$b -g 4 --lib pccl --coll all -n 100 -w 20 -c 0 --timing all -b 2K -e 16K -f 2
    t ./$b -g 4 --lib pccl --coll all -n 100 -w 20 -c 0 --timing all -b 512K -e 2M -f 2
  done
done
call_end
