#!/bin/bash
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
root=$(pwd); d=$root/.dev/call6; c=$d/stream; cd $c
export PCCL_LIB_DIR=$c PCCL_INCLUDE_DIR=$c/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/python PCCL_TESTS=$c/python/tests
[ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/cuda-include
timeout 100 python3 -c "import pccl_torch" > $OUT/log.txt 2>&1
for blocks in 8 2; do
  echo "==== PCCL_BLOCKS=$blocks" >> $OUT/log.txt
  PCCL_TORCH_TRACE=1 PCCL_BLOCKS=$blocks timeout -k 3 50 python3 $d/probe.py >> $OUT/log.txt 2>&1; echo "== exit $?" >> $OUT/log.txt
done
