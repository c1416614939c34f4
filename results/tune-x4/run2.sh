#!/bin/bash
# Call 2 (4 H200s, 2026-11-29): call 1 found 4 blocks at 8 KiB (ob4k) faster than one in both timings
# and 8 blocks at 512 KiB (bpb64) faster back to back: how far down one block should go (ob1k, ob0:
# one block up to 1 KiB, never) and which rule gives Simple collectives more blocks (bpb128, bpb64: one
# block per 128 or 64 KiB; min8: at least 8 on 3+ ranks), 512 KiB-8 MiB; three rounds in turn,
# nccl-tests -t 4 between rounds. Staged by
# `VARIANTS="ob1k ob0 ob4k bpb128 bpb64 min8" bash results/x2-h200/stage.sh`.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
cp VARIANTS "$O/" 2>/dev/null
P="-g 4 --lib pccl --coll all_reduce -n 100 -w 20 -c 0 --timing all"
for r in 1 2 3; do
  for b in pccl-perf pccl-perf-ob1k pccl-perf-ob0 pccl-perf-ob4k; do t ./$b $P -b 8 -e 16K -f 2; done
  for b in pccl-perf pccl-perf-bpb128 pccl-perf-bpb64 pccl-perf-min8; do t ./$b $P -b 512K -e 8M -f 2; done
  for z in 0 1; do t nt/all_reduce_perf -b 8 -e 8M -f 2 -t 4 -g 1 -n 100 -w 20 -c 0 -z $z; done
done
call_end
