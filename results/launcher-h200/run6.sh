#!/bin/bash
# Call 6 (2 H200s; not run yet: this session's device time was spent): whether relaunched launches run
# slower than a run's first launch (README, "What the 6 ms slice costs").  pccl-perf -g 2, 8 B back to
# back, a short warm-up (-w 100) so that the first launch lies in the timed part, every completion's
# time (--times) and every relaunch (PCCL_SLICE_LOG): a 6 ms slice, a 25 ms slice, no slice; twice;
# then pace.py on each (the first launch's pace against the relaunched ones', and the unsliced run's).
# Staged by bash results/x2-h200/stage.sh after make gpu; device command:
#   tar xJf .dev/x2.tar.xz -C .dev && bash results/launcher-h200/run6.sh
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
p="./pccl-perf --lib pccl --coll all_reduce -c 0 --timing b2b -g 2 -b 8 -e 8 -n 100000 -w 100"
for k in 1 2; do
  for s in 6000 25000; do
    t env PCCL_SLICE_US=$s PCCL_SLICE_LOG=$O/t/log-$s-$k.csv $p --times $O/t/t-$s-$k.csv
  done
  t env PCCL_SLICE_US=0 $p --times $O/t/t-0-$k.csv
  for s in 6000 25000; do
    t python3 ../../results/launcher-h200/pace.py $O/t/t-$s-$k.csv $O/t/log-$s-$k.csv $O/t/t-0-$k.csv
  done
done
(cd $O && tar cf - t/log-* | xz -T4 > logs.tar.xz && rm -rf t)
call_end
