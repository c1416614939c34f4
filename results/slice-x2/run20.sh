#!/bin/bash
# Call 20 (2 H200s): pccl against nccl-tests on 2 GPUs again with the look-ahead build (call 18's table
# had 14 back-to-back rows 3-40x off their neighbours, which call 19 did not reproduce).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
step vs2 0 150 ./perf-vs-nccl-tests --gpus 2 --out $O/x/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
cp $O/x/vs2/vs-nccl-tests.txt $O/vs2-nccl-tests.txt
(cd $O && tar cJf x.tar.xz x && rm -rf x)
call_end
