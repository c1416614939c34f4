#!/bin/bash
# Call 6 (one H200, 2026-11-29): issue 22's cost and bound with this build (8d71be9's library: the idle
# cut's relaunch at the next invocation, the offset's samples, the stack preload): pccl-slice-ab, the
# 6 ms slice against none inside one process (24 rounds, 4 sets), at 8 B, 32 KiB, 2 MiB and 128 MiB; then
# pccl-share --reps 16 (the implicit synchronizations while collectives stream, NCCL beside it).
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/offset-h200/run6.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
for s in 8:20000 32K:20000 2M:20000 128M:1000; do
  t timeout 60 ./pccl-slice-ab -b ${s%%:*} -n ${s##*:} -r 24 --sets 4
done
t timeout 120 ./pccl-share --reps 16
call_end
