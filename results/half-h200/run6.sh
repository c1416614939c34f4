#!/bin/bash
# Call 6 (one H200): split (call 5's pccl-perf-split: sum, prod, max and min in primitives that never
# divide; avg's last step in one that does, 4 vectors a batch; this is pccl-perf here) against split2
# (the same, avg's dividing primitive 2 vectors a batch: ptxas spilled 50-112 B a thread at 4) and
# f7d0611 (pccl-perf-base), in turn: every type and op of all-reduce, 2 ranks sharing the GPU, back
# to back, 128 MiB (three times), 2 MiB, 32 KiB; pccl-ops-test; correctness of both on 2, 3, 4 ranks
# and one rank's suite.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
step ops 0 60 ./pccl-ops-test
A="--share-gpu -g 2 --lib pccl --coll all_reduce -d all -o all -c 0 --timing b2b"
for r in 1 2 3; do
  for b in pccl-perf pccl-perf-split2 pccl-perf-base; do t timeout 120 ./$b $A -b 128M -e 128M -n 20 -w 3; done
done
for s in 2M 32K; do
  for b in pccl-perf pccl-perf-split2 pccl-perf-base; do t timeout 120 ./$b $A -b $s -e $s -n 300 -w 30; done
done
C="--lib pccl --coll all -b 8 -e 8M -f 8 -n 2 -w 1 -c 1 -o all -d all --timing all -T 60"
for b in pccl-perf pccl-perf-split2; do
  for g in 2 3 4; do step $b-all$g 0 100 ./$b --share-gpu -g $g $C; done
done
step gpu-test 0 100 ./pccl-gpu-test --gpus 1 --quick
call_end
