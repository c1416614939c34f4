#!/bin/bash
# Call 3 (one GPU): the hold (a stream's wait keeps the daemon) with 2 processes sharing the GPU:
# lazy registration, the stream tests, the slice's bound, the correctness suite, the torch backend.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
c=$(pwd)/.dev/call3; S=$OUT/summary.txt L=$OUT/all.log; end=$((SECONDS + ${BUDGET:-400}))
nvidia-smi -L > $S
s() { # name limit cmd...: the limit is cut to what the budget has left
    local name=$1 lim=$2; shift 2; local left=$((end - SECONDS)); [ $left -lt 10 ] && { echo "== $name: skipped (budget)" >> $S; return; }
    [ $lim -gt $left ] && lim=$left; local t0=$SECONDS
    echo "==== $name: $*" >> $L; timeout -k 3 $lim "$@" > $OUT/step.log 2>&1; local rc=$?
    cat $OUT/step.log >> $L
    echo "== $name: exit $rc, $((SECONDS - t0)) s: $*" >> $S
    grep -E '^RESULT|FAILED|HANG|rror|passed|failed' $OUT/step.log | tail -5 >> $S
}
cd $c
s lazy-2procs 30 env PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 ./pccl-stream --procs --ranks 2 --lazy --iters 20 --timeout 10
s stream-1rank 40 ./pccl-stream --ranks 1 --iters 30
s stream-1rank-sync 40 ./pccl-stream --ranks 1 --iters 30 --sync
s stream-2procs 40 env PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 ./pccl-stream --procs --ranks 2 --iters 5 --timeout 15
s stream-bench 30 ./pccl-stream --bench 20000
s gpu-test-quick 90 ./pccl-gpu-test --gpus 1 --quick
cd $c/stream
export PCCL_LIB_DIR=$c/stream PCCL_INCLUDE_DIR=$c/stream/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/stream/python
[ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/stream/cuda-include
s torch-build 100 python3 -c "import time; t=time.time(); import pccl_torch; print('built in %.1f s' % (time.time() - t))"
T=python/examples/train_order.py
s t-rand 60 env PCCL_BLOCKS=8 python3 $T --backend pccl --order random --nprocs 2 --share-gpu --steps 20 --timeout 20 --out $OUT
s t-cons 60 env PCCL_BLOCKS=8 python3 $T --backend pccl --order consistent --nprocs 2 --share-gpu --steps 20 --timeout 20 --out $OUT
s t-compare 10 python3 $T compare $OUT/loss-pccl-consistent.csv $OUT/loss-pccl-random.csv
s torch-tests 90 env PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=40 PCCL_BLOCKS=8 python3 python/tests/test_backend.py
cd $c
s share-quick 60 ./pccl-share --reps 3
rm -f $OUT/step.log
echo "== total $SECONDS s" >> $S
