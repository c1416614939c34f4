#!/bin/bash
# Call 19 (4 H200s, 2026-11-29): the quiet spells: call 16's bfloat16 sweep had two rows a stall took
# (reduce-scatter 32 KiB in place back to back 46.6 us a call against 8.7 out of place: about 1.9 ms
# in 50 calls; all-reduce 128 KiB in place round trip 85.8 against 45.7).  The same sweep, pccl alone,
# 8 B-8 MiB, six times, every completion's time (--times) and every relaunch after a slice
# (PCCL_SLICE_LOG); gaps.py finds the stalls and what the other ranks and the relaunches did meanwhile.
# Staged by `bash results/x2-h200/stage.sh`.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
for k in 1 2 3 4 5 6; do
  [ $((SECONDS - T0)) -gt 400 ] && break
  t env PCCL_SLICE_LOG=$O/t/log-$k.csv ./pccl-perf -g 4 --lib pccl --coll all_reduce,reduce_scatter,reduce -d bfloat16 \
      -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all --times $O/t/t-$k.csv
  t python3 ../../results/x4-h200/gaps.py $O/t/t-$k.csv $O/t/log-$k.csv
done
(cd $O && tar cf - t | xz -T8 > t.tar.xz && rm -rf t)
call_end
