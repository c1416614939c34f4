#!/bin/bash
# Call 15: the 6 ms default's cost again where call 13 put it above 2% (32 KiB, three processes) and at
# 8 B (one), pccl-slice-ab --sets 4 (call 13's build, .dev/sab).
#   tar xJf .dev/sab.tar.xz -C .dev && bash results/slice-ab-h200/run15.sh
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/sab
. ./call.sh
call_begin d
for s in 32K 32K 32K 8; do t timeout 60 ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4 --slice-us 6000; done
call_end
