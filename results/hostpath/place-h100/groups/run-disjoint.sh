#!/bin/bash
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/pl2; O=$OUT/pl3; mkdir -p $O; L=$O/log.txt
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 500 -w 50 -c 1 --timing all"
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 8M -f 4 -n 200 -w 20 -c 1 --timing all"
for i in 1 2; do for v in base new; do echo "== share2 $v" >> $L; PCCL_BLOCKS=8 timeout 90 ./pccl-perf-$v $S >> $L 2>&1; done; done
for v in base new; do echo "== share2-16 $v" >> $L; PCCL_BLOCKS=16 timeout 90 ./pccl-perf-$v $S >> $L 2>&1; done
for v in base new; do echo "== $v" >> $L; timeout 60 ./pccl-perf-$v $P >> $L 2>&1; done
echo "== gpu-test" >> $L; timeout 100 ./pccl-gpu-test --gpus 1 --quick >> $L 2>&1; echo "exit $?" >> $L
