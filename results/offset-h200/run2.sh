#!/bin/bash
# Call 2 (2 H200s, 2026-11-29): call 1's sweeps still queued none of 38 relaunches ahead with 16761ef
# (the offset good from the second launch on: the first launch call 32-38 us, was 1.7-1.8 ms); this
# build with prints where the poller looks at the launch ahead, hands over to it, sees an end, and
# launches (pccl-perf-dbg2, dbg2.diff), over the float sweep.
# Staged by `VARIANTS=dbg2 bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/offset-h200/run2.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
t env DBG_AHEAD=1 PCCL_SLICE_LOG=$O/log.csv ./pccl-perf-dbg2 -g 2 --lib pccl --coll all_reduce,reduce_scatter,reduce -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all
t python3 ../../results/offset-h200/ahead.py $O/log.csv
call_end
