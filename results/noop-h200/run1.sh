#!/bin/bash
# Call 1 (one H200): one rank's in-place invocations completed on the host (lib/run.c, moves_nothing;
# issue 16's one-rank in-place gap, issue 22's 512 MiB in-place row). pccl-perf against nccl-tests,
# all five collectives, both timings (scripts/perf-vs-nccl-tests); all-reduce one size a run, this
# build (new) against main 32cf985 (base), slice on (4 ms) and off, three rounds, nccl-tests beside;
# issue 22's table with pccl-share's collectives now out of place (in place, one rank, neither
# library gave the GPU any work); the one-GPU correctness suite.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
step vs 0 260 ./perf-vs-nccl-tests --gpus 1 --out "$O/vs" --nccl-tests nt --bin ./pccl-perf-new -b 8 -e 1G -f 8
for r in 1 2 3; do
  for s in 8:80000 32K:80000 512M:2000; do
    for b in base new; do
      order="4000 0"; [ $(((r + ${#b}) % 2)) -eq 0 ] && order="0 4000"
      for us in $order; do
        t timeout 30 env PCCL_SLICE_US=$us ./pccl-perf-$b -g 1 --lib pccl --coll all_reduce -b ${s%%:*} -e ${s%%:*} \
          -n ${s##*:} -w 500 -c 0 --timing b2b -T 30
      done
    done
    [ $r -eq 1 ] && t timeout 30 ./nt/all_reduce_perf -g 1 -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 -z 0
  done
done
t timeout 150 ./pccl-share --reps 16
step gpu-test 0 200 ./pccl-gpu-test --gpus 1 --quick
call_end
