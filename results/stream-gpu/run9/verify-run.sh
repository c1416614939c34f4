#!/bin/bash
# Verification of the registration fix (upload outside the lock): world-2 torch tests on one shared GPU, repeated.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
root=$(pwd); c=$root/.dev/lead/stream; cd $c
export PCCL_LIB_DIR=$c PCCL_INCLUDE_DIR=$c/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/python
[ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/cuda-include
O=$OUT/lead; mkdir -p $O; S=$O/summary.txt; L=$O/log.txt
nvidia-smi -L > $S
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc, $((SECONDS-t0)) s: $*" >> $S; return $rc; }
step build 120 python3 -c "import pccl_torch"
for i in 1 2 3 4 5 6 7 8; do
  [ $SECONDS -gt 260 ] && break
  step coll-world2-$i 40 env PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=30 PCCL_BLOCKS=8 python3 python/tests/test_backend.py test_collectives_world2
done
step all-tests 100 env PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=40 PCCL_BLOCKS=8 python3 python/tests/test_backend.py
grep -E "passed|FAILED|skipped" $L | sort | uniq -c >> $S
echo "== total $SECONDS s" >> $S
