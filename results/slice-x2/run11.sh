#!/bin/bash
# Call 11 (2 H200s): the tuner takes the direct all-reduce up to 2 MiB on 2 ranks (tune.c, calls 9-10):
# every op and type of it, random orders and chaos on 2 GPUs, then this build against nccl-tests on
# 2 GPUs (issue 16; call 2 is main before it).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
step check 0 90 ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 128K -e 8M -f 2 -n 3 -w 1 -c 1 -o all -d all --timing all
step random 0 40 ./pccl-deadlock --gpus 2 --iters 100
step chaos 0 40 ./pccl-deadlock --gpus 2 --iters 30 --chaos
step vs2 0 240 ./perf-vs-nccl-tests --gpus 2 --out $O/x/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
cp $O/x/vs2/vs-nccl-tests.txt $O/vs2-nccl-tests.txt
(cd $O && tar cJf x.tar.xz x && rm -rf x)
call_end
