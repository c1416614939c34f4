#!/bin/bash
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/pl2; O=$OUT/pl2; mkdir -p $O; L=$O/log.txt
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 500 -w 50 -c 1 --timing all"
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 200 -w 20 -c 1 --timing all"
for i in 1 2; do for v in base new; do echo "== $v" >> $L; timeout 60 ./pccl-perf-$v $P >> $L 2>&1; done; done
for v in base new; do echo "== d16 $v" >> $L; timeout 60 ./pccl-perf-$v -g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 500 -w 50 -c 1 --timing b2b --pccl-depth 16 >> $L 2>&1; done
for i in 1 2; do for v in base new; do echo "== share2 $v" >> $L; PCCL_BLOCKS=8 timeout 90 ./pccl-perf-$v $S >> $L 2>&1; done; done
echo "== all colls new" >> $L; timeout 90 ./pccl-perf-new -g 1 --lib pccl --coll all -b 8 -e 8M -f 8 -n 200 -w 20 -c 1 --timing b2b >> $L 2>&1
echo "== gpu-test" >> $L; timeout 100 ./pccl-gpu-test --gpus 1 >> $L 2>&1; echo "exit $?" >> $L
echo "== memcheck" >> $L; timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M > $O/memcheck.txt 2>&1; echo "exit $?" >> $L; tail -2 $O/memcheck.txt >> $L
