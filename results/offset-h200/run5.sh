#!/bin/bash
# Call 5 (2 H200s, 2026-11-29; no 4-GPU kind lent): call 21's 4-rank sweeps as near as 2 GPUs go, 4
# ranks two to a GPU (--share-gpu=2), base (b92b584) against this build (30b6d19's library) in turn,
# every relaunch after a slice logged; ahead.py over the logs.
# Staged by `VARIANTS=base bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/offset-h200/run5.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
S="--share-gpu=2 -g 4 --lib pccl --coll all_reduce,reduce_scatter,reduce -d bfloat16 -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all"
k=0
for b in pccl-perf-base pccl-perf pccl-perf pccl-perf-base; do
  k=$((k + 1))
  t env PCCL_SLICE_LOG=$O/t/$b-$k.csv ./$b $S
done
t python3 ../../results/offset-h200/ahead.py $O/t/pccl-perf-base-*.csv
t python3 ../../results/offset-h200/ahead.py $O/t/pccl-perf-[0-9]*.csv
(cd $O && tar cf - t | xz -T4 > t.tar.xz && rm -rf t)
call_end
