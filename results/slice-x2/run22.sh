#!/bin/bash
# Call 22 (2 H200s): block 0 fetches what the host's SQ holds while a collective of its own waits
# (lib/scheduler.h, pccl_fetch_waiting), and the poller relaunches on the last block's end word in
# pinned memory (hdr->ended; call 21 measured both sights). pccl-perf is this checkout's build,
# pccl-perf-base call 21's (fcf2713 with the end word stamped, the stream query relaunching).
# (a) call 19's pccl-perf command, six interleaved rounds each build, PCCL_HANG_DUMP_MS=1 (a report
# after 1 ms without a completion with work outstanding): the stalls of calls 18-21; (b) the slice's
# cost at 8 B and 8 MiB back to back, two rounds; (c) pccl against nccl-tests on 2 GPUs; (d)
# scripts/test-gpu --sanitize (its suite now has the "behind a wait" case).
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x4 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
timeout 15 ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
W="--coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 8 -e 32M -f 4 -g 2 -n 50 -w 10 -c 1 --timing all -T 60"
for i in 1 2 3 4 5 6; do
  t timeout 60 env PCCL_HANG_DUMP_MS=1 ./pccl-perf $W
  t timeout 60 env PCCL_HANG_DUMP_MS=1 ./pccl-perf-base $W
done
echo "== (a) done at $((SECONDS - T0)) s" >> $S
P="-g 2 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30"
for i in 1 2; do
  for s in "8 -n 100000" "8M -n 20000"; do
    t timeout 20 env PCCL_SLICE_US=0 ./pccl-perf $P -b ${s%% *} -e $s
    t timeout 20 env PCCL_SLICE_LOG=$O/x/c-$i-${s%% *}.csv ./pccl-perf $P -b ${s%% *} -e $s
  done
done
echo "== (b) done at $((SECONDS - T0)) s" >> $S
step vs2 0 150 ./perf-vs-nccl-tests --gpus 2 --out $O/x/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
cp $O/x/vs2/vs-nccl-tests.txt $O/vs2-nccl-tests.txt
(cd $O && tar cJf x.tar.xz x && rm -rf x)
cd ../..
BUDGET=570 step test-gpu 0 300 env ITERS=100 scripts/test-gpu --sanitize --report $O/pccl-gpu.md
call_end
