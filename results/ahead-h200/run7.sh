#!/bin/bash
# Call 7 (one GPU): where the 6 ms slice's ~1% at 8 B goes.  pccl-perf -g 1, 8 B all-reduce back to
# back, 300,000 a run, every completion's time (--times) with the slice (its relaunches logged,
# PCCL_SLICE_LOG) and without (PCCL_SLICE_US=0), twice each in turn; times.tar.xz holds the files,
# results/ahead-h200/lost.py reads them.  Staged by bash results/x2-h200/stage.sh; device command:
#   tar xJf .dev/x2.tar.xz -C .dev && bash results/ahead-h200/run7.sh
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/times
for k in 1 2; do
  t env PCCL_SLICE_LOG=$O/times/slog-on-$k.csv ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 300000 \
      -w 5000 -c 0 --timing b2b --times $O/times/t-on-$k.csv
  t env PCCL_SLICE_US=0 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 300000 -w 5000 -c 0 --timing b2b \
      --times $O/times/t-off-$k.csv
done
(cd $O && tar cf - times | xz -T4 > times.tar.xz && rm -rf times)
call_end
