#!/bin/bash
# Issue 16, one rank: where does the large copy lose to nccl-tests' cudaMemcpyAsync? One H100, all-reduce
# 2 MiB / 16 MiB / 128 MiB, b2b and rt, knob variants (no rebuild), two rounds; nccl-tests -g 1 beside.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/r1; O=$OUT/r1; mkdir -p $O; C=$O/runs.txt
nvidia-smi -L > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
t timeout 60 ./nt/all_reduce_perf -g 1 -b 2M -e 128M -f 8 -n 200 -w 20 -z 0
t timeout 60 ./nt/all_reduce_perf -g 1 -b 2M -e 128M -f 8 -n 200 -w 20 -z 1
for i in 1 2; do
  P="-g 1 --lib pccl --coll all_reduce -b 2M -e 128M -f 8 -n 200 -w 20 --timing all --check-max 16M -T 30"
  t timeout 60 ./pccl-perf $P
  t timeout 60 env PCCL_CHUNK_BYTES=1M ./pccl-perf $P
  t timeout 60 env PCCL_CHUNK_BYTES=4M ./pccl-perf $P
  t timeout 60 env PCCL_INTERLEAVE=1 ./pccl-perf $P
  t timeout 60 env PCCL_DYNAMIC=0 ./pccl-perf $P
  t timeout 60 ./pccl-perf $P --pccl-depth 1
  t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $P
done
t timeout 60 ./nt/all_reduce_perf -g 1 -b 2M -e 128M -f 8 -n 200 -w 20 -z 0
grep -c "exit 0" $C >> $O/summary.txt
gzip -9 $C
