#!/bin/bash
# Call 4 (one H200): call 3 again with the final poller (a pcclRun relaunch reads the ended launch only
# where the slice needs it): scripts/test-gpu's one-GPU part (ITERS=30) and the round trips at 8 B.
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x2 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x2
. ./call.sh
call_begin d
(cd ../.. && step test-gpu 0 300 env ITERS=30 scripts/test-gpu --report "$O/pccl-gpu.md")
t ./pccl-perf --share-gpu -g 2 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 100 -c 0 --timing rt
call_end
