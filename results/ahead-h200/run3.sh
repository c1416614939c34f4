#!/bin/bash
# Call 3: where the slice's cost at small sizes goes on the host.  This build counts the poller's
# bookkeeping of each launch end (its time, the lock held) and pcclRun's stream queries, and pcclRun
# makes none while a launch is queued ahead or being queued.  pccl-slice-ab, 24 rounds in 4 sets:
# call 2's build (pccl-slice-ab-v1) and this one in turn, three times, at 8 B and 32 KiB, the 6 ms
# slice against none; this build at 8 B with one invocation in flight (--depth 1); this build's launch
# ahead against none at 8 B and 32 KiB (PCCL_SLICE_AHEAD_US=0, both 6 ms); pccl-share --reps 16.
# Staged by V1=/tmp/v2 bash results/ahead-h200/stage.sh (/tmp/v2: call 2's .dev/ah binaries);
# device command:
#   tar xJf .dev/ah.tar.xz -C .dev && bash results/ahead-h200/run3.sh
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/ah
. ./call.sh
call_begin d
for k in 1 2 3; do
  for s in 8 32K; do
    for v in -v1 ""; do
      t timeout 60 ./pccl-slice-ab$v -b $s -n 20000 -r 24 --sets 4
    done
  done
done
t timeout 60 ./pccl-slice-ab -b 8 -n 10000 -r 24 --sets 4 --depth 1
t timeout 60 ./pccl-slice-ab -b 8 -n 10000 -r 24 --sets 4 --depth 1
for s in 8 32K; do
  t timeout 60 ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4 --base-us 6000 --b-env PCCL_SLICE_AHEAD_US=0
done
t timeout 120 ./pccl-share --reps 16
call_end
