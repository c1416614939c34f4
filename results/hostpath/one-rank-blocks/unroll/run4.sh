#!/bin/bash
# Copies of 2 batches of 8 or more unrolled 8 (own frame), others 4 as before (prims.cuh PCCL_COPY_UNROLL), reductions 4,
# interleaved: one rank 8 B-64 MiB both timings, two ranks sharing the GPU (16 blocks) 32 KiB-32 MiB back to
# back; gpu-test and memcheck of the new build.
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/c8; O=$OUT/c8b; mkdir -p $O; L=$O/log.txt
r() { echo "== $* (at $SECONDS s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 64M -f 4 -n 300 -w 30 -c 1 --timing all"
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 32K -e 32M -f 4 -n 100 -w 10 -c 1 --timing b2b"
for i in 1 2 3; do for v in main new; do r timeout 60 ./pccl-perf-$v $P; r env PCCL_BLOCKS=16 timeout 90 ./pccl-perf-$v $S; done; done
r timeout 30 ./nt/all_reduce_perf -g 1 -b 8 -e 64M -f 4 -n 300 -w 30 -z 0
r timeout 100 ./pccl-gpu-test --gpus 1
r timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
r timeout 60 ./pccl-perf-new -g 1 --lib pccl --coll all -b 8 -e 64M -f 8 -n 100 -w 10 -c 1 --timing b2b
grep -E "^RESULT|ERROR SUMMARY" $L
