#!/bin/bash
# Call 1 (one H200): pccl-slice-ab (the slice against none, two communicators in one process,
# interleaved rounds) at 8 B three times (three processes), the checks alone (a 60 s slice) at 8 B,
# and once at 32 KiB, 512 KiB, 2 MiB, 8 MiB, 128 MiB and 512 MiB.  Staged: `make build/gpu/pccl-slice-ab`
# (the working tree at 2b525bf + harness/perf/slice_ab.c) copied to .dev/aff.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for k in 1 2 3; do t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 30; done
t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 30 --slice-us 60000000
for s in 32K 512K 2M 8M; do t timeout 60 ./pccl-slice-ab -b $s -n 20000 -r 20; done
t timeout 60 ./pccl-slice-ab -b 128M -n 1000 -r 16
t timeout 90 ./pccl-slice-ab -b 512M -n 300 -r 12
call_end
