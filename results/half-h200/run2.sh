#!/bin/bash
# Call 2 (one H200): f7d0611 (CUDA's half conversions). Is any other type or op bound by arithmetic?
# Every type and op of all-reduce by 2 ranks sharing the GPU, back to back, at 128 MiB, 2 MiB and 32 KiB
# (the LL protocol), the base build (55d5fb7) beside it at 128 MiB.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
A="--share-gpu -g 2 --lib pccl --coll all_reduce -d all -o all -c 0 --timing b2b"
t timeout 120 ./pccl-perf $A -b 128M -e 128M -n 20 -w 3
t timeout 120 ./pccl-perf-base $A -b 128M -e 128M -n 20 -w 3
t timeout 120 ./pccl-perf $A -b 2M -e 2M -n 200 -w 20
t timeout 120 ./pccl-perf $A -b 32K -e 32K -n 500 -w 50
t timeout 120 ./pccl-perf $A -b 128M -e 128M -n 20 -w 3
call_end
