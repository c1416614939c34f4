#!/bin/bash
# Call 4: pccl-slice-ab with both pollers made on one CPU (--poller-cpu, default the last: 15): at 8 B
# the null (both without a slice), the slice on A, and on B, three processes each, in turn; then at
# 2 MiB the slice on A twice; and the null with the pollers on CPU 8.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for k in 1 2 3; do
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20 --slice-us 0 --base-us 0
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20 --slice-us 4000 --base-us 0
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20 --slice-us 0 --base-us 4000
done
for k in 1 2; do t timeout 60 ./pccl-slice-ab -b 2M -n 20000 -r 20; done
t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20 --slice-us 0 --base-us 0 --poller-cpu 8
call_end
