#!/bin/bash
# Call 10 (4 H200s): why the slice costs 5-30% at 128 MiB back to back on 4 GPUs (call 9: reduce-scatter
# 298-358 us with the 4 ms slice against 274-300 off, all-reduce 637-675 against 550-618; completions
# in bursts after the first relaunch, ~0.9 ms lost per relaunch where its own GPU time is ~0.1 ms).
# pccl-perf now prints each rank's scheduling counters per size (preemptions, crossed waits, launches,
# cuts). Reduce-scatter and all-reduce at 32 and 128 MiB, -n 100, two interleaved rounds of: the
# defaults, the slice off, one and two invocations in flight (--pccl-depth 1 / 2) with and without the
# slice, a 16 ms slice, and 32 blocks with and without the slice.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
timeout 15 ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
L="-g 4 --lib pccl --coll reduce_scatter,all_reduce -b 32M -e 128M -f 4 -n 100 -w 10 -c 0 --timing b2b -T 60"
for i in 1 2; do
  t timeout 60 env PCCL_SLICE_LOG=$O/x/s-def-$i.csv ./pccl-perf $L --pccl-times $O/x/t-def-$i.csv
  t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $L --pccl-times $O/x/t-off-$i.csv
  t timeout 60 ./pccl-perf $L --pccl-depth 1
  t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $L --pccl-depth 1
  t timeout 60 ./pccl-perf $L --pccl-depth 2
  t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $L --pccl-depth 2
  t timeout 60 env PCCL_SLICE_US=16000 ./pccl-perf $L
  t timeout 60 env PCCL_BLOCKS=32 ./pccl-perf $L
  t timeout 60 env PCCL_BLOCKS=32 PCCL_SLICE_US=0 ./pccl-perf $L
done
(cd $O && tar cJf x.tar.xz x && rm -rf x)
call_end
