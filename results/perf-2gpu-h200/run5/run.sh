#!/bin/bash
# pccl-share --procs 2 with its reference on two H200s: one rank per GPU, and both ranks sharing GPU 0.
set -u
export NCCL_NVLS_ENABLE=0
d=$(pwd)/.dev/gpu2e; cd $d
O=$OUT/gpu2e; mkdir -p $O; L=$O/log.txt
{ nvidia-smi -L; cat COMMIT; } > $O/summary.txt
t() { local t0=$SECONDS; echo "==== $*" >> $L; "$@" >> $L 2>&1; echo "== exit $? ($((SECONDS - t0)) s): $*" >> $O/summary.txt; }
t timeout 90 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
t timeout 90 env PCCL_DEVICE_OF_RANK=0,0 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
t timeout 90 env PCCL_WATCH_US=100 ./pccl-share --procs 2 --seeds 20 --iters 10 --secs 5 --timeout 15 --grace-ms 5
grep -E "^RESULT|NO \(" $L >> $O/summary.txt
gzip -9 $L
