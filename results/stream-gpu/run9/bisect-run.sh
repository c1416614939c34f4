#!/bin/bash
# run9, call 1 (library before the fix, with the hang report): the hang report, then one variant at a time.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
root=$(pwd); c=$root/.dev/lead/stream; cd $c
export PCCL_LIB_DIR=$c PCCL_INCLUDE_DIR=$c/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/python
[ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/cuda-include
S=$OUT/summary.txt; L=$OUT/log.txt
nvidia-smi -L > $S
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc, $((SECONDS-t0)) s: $*" >> $S; return $rc; }
T="python3 python/tests/test_backend.py test_collectives_world2"
step build 120 python3 -c "import pccl_torch"
step dump 60 env PCCL_HANG_DUMP_MS=4000 PCCL_TORCH_TRACE=1 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=40 PCCL_BLOCKS=8 $T
step simple 50 env PCCL_PROTO=simple PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=35 PCCL_BLOCKS=8 $T
step eager 50 env CUDA_MODULE_LOADING=EAGER PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=35 PCCL_BLOCKS=8 $T
step noslice 50 env PCCL_SLICE_US=0 PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=35 PCCL_BLOCKS=8 $T
step blocks1 50 env PCCL_BLOCKS=1 PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=35 $T
grep -E "passed|FAILED" $L >> $S
echo "== total $SECONDS s" >> $S
