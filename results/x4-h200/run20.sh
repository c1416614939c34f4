#!/bin/bash
# Call 20 (4 H200s, 2026-11-29): half sum and bfloat16 avg against nccl-tests on 4 GPUs (all-reduce,
# reduce-scatter, reduce; call 16 had float and bfloat16 sum), build 5b80752 (92a61dd's library).
# Staged by `bash results/x2-h200/stage.sh`.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=280
for v in "half sum" "bfloat16 avg"; do
  d=${v% *} op=${v#* }
  step vs4-$d-$op 0 130 ./perf-vs-nccl-tests --gpus 4 --out "$O/vs4-$d-$op" --nccl-tests nt --bin ./pccl-perf \
      --colls all_reduce,reduce_scatter,reduce -b 8 -e 1G -f 4 -n 50 -w 10 -d $d -o $op
  [ -d "$O/vs4-$d-$op" ] && (cd "$O" && tar czf vs4-$d-$op.tar.gz vs4-$d-$op && rm -rf vs4-$d-$op)
done
call_end
