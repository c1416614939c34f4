#!/bin/bash
# Call 21 (4 H200s, 2026-11-29): (1) call 19's sweeps with PCCL_POLLER_STALL_US=40, so that a rank
# whose host side stands still says where its poller's time went (its callbacks and their pcclRun, the
# drain, the daemon's liveness and launches, the sleep): the quiet spells, and the 50-155 us stalls in
# each new comm's first rows (call 19's completions: every collective's first warm-up rows at 8-512 B
# out of place, and the reduce's first two timed rows); gaps.py as in call 19. (2) The round trip of
# large all-reduces (call 16: 128 MiB 655-668 us against 551 back to back; nccl-tests 642-644 and 613):
# pccl-perf with the slice off, larger chunks, more slots, fewer blocks; nccl-tests beside them.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/x4-h200/run21.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
for k in 1 2 3 4 5 6 7 8; do
  t env PCCL_POLLER_STALL_US=40 PCCL_SLICE_LOG=$O/t/log-$k.csv ./pccl-perf -g 4 --lib pccl \
      --coll all_reduce,reduce_scatter,reduce -d bfloat16 -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all --times $O/t/t-$k.csv
  t python3 ../../results/x4-h200/gaps.py $O/t/t-$k.csv $O/t/log-$k.csv
done
(cd $O && tar cf - t | xz -T8 > t.tar.xz && rm -rf t)
L="-g 4 --lib pccl --coll all_reduce -b 32M -e 512M -f 4 -n 20 -w 5 -c 0 --timing all"
for r in 1 2; do
  t ./pccl-perf $L
  t env PCCL_SLICE_US=0 ./pccl-perf $L
  t env PCCL_CHUNK_BYTES=1048576 ./pccl-perf $L
  t env PCCL_SLOTS=8 ./pccl-perf $L
  t env PCCL_BLOCKS=32 ./pccl-perf $L
  t env PCCL_INTERLEAVE=1 ./pccl-perf $L
  t env PCCL_CHUNK_BYTES=524288 PCCL_SLOTS=8 ./pccl-perf $L
  t nt/all_reduce_perf -b 32M -e 512M -f 4 -g 4 -n 20 -w 5 -c 0 -z 0
  t nt/all_reduce_perf -b 32M -e 512M -f 4 -g 4 -n 20 -w 5 -c 0 -z 1
done
call_end
