#!/bin/bash
# Call 12 (4 H200s): a neighbour's wait read in invocation order (the older invocation first, then the
# lower id; scheduler.h, pccl_peer_waits) against call 11's build (id order; pccl-perf-v11) with
# PCCL_CROSS_POLLS at its default 64 and at 0 (never): five collectives at 32 and 128 MiB back to
# back, -n 100, slice on and off, two interleaved rounds; then the whole table against nccl-tests
# (perf-vs-nccl-tests --gpus 4), the GPU suite on 4 GPUs, the paper's random-order test and chaos.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
timeout 15 ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
L="-g 4 --lib pccl --coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 32M -e 128M -f 4 -n 100 -w 10 -c 0 --timing b2b -T 60"
for i in 1 2; do
  for s in 4000 0; do
    t timeout 60 env PCCL_SLICE_US=$s ./pccl-perf $L
    t timeout 60 env PCCL_SLICE_US=$s ./pccl-perf-v11 $L
    t timeout 60 env PCCL_SLICE_US=$s PCCL_CROSS_POLLS=0 ./pccl-perf-v11 $L
  done
done
echo "== large done at $((SECONDS - T0)) s" >> $S
step vs4 0 240 ./perf-vs-nccl-tests --gpus 4 --out $O/x/vs4 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
cp $O/x/vs4/vs-nccl-tests.txt $O/vs4-nccl-tests.txt
(cd $O && tar cJf x.tar.xz x && rm -rf x)
BUDGET=560 step random 0 40 ./pccl-deadlock --gpus 4 --iters 100
BUDGET=560 step chaos 0 40 ./pccl-deadlock --gpus 4 --iters 30 --chaos
BUDGET=560 step suite 0 150 ./pccl-gpu-test --gpus 4 --quick
call_end
