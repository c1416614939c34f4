#!/bin/bash
# Block 0 left out of collectives on every block (PCCL_XB0=1: 63 lanes, block 0 hands on only) against main
# 79928ca's placement, the same binary; one rank both timings 3 rounds, two ranks sharing 2 rounds.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/xb; O=$OUT/xb; mkdir -p $O; C=$O/runs.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
nvidia-smi -L >> $C
ln -sf pccl-perf pccl-perf-main; ln -sf pccl-perf pccl-perf-xb0
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 4 -n 300 -w 20 -c 1 --check-max 16M --timing all -T 30"
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 4 -n 300 -w 20 -z 0
for i in 1 2 3; do
  t timeout 60 ./pccl-perf-main $P
  t timeout 60 env PCCL_XB0=1 ./pccl-perf-xb0 $P
done
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 32K -e 32M -f 4 -n 200 -w 20 -c 1 --check-max 8M --timing all -T 30"
for i in 1 2; do
  t timeout 90 ./pccl-perf-main $S
  t timeout 90 env PCCL_XB0=1 ./pccl-perf-xb0 $S
done
gzip -9 $C
