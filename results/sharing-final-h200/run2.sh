#!/bin/bash
# Call 2 (one H200, 2026-11-29): call 1's cost again with the sets' interval (pccl-slice-ab now prints
# the interval over the sets' means too: call 1's rounds moved together by pair of communicators, the
# pair made first the slower in most sets) and more sets: 24 sets of 4 rounds up to 8 MiB, 12 of 4 above;
# the null (neither sliced) at 8 B and 32 KiB likewise.  Build: 6c0e9bc's library, pccl-slice-ab with
# the sets' interval.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/sharing-final-h200/run2.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/x2
. ./call.sh
call_begin d
for s in 8:20000:96:24 32K:20000:96:24 512K:20000:96:24 2M:20000:96:24 8M:5000:96:24 128M:1000:48:12 512M:250:48:12; do
  IFS=: read -r b n r k <<< "$s"
  t timeout 120 ./pccl-slice-ab -b $b -n $n -r $r --sets $k
done
for b in 8 32K; do t timeout 90 ./pccl-slice-ab -b $b -n 20000 -r 96 --sets 24 --slice-us 0; done
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20
call_end
