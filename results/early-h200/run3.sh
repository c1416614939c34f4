#!/bin/bash
# Call 3 (one H200): the build with both slice fixes (the next grid point after an early end; a relaunch
# by pcclRun reads the ended launch first): scripts/test-gpu's one-GPU part (ITERS=30), then round trips
# at 8 B and 2 MiB, 2 ranks sharing the GPU, with the relaunch split (how many on the grid).
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x2 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x2
. ./call.sh
call_begin d
(cd ../.. && step test-gpu 0 300 env ITERS=30 scripts/test-gpu --report "$O/pccl-gpu.md")
for b in 8 2M; do
  t ./pccl-perf --share-gpu -g 2 --lib pccl --coll all_reduce -b $b -e $b -n 20000 -w 100 -c 0 --timing rt
done
call_end
