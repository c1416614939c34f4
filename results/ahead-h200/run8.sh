#!/bin/bash
# Call 8 (one GPU): pccl-slice-ab's own bias with the committed build, beside the slice's cost at 8 B:
# in turn, three times, the null (neither communicator sliced: --slice-us 0), the 6 ms slice on both
# (--base-us 6000) and the 6 ms slice against none, 24 rounds in 4 sets each.  Staged by
# bash results/ahead-h200/stage.sh; device command:
#   tar xJf .dev/ah.tar.xz -C .dev && bash results/ahead-h200/run8.sh
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/ah
. ./call.sh
call_begin d
for k in 1 2 3; do
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 24 --sets 4 --slice-us 0
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 24 --sets 4 --base-us 6000
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 24 --sets 4
done
call_end
