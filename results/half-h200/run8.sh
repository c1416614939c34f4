#!/bin/bash
# Call 8 (one H200): compute-sanitizer on the build committed (627a42c's daemon): scripts/test-gpu
# --sanitize's one-GPU checks (memcheck of the one-rank suite, racecheck of one rank on 8 blocks,
# synccheck of every collective), then memcheck and racecheck of 2 ranks sharing the GPU over every
# type with avg and sum (the reductions and the dividing primitive; one rank reduces nothing).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
BUDGET=560
CS="compute-sanitizer --error-exitcode 9"
step memcheck-1 0 150 $CS --tool memcheck ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
step racecheck-1 0 120 env PCCL_BLOCKS=8 $CS --tool racecheck ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 1024 -n 2 -w 1 -c 1 --timing all -T 0
step synccheck-1 0 100 $CS --tool synccheck ./pccl-perf -g 1 --lib pccl --coll all -b 8 -e 128M -f 64 -n 4 -w 1 -c 1 --timing all -T 0
for o in avg sum; do
  step memcheck-2-$o 0 100 $CS --tool memcheck ./pccl-perf --share-gpu -g 2 --lib pccl --coll all_reduce,reduce_scatter -d all -o $o -b 8 -e 1M -f 64 -n 1 -w 0 -c 1 --timing b2b -T 0
done
step racecheck-2-avg 0 120 env PCCL_BLOCKS=8 $CS --tool racecheck ./pccl-perf --share-gpu -g 2 --lib pccl --coll all_reduce -d all -o avg -b 8 -e 1M -f 64 -n 1 -w 0 -c 1 --timing b2b -T 0
call_end
