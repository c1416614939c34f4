#!/bin/bash
# Call 23 (2 H200s, 2026-11-29; x4 no longer lent): call 22 on 2 GPUs, with a print in the slice's end bookkeeping too (on_end: the
# launch, its blocks, its call and the clock-offset sample), as to why call 21's relaunches after a slice on 4 GPUs mostly followed the
# end (a gap of PCCL_SLICE_GAP_US, 70-130 us dead) instead of being queued ahead (7-9 us): a build of
# this commit with prints (DBG_AHEAD=1) where the poller queues a launch ahead, hands over to it, sees
# an end, and relaunches after one (the build's diff: call23/dbg.diff), over the small sizes.
# Staged by `bash results/x2-h200/stage.sh` from that build; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/x4-h200/run23.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
for k in 1 2; do
  t env DBG_AHEAD=1 PCCL_SLICE_LOG=$O/log-$k.csv ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 8 -e 8K -f 4 -n 50 -w 10 -c 0 --timing all
done
t env DBG_AHEAD=1 PCCL_SLICE_LOG=$O/log-3.csv ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 8 -e 8 -n 2000 -w 10 -c 0 --timing b2b
call_end
