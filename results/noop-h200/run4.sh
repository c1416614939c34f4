#!/bin/bash
# Call 4 (one H200): why pccl-perf's NCCL column and nccl-tests disagreed on one GPU in call 2 (81
# of 272 rows; broadcast, reduce and reduce-scatter back to back 15-35% faster in pccl-perf, round
# trip in place about 1 us slower): both drivers in turn, three rounds, at call 2's iterations
# (-n 50 -w 10) and at longer windows (-n 2000 -w 200); and what pcclRun's buffer check costs
# (ptrattr: cuPointerGetAttributes, built by nvcc -O2 -arch=sm_90 -o .dev/x4/ptrattr ptrattr.cu -lcuda).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
t ./ptrattr
for r in 1 2 3; do
  for nw in "50 10" "2000 200"; do
    set -- $nw
    for c in broadcast all_reduce; do
      for z in 0 1; do
        t timeout 60 ./nt/${c}_perf -g 1 -b 8 -e 32K -f 64 -n $1 -w $2 -c 0 -z $z
      done
      t timeout 60 ./pccl-perf -g 1 --lib nccl --coll $c -b 8 -e 32K -f 64 -n $1 -w $2 -c 0 --timing all
    done
  done
done
call_end
