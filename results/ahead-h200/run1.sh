#!/bin/bash
# Call 1: the launch ahead (PCCL_SLICE_AHEAD_US, default 100 us) on one H200.  pccl-slice-ab, 24
# rounds in 4 sets at each size: (a) the default 6 ms slice with the launch ahead against the same
# slice relaunched after the end and the 20 us gap (PCCL_SLICE_AHEAD_US=0); (b) the 6 ms slice with
# the launch ahead against no slice; (c) a 4 ms slice with the launch ahead against no slice;
# nccl-tests' all-reduce beside; issue 22's table (pccl-share --reps 16, NCCL beside) with the launch
# ahead, without it, and with the 4 ms slice; then scripts/test-gpu's one-GPU part.  Staged by
# results/ahead-h200/stage.sh; device command:
#   tar xJf .dev/ah.tar.xz -C .dev && bash results/ahead-h200/run1.sh
set -u
export NCCL_NVLS_ENABLE=0
top=$PWD
cd .dev/ah
. ./call.sh
call_begin d
sizes="8:20000 32K:20000 512K:20000 2M:20000 8M:20000 128M:1000 512M:300"
for s in $sizes; do
  t timeout 60 ./pccl-slice-ab -b ${s%%:*} -n ${s##*:} -r 24 --sets 4 --base-us 6000 --b-env PCCL_SLICE_AHEAD_US=0
done
for s in $sizes; do
  t timeout 60 ./pccl-slice-ab -b ${s%%:*} -n ${s##*:} -r 24 --sets 4
done
for s in $sizes; do
  t timeout 60 ./pccl-slice-ab -b ${s%%:*} -n ${s##*:} -r 24 --sets 4 --slice-us 4000
done
t timeout 90 ./nt/all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20
t timeout 120 ./pccl-share --reps 16
t timeout 120 env PCCL_SLICE_AHEAD_US=0 ./pccl-share --reps 16
t timeout 120 env PCCL_SLICE_US=4000 ./pccl-share --reps 16
t timeout 120 ./pccl-share --reps 16
cd "$top"
mkdir -p build && ln -sfn ../.dev/ah build/gpu
step test-gpu 0 240 scripts/test-gpu --report $O/report.md
call_end
