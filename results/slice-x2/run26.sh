#!/bin/bash
# Call 26 (2 H200s): the final build of this session (c1d926b: the scheduling warp meets after every
# read of the hand-on count) against nccl-tests on 2 GPUs, both timings, all five collectives.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
timeout 15 ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
step vs2 0 200 ./perf-vs-nccl-tests --gpus 2 --out $O/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
[ -f $O/vs2/vs-nccl-tests.txt ] && cp $O/vs2/vs-nccl-tests.txt $O/vs2-nccl-tests.txt && rm -rf $O/vs2
call_end
