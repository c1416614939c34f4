#!/bin/bash
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/sh2; O=$OUT/sh2; mkdir -p $O; L=$O/log.txt
P="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 300 -w 30 -c 1 --timing all"
for i in 1 2; do for sp in 2 0; do echo "== share2 spread=$sp" >> $L; PCCL_BLOCKS=8 PCCL_SPREAD=$sp timeout 60 ./pccl-perf $P >> $L 2>&1; echo "exit $?" >> $L; done; done
echo "== gpu-test 2 ranks on GPU 0" >> $L; PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 timeout 150 ./pccl-gpu-test --gpus 2 --quick --max-bytes 1M >> $L 2>&1; echo "exit $?" >> $L
echo "== gpu-test 2 ranks on GPU 0, chaos" >> $L; PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 timeout 150 ./pccl-gpu-test --gpus 2 --quick --max-bytes 256K --chaos --seed 3 >> $L 2>&1; echo "exit $?" >> $L
