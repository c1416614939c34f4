#!/bin/bash
# Call 1 (4 H200s, 2026-11-29): the two back-to-back all-reduce rows below nccl-tests in
# ../x4-h200/call15 (8 KiB: one block; 512 KiB: Simple on 4 blocks), main against trial builds
# (variant.sh; .dev/variants/VARIANTS names their defines), three rounds in turn, nccl-tests -t 4
# between rounds; then pccl-perf --split (PCCL_PROFILE=1) at 32 KiB-2 MiB, where the round trip
# is behind nccl-tests. Staged by `VARIANTS="ob4k ob2t16 tb16 bpb64" bash results/x2-h200/stage.sh`.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=300
cp VARIANTS "$O/" 2>/dev/null
P="-g 4 --lib pccl --coll all_reduce -n 100 -w 20 -c 0 --timing all"
for r in 1 2 3; do
  for b in pccl-perf pccl-perf-ob4k pccl-perf-ob2t16 pccl-perf-tb16; do t ./$b $P -b 2K -e 32K -f 2; done
  for b in pccl-perf pccl-perf-bpb64; do t ./$b $P -b 512K -e 512K; done
  for e in "PCCL_INTERLEAVE=1" "PCCL_CHUNK_BYTES=64K" "PCCL_CHUNK_BYTES=32K"; do t env $e ./pccl-perf $P -b 512K -e 512K; done
  for z in 0 1; do t nt/all_reduce_perf -b 2K -e 512K -f 2 -t 4 -g 1 -n 100 -w 20 -c 0 -z $z; done
done
for s in 32K 128K 512K 2M; do t ./pccl-perf -g 4 --lib pccl --coll all_reduce -b $s -e $s -n 100 -w 20 -c 0 --split; done
call_end
