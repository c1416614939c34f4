#!/bin/bash
# Call 2 (one H200), the final build (in place, one look at the buffer: one cuPointerGetAttributes, not
# two): pccl-perf against nccl-tests, all five collectives, both timings (scripts/perf-vs-nccl-tests,
# its folder packed as vs.tgz: a call brings back 8 files at most); all-reduce in place one size a run,
# back to back and round trip, three runs each, nccl-tests beside; issue 22's table twice (pccl-share,
# collectives out of place); the one-GPU correctness suite.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
step vs 0 320 ./perf-vs-nccl-tests --gpus 1 --out vs --nccl-tests nt --bin ./pccl-perf-new -b 8 -e 1G -f 4 -n 50 -w 10
tar czf "$O/vs.tgz" vs
for r in 1 2 3; do
  for s in 8:80000 512M:2000; do
    for tm in b2b rt; do
      t timeout 30 ./pccl-perf-new -g 1 --lib pccl --coll all_reduce -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 \
        --timing $tm -T 30
    done
    [ $r -eq 1 ] && for z in 0 1; do
      t timeout 60 ./nt/all_reduce_perf -g 1 -b ${s%%:*} -e ${s%%:*} -n 2000 -w 500 -c 0 -z $z
    done
  done
done
t timeout 150 ./pccl-share --reps 16
t timeout 150 ./pccl-share --reps 16
step gpu-test 0 200 ./pccl-gpu-test --gpus 1 --quick
call_end
