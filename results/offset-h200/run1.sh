#!/bin/bash
# Call 1 (2 H200s, 2026-11-29): the launch ahead in pccl-perf's sweeps, before and after the offset's
# sample at every idle end (lib/slice.c, pccl_slice_sample_locked) and the stack preload
# (lib/gpu/daemon.cu): call 21 on 4 H200s queued 43 of 320 relaunches ahead.  Base (pccl-perf-base, the
# commit before) and this build in turn (A B B A), the float and bfloat16 sweeps with every relaunch
# logged, ahead.py over the logs; one run of pccl-perf-dbg (this build with a print of each launch end's
# call: dbg.diff) for the first launch call's length; then this build against nccl-tests on 2 GPUs.
# Staged by `VARIANTS="base dbg" bash results/x2-h200/stage.sh` (.dev/variants: pccl-perf-base built
# from the commit before, pccl-perf-dbg from this one with dbg.diff); device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/offset-h200/run1.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
S="-g 2 --lib pccl --coll all_reduce,reduce_scatter,reduce -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all"
k=0
for b in pccl-perf-base pccl-perf pccl-perf pccl-perf-base; do
  k=$((k + 1))
  t env PCCL_SLICE_LOG=$O/t/$b-$k.csv ./$b $S
  t env PCCL_SLICE_LOG=$O/t/$b-$k-bf16.csv ./$b $S -d bfloat16
done
t python3 ../../results/offset-h200/ahead.py $O/t/pccl-perf-base-*.csv
t python3 ../../results/offset-h200/ahead.py $O/t/pccl-perf-[0-9]*.csv
t env DBG_AHEAD=1 ./pccl-perf-dbg -g 2 --lib pccl --coll all_reduce -b 8 -e 8 -n 20000 -w 10 -c 0 --timing b2b
(cd $O && tar cf - t | xz -T4 > t.tar.xz && rm -rf t)
step vs2 0 240 ./perf-vs-nccl-tests --gpus 2 --out "$O/vs2" --nccl-tests nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10 --again
[ -d "$O/vs2" ] && (cd "$O" && tar czf vs2.tar.gz vs2 && rm -rf vs2)
call_end
