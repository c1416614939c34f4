#!/bin/bash
# One rank, blocks per collective: PCCL_BYTES_PER_BLOCK 512 KiB (main), 128 KiB, 32 KiB (builds of f3dc459 with
# -DPCCL_BYTES_PER_BLOCK), x2 interleaved, nccl-tests in the same call.
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/bpb; O=$OUT/bpb; mkdir -p $O; L=$O/log.txt
r() { echo "== $* (at $SECONDS s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
P="-g 1 --lib pccl --coll all_reduce -b 128K -e 64M -f 4 -n 300 -w 30 -c 1 --timing all"
for i in 1 2; do for v in main 131072 32768; do r timeout 60 ./pccl-perf-$v $P; done; done
r timeout 30 ./nt/all_reduce_perf -g 1 -b 128K -e 64M -f 4 -n 300 -w 30 -z 0
r timeout 30 ./nt/all_reduce_perf -g 1 -b 128K -e 64M -f 4 -n 300 -w 30 -z 1
for v in main 131072 32768; do r timeout 60 ./pccl-perf-$v -g 1 --lib pccl --coll all -b 128K -e 64M -f 8 -n 100 -w 10 -c 1 --timing b2b; done
