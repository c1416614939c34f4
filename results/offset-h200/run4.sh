#!/bin/bash
# Call 4 (2 H200s, 2026-11-29): the GPU suite with the sanitizers on this build (the stack limit raised
# at init, the offset's sample at idle ends, a slice that ended idle relaunched by the next invocation):
# scripts/test-gpu --sanitize, ITERS=100 (its one-GPU part, then 2 GPUs: the deadlock tests, chaos,
# fault injection, the implicit synchronizations' bounds, compute-sanitizer).
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/offset-h200/run4.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x2 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=560
(cd ../.. && step test-gpu 0 450 env ITERS=100 scripts/test-gpu --sanitize --report "$O/pccl-gpu.md")
call_end
