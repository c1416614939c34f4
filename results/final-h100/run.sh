#!/bin/bash
# Final call, part 2 (one GPU): the merged build of main.  Logs stream into $OUT/final/.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
root=$(pwd); d=$root/.dev/final2; O=$OUT/final; mkdir -p $O; S=$O/summary.txt L=$O/log.txt
end=$((SECONDS + ${BUDGET:-340}))
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; echo "commit $(cat $d/COMMIT)"; } > $S
s() { local name=$1 lim=$2; shift 2; local left=$((end - SECONDS)); [ $left -lt 8 ] && { echo "== $name: skipped (budget)" >> $S; return; }
    [ $lim -gt $left ] && lim=$left; local t0=$SECONDS; echo "==== $name: $*" >> $L
    timeout -k 3 $lim "$@" > $O/step.log 2>&1; local rc=$?; cat $O/step.log >> $L
    echo "== $name: exit $rc, $((SECONDS - t0)) s: $*" >> $S
    grep -E '^RESULT|^PASS|^FAIL|FAILED|passed|failed|HANG|ERROR SUMMARY|faults:' $O/step.log | tail -6 >> $S; }
B=$d/gpu; cd $d
s gpu-test-1 60 $B/pccl-gpu-test --gpus 1 --quick
s share 40 $B/pccl-share --reps 5
s share-eager 40 env CUDA_MODULE_LOADING=EAGER $B/pccl-share --reps 3
s fault-share 60 $B/pccl-fault --share 2 --seeds 10
s multiproc-share 40 $B/pccl-multiproc --share 2 --iters 20 --sync
s stream-lazy 30 env PCCL_DEVICE_OF_RANK=0,0 PCCL_BLOCKS=8 $B/pccl-stream --procs --ranks 2 --lazy --iters 20 --timeout 10
s stream-bench 20 $B/pccl-stream --bench 20000
s memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/pccl-stream --ranks 1 --iters 2
s perf-vs-nt 70 $root/scripts/perf-vs-nccl-tests --gpus 1 --colls all_reduce,all_gather --nccl-tests $d/nt --bin $B/pccl-perf --out $O/vs -b 8 -e 64M -f 8 -n 50 -w 10
c=$d/stream; cd $c
export PCCL_LIB_DIR=$c PCCL_INCLUDE_DIR=$c/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/python
[ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/cuda-include
s torch-build 80 python3 -c "import pccl_torch"
s torch-tests 90 env PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=40 PCCL_BLOCKS=8 python3 python/tests/test_backend.py test_collectives_world1 test_stream_order_world1 test_identity_world1 test_stream_order_world2 test_identity_world2
T=python/examples/train_order.py
s t-rand 45 env PCCL_BLOCKS=8 python3 $T --backend pccl --order random --nprocs 2 --share-gpu --steps 20 --timeout 15 --out $O
s t-cons 45 env PCCL_BLOCKS=8 python3 $T --backend pccl --order consistent --nprocs 2 --share-gpu --steps 20 --timeout 15 --out $O
rm -f $O/step.log; [ -d $O/vs ] && tar czf $O/vs.tgz -C $O vs && rm -rf $O/vs
echo "== total $SECONDS s" >> $S
