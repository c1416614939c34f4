#!/bin/bash
# Call 28 (prepared 2026-11-30, not run: no 4-GPU kind lent): the mesh's all-reduce on 4 H200s
# (PCCL_ALGO=oneshot, twoshot; results/mesh-x2/ measured it only as 4 ranks on 2 GPUs) against the
# default (auto) and the ring, 8 B-4 MiB, both timings, two rounds; the default path against main
# 4f27d99 (pccl-perf-base, before the mesh), four rounds in turn; the mesh exact (every op and type)
# and under memcheck.  Staged by ../x2-h200/stage.sh (VARIANTS=base, pccl-perf-base a make gpu of
# 4f27d99); the table: ../mesh-x2/table.py reads -g 2 and --share-gpu=2 -g 4 rows (extend it to -g 4).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
P="--lib pccl --coll all_reduce"
M="-b 8 -e 4M -f 4 -n 300 -w 30 -c 0 --timing all -T 30"
for i in 1 2; do
  for a in ring auto oneshot twoshot; do t timeout 60 env PCCL_ALGO=$a ./pccl-perf -g 4 $P $M; done
done
for i in 1 2 3 4; do
  t timeout 60 ./pccl-perf -g 4 $P -b 8 -e 32K -f 4 -n 1000 -w 100 -c 0 --timing all
  t timeout 60 ./pccl-perf-base -g 4 $P -b 8 -e 32K -f 4 -n 1000 -w 100 -c 0 --timing all
done
for a in oneshot twoshot; do
  step check4-$a 0 90 env PCCL_ALGO=$a ./pccl-perf -g 4 $P -b 8 -e 4M -f 8 -n 3 -w 1 -c 1 -o all -d all --timing all
done
step memcheck4 0 120 env PCCL_ALGO=twoshot compute-sanitizer --tool memcheck --error-exitcode 9 ./pccl-perf -g 4 $P -b 8 -e 1M -f 32 -n 3 -w 1 -c 1 -d float,half
call_end
