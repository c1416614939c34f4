#!/bin/bash
# Block 0 reads up to 2 SQ records per look (-DPCCL_SQ_BATCH=2, b2) against 1 (b1 = main 783c7a7).
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/sb; O=$OUT/sb; mkdir -p $O; C=$O/runs.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
nvidia-smi -L >> $C
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 4 -n 300 -w 20 -c 1 --check-max 16M --timing all -T 30"
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 4 -n 300 -w 20 -z 0
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 4 -n 300 -w 20 -z 1
for i in 1 2 3 4; do for v in b1 b2; do t timeout 60 ./pccl-perf-$v $P; done; done
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 32K -e 32M -f 4 -n 200 -w 20 -c 1 --check-max 8M --timing all -T 30"
for i in 1 2; do for v in b1 b2; do t timeout 90 ./pccl-perf-$v $S; done; done
gzip -9 $C
