#!/bin/bash
# One rank on one block up to 64 KiB (tune.c ONE_BLOCK_MAX_1RANK): correctness, memcheck, and the one-rank
# all-reduce table against nccl-tests in the same call, x3 interleaved.
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/final7; O=$OUT/final7; mkdir -p $O; L=$O/log.txt
r() { echo "== $* (at $SECONDS s)" >> $L; "$@" >> $L 2>&1; echo "== exit $?" >> $L; }
r timeout 100 ./pccl-gpu-test --gpus 1
r timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 500 -w 50 -c 1 --timing all"
for i in 1 2 3; do
  r timeout 60 ./pccl-perf $P
  r timeout 20 ./nt/all_reduce_perf -g 1 -b 8 -e 8M -f 4 -n 500 -w 50 -z 0
  r timeout 20 ./nt/all_reduce_perf -g 1 -b 8 -e 8M -f 4 -n 500 -w 50 -z 1
done
r timeout 60 ./pccl-perf -g 1 --lib pccl --coll all -b 8 -e 8M -f 8 -n 200 -w 20 -c 1 --timing all
grep -E "^RESULT|ERROR SUMMARY" $L
