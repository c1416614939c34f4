#!/bin/bash
# Call 29 (2 H200s): is call 28's 8 MiB pattern the launch's age? Without the slice the out-of-place
# row runs first in the process's launch and was fast, the in-place row after it slow. All-reduce
# back to back at 8 MiB, slice off: as before (-w 500), with a long warm-up (-w 10000: the
# out-of-place row timed 0.3 s into its launch), and with PCCL_QUIT_US=100 (the daemon ends after
# 100 us idle, so the in-place row likely starts in a launch of its own); slice on as before; two
# interleaved rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -c 0 --timing b2b -T 30 -b 8M -e 8M -n 10000"
for i in 1 2; do
  t timeout 20 env PCCL_SLICE_US=0 ./pccl-perf $P -w 500
  t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf $P -w 10000
  t timeout 20 env PCCL_SLICE_US=0 PCCL_QUIT_US=100 ./pccl-perf $P -w 500
  t timeout 20 ./pccl-perf $P -w 500
done
call_end
