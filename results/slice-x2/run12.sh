#!/bin/bash
# Call 12 (2 H200s): the build with the direct all-reduce to 2 MiB on 2 ranks (tune.c) through
# scripts/test-gpu --sanitize (ITERS=100): the paper's deadlock tests on pccl and NCCL, chaos, one
# process per GPU, the suite on 2 GPUs and in chaos mode, faults, the sharing tests, memcheck and
# racecheck of the deadlock test, and every one-GPU step.
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x4 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x4
. ./call.sh
call_begin d
cd ../..
BUDGET=330 step test-gpu 0 320 env ITERS=100 scripts/test-gpu --sanitize --report $O/pccl-gpu.md
call_end
