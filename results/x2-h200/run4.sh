#!/bin/bash
# Call 4 (2 H200s): the other reductions against nccl-tests, as call 1 did bfloat16 sum: half sum and
# bfloat16 avg (the daemon's arithmetic of ../half-h200/, never set against NCCL on 2 GPUs), all-reduce,
# reduce-scatter and reduce, 8 B-1 GiB by 4, both timings.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=570
for v in "half sum" "bfloat16 avg"; do
  d=${v% *} op=${v#* }
  step vs2-$d-$op 0 200 ./perf-vs-nccl-tests --gpus 2 --out "$O/vs2-$d-$op" --nccl-tests nt --bin ./pccl-perf \
      --colls all_reduce,reduce_scatter,reduce -b 8 -e 1G -f 4 -n 50 -w 10 -d $d -o $op
  (cd "$O" && tar czf vs2-$d-$op.tar.gz vs2-$d-$op && rm -rf vs2-$d-$op)
done
call_end
