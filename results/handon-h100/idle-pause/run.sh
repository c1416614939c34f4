#!/bin/bash
# Issue 16: the idle blocks' longest pause (PCCL_IDLE_MAX_NS: 1024 ns on main, 512, 256), one rank and two
# ranks sharing one H100, interleaved, twice.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/ip2; O=$OUT/ip2; mkdir -p $O; C=$O/runs.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 4 -n 300 -w 20 -c 1 --check-max 16M --timing all -T 30"
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 32K -e 32M -f 4 -n 200 -w 20 -c 1 --check-max 8M --timing all -T 30"
for i in 1 2; do
  for v in 1024 512 256; do t timeout 60 ./pccl-perf-$v $P; done
  for v in 1024 256; do t timeout 90 ./pccl-perf-$v $S; done
done
gzip -9 $C
