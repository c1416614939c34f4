#!/bin/bash
# Call 3 (one H200): is call 2's +0.6% for the wider types the byte types' change or where ptxas put
# the daemon's code?  Four builds, all-reduce sum of every type at 128 MiB, 2 ranks sharing the GPU,
# back to back, in rotating order, four rounds: pccl-perf (the change), pccl-perf-base (1937884),
# pccl-perf-split (g1: the change for max and min only), pccl-perf-split2 (g2: 1937884 with the
# integer max and min written as max()/min(), the same results, no SIMD: a change to the integer
# functions' code alone).  Then int8 every op, each build, twice.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
A="--share-gpu -g 2 --lib pccl --coll all_reduce -c 0 --timing b2b -b 128M -e 128M -n 20 -w 3"
B=(pccl-perf pccl-perf-base pccl-perf-split pccl-perf-split2)
for r in 0 1 2 3 4 5 6 7; do
  for k in 0 1 2 3; do b=${B[$(( (k + r) % 4 ))]}; t timeout 120 ./$b $A -d all -o sum; done
done
for r in 0 1; do
  for k in 0 1 2 3; do b=${B[$(( (k + r) % 4 ))]}; t timeout 120 ./$b $A -d int8 -o all; done
done
call_end
