#!/bin/bash
# Call 2: the launch ahead with its call made without the communicator's lock and the poller awake,
# not hot, before it (this build) against call 1's build (pccl-slice-ab-v1), in turn at each size:
# the 6 ms slice against none, 24 rounds in 4 sets, and the 4 ms slice at 8 B and 32 KiB; this build's
# launch ahead against none (PCCL_SLICE_AHEAD_US=0), both 6 ms; issue 22's table (pccl-share --reps
# 16) twice and with the 4 ms slice; nccl-tests' all-reduce beside; scripts/test-gpu's one-GPU part.
# Staged by V1=/tmp/v1 bash results/ahead-h200/stage.sh (/tmp/v1: call 1's .dev/ah binaries);
# device command:
#   tar xJf .dev/ah.tar.xz -C .dev && bash results/ahead-h200/run2.sh
set -u
export NCCL_NVLS_ENABLE=0
top=$PWD
cd .dev/ah
. ./call.sh
call_begin d
for s in 8:20000 32K:20000 2M:20000 8M:20000 512M:300; do
  for v in -v1 ""; do
    t timeout 60 ./pccl-slice-ab$v -b ${s%%:*} -n ${s##*:} -r 24 --sets 4
  done
done
for s in 8 32K; do
  for v in -v1 ""; do
    t timeout 60 ./pccl-slice-ab$v -b $s -n 20000 -r 24 --sets 4 --slice-us 4000
  done
done
for s in 8:20000 32K:20000 512M:300; do
  t timeout 60 ./pccl-slice-ab -b ${s%%:*} -n ${s##*:} -r 24 --sets 4 --base-us 6000 --b-env PCCL_SLICE_AHEAD_US=0
done
t timeout 90 ./nt/all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20
t timeout 120 ./pccl-share --reps 16
t timeout 120 env PCCL_SLICE_US=4000 ./pccl-share --reps 16
t timeout 120 ./pccl-share --reps 16
cd "$top"
mkdir -p build && ln -sfn ../.dev/ah build/gpu
step test-gpu 0 240 scripts/test-gpu --report $O/report.md
call_end
