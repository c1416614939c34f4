#!/bin/bash
# Issue 16, one rank: do larger chunks (fewer steps per block) help the one-rank copy? One H100, all-reduce
# 2-128 MiB both timings, PCCL_CHUNK_BYTES 256K (default) / 1M / 4M / 16M, and 1M with PCCL_DYNAMIC=0; twice.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/ck; O=$OUT/ck; mkdir -p $O; C=$O/runs.txt
nvidia-smi -L > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
P="-g 1 --lib pccl --coll all_reduce -b 2M -e 128M -f 8 -n 200 -w 20 --timing all --check-max 16M -T 30"
for i in 1 2; do
  for ck in 256K 1M 4M 16M; do t timeout 60 env PCCL_CHUNK_BYTES=$ck ./pccl-perf $P; done
  t timeout 60 env PCCL_CHUNK_BYTES=1M PCCL_DYNAMIC=0 ./pccl-perf $P
done
grep -E "^RESULT" $C >> $O/summary.txt
gzip -9 $C
