#!/bin/bash
# Call 9: pccl-slice-ab with --sets 4 (the rounds split among four pairs of communicators, made A first
# and B first in turn): the null at 8 B twice, then the default slice (4 ms) against none at 8 B (twice),
# 32 KiB, 512 KiB, 2 MiB, 8 MiB, 128 MiB and 512 MiB; nccl-tests' all-reduce on the same GPU for the
# table.  The working tree at 2b525bf + harness/perf/slice_ab.c + the slice log's sm0 column.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
for k in 1 2; do t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 24 --sets 4 --slice-us 0 --base-us 0; done
for k in 1 2; do t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 24 --sets 4; done
for s in 32K 512K 2M 8M; do t timeout 60 ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4; done
t timeout 90 ./pccl-slice-ab -b 128M -n 1000 -r 24 --sets 4
t timeout 90 ./pccl-slice-ab -b 512M -n 300 -r 16 --sets 4
t timeout 90 ./all_reduce_perf -g 1 -b 8 -e 512M -f 4 -n 200 -w 20
call_end
