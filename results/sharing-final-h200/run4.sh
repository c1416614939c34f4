#!/bin/bash
# Call 4 (one H200, 2026-11-29): call 2 again, shorter, on the build with the placement by id
# (results/slowmode-x2, call 4), so that issue 22's figures are the final build's: pccl-slice-ab at the
# seven sizes (48 rounds in 12 sets), pccl-share --reps 16, nccl-tests beside.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/sharing-final-h200/run4.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/x2
. ./call.sh
call_begin d
for s in 8:20000 32K:20000 512K:20000 2M:20000 8M:5000 128M:600 512M:150; do
  t timeout 60 ./pccl-slice-ab -b ${s%%:*} -n ${s##*:} -r 48 --sets 12
done
t timeout 60 ./pccl-share --reps 16
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20
call_end
