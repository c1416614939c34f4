#!/bin/bash
# Call 17 (2 H200s): block 0 looks ahead (lib/scheduler.h, pccl_look_ahead: one look at the host's SQ
# per pick of a collective on several blocks, while the movers move its first step; such a
# collective's completion posted at once). pccl-perf is this checkout's build, pccl-perf-base main
# c0adaaf's. (Call 16 ran a build that handed every listed invocation on again after each step and
# hung: 0 results, not kept.) A 15 s smoke run first (the call stops if it fails); 16 MiB with the
# slice and without, two interleaved rounds; 8-64 MiB one round; sweeps 8 B-128 MiB back to back and
# round trip, one round each; then a data check of every collective and size, both timings.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -n 16000 -w 500 -c 0 -T 30"
timeout 15 ./pccl-perf $P -b 16M -e 16M -n 2000 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
for i in 1 2; do
  for b in pccl-perf pccl-perf-base; do
    t timeout 20 ./$b $P -b 16M -e 16M
    t timeout 20 env PCCL_SLICE_US=0 ./$b $P -b 16M -e 16M
  done
done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
for s in 8M 32M 64M; do
  for b in pccl-perf pccl-perf-base; do
    t timeout 20 ./$b $P -b $s -e $s -n 8000
    t timeout 20 env PCCL_SLICE_US=0 ./$b $P -b $s -e $s -n 8000
  done
done
echo "== (2) done at $((SECONDS - T0)) s" >> $S
W="-g 2 --lib pccl --coll all_reduce -b 8 -e 128M -f 4 -n 1000 -w 50 -c 0 --timing all -T 60"
for b in pccl-perf pccl-perf-base; do
  t timeout 60 ./$b $W
  t timeout 60 env PCCL_SLICE_US=0 ./$b $W
done
echo "== (3) done at $((SECONDS - T0)) s" >> $S
BUDGET=330 step check 0 60 ./pccl-perf -g 2 --lib pccl --coll all -b 8 -e 64M -f 8 -n 10 -w 2 -c 10 --timing all -T 50
call_end
