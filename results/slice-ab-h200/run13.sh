#!/bin/bash
# Call 13: the slice's new default, 6 ms (PCCL_SLICE_US_DEFAULT).  Its cost: pccl-slice-ab --sets 4, the
# default slice against none, at 8 B (twice), 32 KiB, 512 KiB, 2 MiB, 8 MiB, 128 MiB and 512 MiB, with
# nccl-tests' all-reduce beside; issue 22's table (pccl-share --reps 16, NCCL beside); then
# scripts/test-gpu's one-GPU part (the sharing table three ways among its steps).  Staged by
# results/slice-ab-h200/stage.sh; device command:
#   tar xJf .dev/sab.tar.xz -C .dev && bash results/slice-ab-h200/run13.sh
set -u
export NCCL_NVLS_ENABLE=0
top=$PWD
cd .dev/sab
. ./call.sh
call_begin d
for s in 8:20000 8:20000 32K:20000 512K:20000 2M:20000 8M:20000 128M:1000 512M:300; do
  r=24; [ ${s%%:*} = 512M ] && r=16
  t timeout 90 ./pccl-slice-ab -b ${s%%:*} -n ${s##*:} -r $r --sets 4
done
t timeout 90 ./nt/all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20
t timeout 200 ./pccl-share --reps 16
cd "$top"
mkdir -p build && ln -sfn ../.dev/sab build/gpu
step test-gpu 0 240 scripts/test-gpu --report $O/report.md
call_end
