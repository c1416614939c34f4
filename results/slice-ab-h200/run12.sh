#!/bin/bash
# Call 12: a longer slice's cost where 4 ms cost most (call 9: 8 B, 32 KiB, 2 MiB): pccl-slice-ab
# --sets 4 (call 9's build), the slice on A at 5 and 6 ms against none, and 512 MiB at 6 ms.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for s in 8 32K 2M; do
  for us in 5000 6000; do t timeout 60 ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4 --slice-us $us; done
done
t timeout 90 ./pccl-slice-ab -b 512M -n 300 -r 16 --sets 4 --slice-us 6000
call_end
