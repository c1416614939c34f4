#!/bin/bash
# Call 8: does the slice's cost at 8 B follow the number of relaunches?  pccl-slice-ab, the slice on A
# at 4, 8, 16 and 64 ms and 60 s against none, and at 4 ms on B (the crossover), one process each, two
# passes; PCCL_SLICE_PHASE_US=0 (main's grid).
set -u
export NCCL_NVLS_ENABLE=0 PCCL_SLICE_PHASE_US=0
cd .dev/aff
. ./call.sh
call_begin d
for k in 1 2; do
  for us in 4000 8000 16000 64000 60000000; do t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20 --slice-us $us; done
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20 --slice-us 0 --base-us 4000
done
call_end
