#!/bin/bash
# Call 21 (4 H200s; prepared 2026-11-29, not yet run): call 19's sweeps with PCCL_POLLER_STALL_US=300,
# so that a rank whose host side stands still says where its poller's time went (its callbacks and
# their pcclRun, the drain, the daemon's liveness and launches, the sleep); gaps.py as in call 19.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/x4-h200/run21.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
for k in 1 2 3 4 5 6 7 8 9 10; do
  [ $((SECONDS - T0)) -gt 400 ] && break
  t env PCCL_POLLER_STALL_US=300 PCCL_SLICE_LOG=$O/t/log-$k.csv ./pccl-perf -g 4 --lib pccl \
      --coll all_reduce,reduce_scatter,reduce -d bfloat16 -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all --times $O/t/t-$k.csv
  t python3 ../../results/x4-h200/gaps.py $O/t/t-$k.csv $O/t/log-$k.csv
done
(cd $O && tar cf - t | xz -T8 > t.tar.xz && rm -rf t)
call_end
