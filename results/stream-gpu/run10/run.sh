#!/bin/bash
# Verification of the device-side hold end (pccl_hold_done) + registration fix, one H100.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
root=$(pwd); c=$root/.dev/lead/stream; cd $c
export PCCL_LIB_DIR=$c PCCL_INCLUDE_DIR=$c/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/python
[ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/cuda-include
O=$OUT/lead; mkdir -p $O; S=$O/summary.txt; L=$O/log.txt
nvidia-smi -L > $S
step() { local name=$1 lim=$2; shift 2; local t0=$SECONDS
  [ $((SECONDS + lim)) -gt ${BUDGET:-420} ] && { echo "== $name: skipped (time)" >> $S; return 0; }
  echo "==== $name: $*" >> $L
  timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?
  echo "== $name: exit $rc, $((SECONDS-t0)) s: $*" >> $S; grep -E "^RESULT" $L | tail -1 | grep -q . && true; return $rc; }
step build 120 python3 -c "import pccl_torch"
step lazy-2procs 30 env PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 ./pccl-stream --procs --ranks 2 --lazy --iters 20 --timeout 10
step stream-1rank 30 ./pccl-stream --ranks 1 --iters 30
step stream-1rank-sync 30 ./pccl-stream --ranks 1 --iters 30 --sync
step stream-2procs-sync 40 env PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 ./pccl-stream --procs --ranks 2 --iters 5 --sync --timeout 15
for i in 1 2 3 4 5; do
  step coll-world2-$i 35 env PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=30 PCCL_BLOCKS=8 python3 python/tests/test_backend.py test_collectives_world2
done
step all-tests 90 env PCCL_HANG_DUMP_MS=4000 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=40 PCCL_BLOCKS=8 python3 python/tests/test_backend.py
step train-2share-random 60 env PCCL_BLOCKS=8 python3 python/examples/train_order.py --backend pccl --order random --nprocs 2 --share-gpu --steps 20 --timeout 20 --out $O/train
grep -E "^RESULT|passed, |FAILED" $L >> $S
echo "== total $SECONDS s" >> $S
