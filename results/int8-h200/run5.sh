#!/bin/bash
# Call 5 (one H200): what the daemon's 64-register cap (__launch_bounds__(512, 2): two blocks' worth of
# an SM's registers, so an application's kernel fits beside one) costs: 1937884's build (pccl-perf-base)
# against 60ec17b's (lib/ as at 1937884) with __maxnreg__(80) (pccl-perf-split) and
# __maxnreg__(96) (pccl-perf-split2) for the kernel's __launch_bounds__, in rotating order: all-reduce sum of every type and bfloat16
# avg, 2 ranks sharing the GPU, back to back, 128 MiB (4 rounds), 2 MiB and 32 KiB (2 rounds);
# correctness of the 96-register build on 2 ranks.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/hf
. ./call.sh
call_begin d
A="--share-gpu -g 2 --lib pccl --coll all_reduce -c 0 --timing b2b"
B=(pccl-perf-base pccl-perf-split pccl-perf-split2)
for r in 0 1 2 3; do
  for k in 0 1 2; do b=${B[$(( (k + r) % 3 ))]}; t timeout 60 ./$b $A -d all -o sum -b 128M -e 128M -n 20 -w 3
    t timeout 60 ./$b $A -d bfloat16 -o avg -b 128M -e 128M -n 20 -w 3; done
done
for r in 0 1; do
  for k in 0 1 2; do b=${B[$(( (k + r) % 3 ))]}; t timeout 60 ./$b $A -d all -o sum -b 2M -e 2M -n 300 -w 30
    t timeout 60 ./$b $A -d float -o sum -b 32K -e 32K -n 2000 -w 200; done
done
step all2-r96 0 100 ./pccl-perf-split2 --share-gpu -g 2 --lib pccl --coll all -b 8 -e 8M -f 8 -n 2 -w 1 -c 1 \
  -o all -d all --timing all -T 60
call_end
