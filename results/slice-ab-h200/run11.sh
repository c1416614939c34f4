#!/bin/bash
# Call 11: at 8 B, does the slice's cost follow its relaunches?  pccl-slice-ab --sets 4 (call 9's
# build): the slice on A at 4 ms, 16 ms and 60 s (no relaunch: its checks alone) against none, two
# processes each, in turn.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for k in 1 2; do
  for us in 4000 16000 60000000; do t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 24 --sets 4 --slice-us $us; done
done
call_end
