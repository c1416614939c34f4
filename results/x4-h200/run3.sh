#!/bin/bash
# Calls 3-8 (4 H200s): the round-trip quiet spells (call 1: one in three runs on each build, an
# invocation left in a rank's SQ for 1 ms with its daemon running). The hang report now ends with the
# poller's last 16 passes (when each began, what it did) and the launch's end word. Eight runs of the
# 5-collective sweep with PCCL_HANG_DUMP_MS=1 (call 4: each report written at once, call 3's ranks interleaved line by line; call 5: a waiter spinning in pcclWait made the relaunch after a slice too, not kept; call 6: the poller stays awake near a slice's end with nothing outstanding; call 7: the same, the report naming the latest launch call; call 8: awake from 2 ms before the deadline).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
timeout 15 ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
W="--coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 8 -e 32M -f 4 -g 4 -n 50 -w 10 -c 1 --timing all -T 60"
for i in 1 2 3 4 5 6 7 8; do
  t timeout 60 env PCCL_HANG_DUMP_MS=1 ./pccl-perf $W
done
call_end
