#!/bin/bash
# Call 7 (2 H200s): block 0 fetches every SQ record that is there (the host's tail, sq_tail, read
# with each look: sq.h, pccl_fetch) and a pass ends after a collective on several blocks completes
# (scheduler.h, pass_end). Call 6: the 16 MiB record waited 230-250 us in the host's SQ, i.e. for
# the whole depth of 4, before block 0 fetched it. Main (base) against this build (new): 16 MiB back
# to back, slice on and off; the sweep 8 B-128 MiB on and off; the round trip 8 B-32 MiB; then the
# new build's checks on 2 GPUs.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -b 16M -e 16M -n 16000 -w 500 -c 0 -T 30"
W="-g 2 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 100000 -w 50 --iter-bytes 64G -c 0 -T 20"
R="-g 2 --lib pccl --coll all_reduce -b 8 -e 32M -f 4 -n 2000 -w 50 --iter-bytes 16G -c 0 -T 20 --timing rt"
for i in 1 2; do
  for b in base new; do
    t timeout 30 ./pccl-perf-$b $P
    t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf-$b $P
  done
done
for i in 1 2; do
  for b in base new; do
    t timeout 40 ./pccl-perf-$b $W
    t timeout 40 env PCCL_SLICE_US=0 ./pccl-perf-$b $W
    t timeout 40 ./pccl-perf-$b $R
  done
done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
step check 0 90 ./pccl-perf-new -g 2 --lib pccl --coll all -b 8 -e 64M -f 8 -n 3 -w 1 -c 1 -o all --timing all
step random 0 40 ./pccl-deadlock --gpus 2 --iters 100
step chaos 0 40 ./pccl-deadlock --gpus 2 --iters 30 --chaos
step share 0 60 ./pccl-share --gpus 2
call_end
