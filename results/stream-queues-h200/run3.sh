#!/bin/bash
# Call 3 (one H200): scripts/test-gpu --sanitize, whole, with the warning's build and the suite's new
# stream-ordered steps (pccl-stream: one rank; two processes sharing GPU 0, 8 streams: warned and hung
# with 8 queues, completed with 32 and with one stream as a framework uses it).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
cd ../..
mkdir -p build && ln -sfn ../.dev/x4 build/gpu
BUDGET=560 step test-gpu 0 420 env ITERS=100 scripts/test-gpu --sanitize --report $O/pccl-gpu.md
call_end
