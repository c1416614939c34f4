#!/bin/bash
# run9, call 3 (library before the fix): native stacks of both ranks at the hang (up to 5 tries).
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
root=$(pwd); c=$root/.dev/lead/stream; cd $c
export PCCL_LIB_DIR=$c PCCL_INCLUDE_DIR=$c/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/python
[ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/cuda-include
S=$OUT/summary.txt; L=$OUT/log.txt
T="python3 python/tests/test_backend.py test_collectives_world2"
timeout 120 python3 -c "import pccl_torch" >> $L 2>&1
for try in 1 2 3 4 5; do
  [ $SECONDS -gt 400 ] && break
  env PCCL_DEBUG=1 PCCL_HANG_DUMP_MS=4000 PCCL_TORCH_TRACE=1 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=70 PCCL_BLOCKS=8 timeout -k 3 80 $T >> $L 2>&1 &
  bg=$!
  for s in $(seq 20); do sleep 1; kill -0 $bg 2>/dev/null || break; done
  if kill -0 $bg 2>/dev/null; then
    for p in $(pgrep -f "multiprocessing.spawn" ); do
      echo "==== native stacks of pid $p" >> $L
      timeout 40 /usr/local/cuda/bin/cuda-gdb -p $p -batch -ex "thread apply all bt 40" >> $L 2>&1
    done
    pkill -9 -f "multiprocessing.spawn"; kill $bg; wait $bg; break
  fi
  wait $bg
done
