#!/bin/bash
# Call 17 (4 H200s; prepared 2026-11-29, not yet run): the GPU suite with the sanitizers on 4 GPUs
# (scripts/test-gpu --sanitize, ITERS=100), then half sum and bfloat16 avg against nccl-tests as far
# as the budget goes. Staged as call 16.
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x2 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=570
(cd ../.. && step test-gpu 0 330 env ITERS=100 scripts/test-gpu --sanitize --report "$O/pccl-gpu.md")
for v in "half sum" "bfloat16 avg"; do
  d=${v% *} op=${v#* }
  step vs4-$d-$op 0 110 ./perf-vs-nccl-tests --gpus 4 --out "$O/vs4-$d-$op" --nccl-tests nt --bin ./pccl-perf \
      --colls all_reduce,reduce_scatter,reduce -b 8 -e 1G -f 4 -n 50 -w 10 -d $d -o $op
  [ -d "$O/vs4-$d-$op" ] && (cd "$O" && tar czf vs4-$d-$op.tar.gz vs4-$d-$op && rm -rf vs4-$d-$op)
done
call_end
