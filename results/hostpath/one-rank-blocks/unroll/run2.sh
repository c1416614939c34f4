#!/bin/bash
# PCCL_UNROLL=8 (u8) and copies alone unrolled 8 (c8, reductions 4) against main (0ba3629), interleaved x2:
# one rank 128 KiB-64 MiB, two ranks sharing the GPU 512 KiB-32 MiB (Simple rings through device memory);
# the u8 build's gpu-test.
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/u8; O=$OUT/u8b; mkdir -p $O; L=$O/log.txt
r() { echo "== $* (at $SECONDS s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
P="-g 1 --lib pccl --coll all_reduce -b 128K -e 64M -f 4 -n 300 -w 30 -c 1 --timing all"
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 512K -e 32M -f 4 -n 100 -w 10 -c 1 --timing b2b"
for i in 1 2; do for v in main u8 c8; do r timeout 60 ./pccl-perf-$v $P; r env PCCL_BLOCKS=16 timeout 90 ./pccl-perf-$v $S; done; done
r timeout 30 ./nt/all_reduce_perf -g 1 -b 128K -e 64M -f 4 -n 300 -w 30 -z 0
r timeout 100 ./pccl-gpu-test-c8 --gpus 1
grep RESULT $L
