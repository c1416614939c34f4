#!/bin/bash
# Call 14: the 6 ms slice's cost taken apart at 8 B and 32 KiB (call 13's build, .dev/sab): the checks
# alone (a 60 s slice against none) and the gap's part (PCCL_SLICE_GAP_US=0 on A against the default 20
# us on B, both with 6 ms slices), pccl-slice-ab --sets 4.
#   tar xJf .dev/sab.tar.xz -C .dev && bash results/slice-ab-h200/run14.sh
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/sab
. ./call.sh
call_begin d
for s in 8 8 32K; do
  t timeout 60 ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4 --slice-us 60000000
  t timeout 60 ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4 --slice-us 6000 --base-us 6000 --a-env PCCL_SLICE_GAP_US=0
done
call_end
