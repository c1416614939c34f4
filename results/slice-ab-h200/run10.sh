#!/bin/bash
# Call 10: where pccl's relaunch call goes (launch-split.patch: cudaSetDevice, the <<<>>> launch and
# cudaGetLastError timed apart in g_launch, totals printed at exit), at 8 B and 128 MiB with the slice
# on A; and ../launch-h200/probe.cu's stand-in on the same lease.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for k in 1 2; do
  t timeout 60 ./pccl-slice-ab-split -b 8 -n 20000 -r 12 --sets 2
  t timeout 60 ./pccl-slice-ab-split -b 128M -n 1000 -r 8 --sets 2
done
t timeout 60 ./lprobe --iters 200
call_end
