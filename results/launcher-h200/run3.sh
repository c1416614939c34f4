#!/bin/bash
# Call 3 (2 H200s): which relaunches miss the grid with the launch ahead.  pccl-perf's 8 B
# back-to-back all-reduces counted only half of the 2-GPU relaunches on the grid (calls 1-2 and
# results/ahead-h200/ call 4: 70-86 of 145-149), one GPU nearly all.  The committed build (no
# launcher) with PCCL_SLICE_LOG, whose last columns now give each cut launch's deadline as told
# and as taken: 8 B on 2 GPUs twice, on one GPU once, 2 MiB on 2 GPUs once.
# Staged by bash results/x2-h200/stage.sh after make gpu; device command:
#   tar xJf .dev/x2.tar.xz -C .dev && bash results/launcher-h200/run3.sh
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/logs
p="./pccl-perf --lib pccl --coll all_reduce -c 0 --timing b2b -w 2000"
for k in 1 2; do
  t env PCCL_SLICE_LOG=$O/logs/g2-8-$k.csv $p -g 2 -b 8 -e 8 -n 200000
done
t env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_LOG=$O/logs/g1-8.csv $p -g 1 -b 8 -e 8 -n 300000
t env PCCL_SLICE_LOG=$O/logs/g2-2M.csv $p -g 2 -b 2M -e 2M -n 100000
(cd $O && tar cf - logs | xz -T4 > logs.tar.xz && rm -rf logs)
call_end
