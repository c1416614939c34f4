#!/bin/bash
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/pl2; O=$OUT/pl4; mkdir -p $O; L=$O/log.txt
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 32K -e 2M -f 4 -n 200 -w 20 -c 1 --timing b2b"
for i in 1 2; do
 echo "== place2 default" >> $L; PCCL_BLOCKS=8 timeout 60 ./pccl-perf-new $S >> $L 2>&1
 echo "== place2 short-spin" >> $L; PCCL_BLOCKS=8 PCCL_SPIN_HEAD=20 PCCL_SPIN_BASE=10 PCCL_SPIN_MIN=5 timeout 60 ./pccl-perf-new $S >> $L 2>&1
 echo "== main default" >> $L; PCCL_BLOCKS=8 timeout 60 ./pccl-perf-base $S >> $L 2>&1
 echo "== main short-spin" >> $L; PCCL_BLOCKS=8 PCCL_SPIN_HEAD=20 PCCL_SPIN_BASE=10 PCCL_SPIN_MIN=5 timeout 60 ./pccl-perf-base $S >> $L 2>&1
done
