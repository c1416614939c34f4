#!/bin/bash
# Call 5 (2 H200s, lent again): call 2's build. (1) issue 22's cost on 2 GPUs as calls 3-4 measured it
# on one: the slice on (defaults), off (PCCL_SLICE_US=0) and never coming (PCCL_SLICE_US=60000000),
# three interleaved rounds, nccl-tests' all_reduce_perf -g 2 beside them (scripts/share-cost perf.txt);
# (2) scripts/test-gpu --sanitize on the 2 GPUs (ITERS=100): the new look rule (cut.h) under the
# paper's deadlock tests with and without synchronizations, the cross-rank sharing test, chaos, one
# process per GPU, the suite, faults, memcheck and racecheck of the deadlock test.
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x4 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x4
. ./call.sh
call_begin d
P="-g 2 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 20000 -w 50 --iter-bytes 64G --check-max 16M -T 20"
for i in 1 2 3; do
  for s in "" PCCL_SLICE_US=0 PCCL_SLICE_US=60000000; do
    t timeout 25 env $s ./pccl-perf $P
  done
done
t timeout 20 ./nt/all_reduce_perf -g 2 -b 8 -e 128M -f 8 -n 2000 -w 50
cp $C $O/perf.txt
echo "== (1) done at $((SECONDS - T0)) s" >> $S
cd ../..
BUDGET=585 step test-gpu 0 $((580 - (SECONDS - T0))) env ITERS=100 scripts/test-gpu --sanitize --report $O/pccl-gpu.md
call_end
