#!/bin/bash
# Probe build (worktree /work/xp: HEAD 5a51a19 + event log): one rank, b2b, per-block events.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/xp4; O=$OUT/xp4; mkdir -p $O
nvidia-smi -L > $O/gpu.txt
for s in 128M 16M 2M; do
  PCCL_XPROBE=$O/xp-$s.csv timeout 90 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b $s -e $s -n 300 -w 5 -c 0 --timing b2b -T 30 > $O/perf-$s.txt 2>&1
  python3 an.py $O/xp-$s.csv > $O/an-$s.txt 2>&1
  gzip -9 $O/xp-$s.csv
done
# depth 1 at 128M too: one in flight
PCCL_XPROBE=$O/xp-128M-d1.csv timeout 90 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 128M -e 128M -n 300 -w 5 -c 0 --timing b2b --pccl-depth 1 -T 30 > $O/perf-128M-d1.txt 2>&1
python3 an.py $O/xp-128M-d1.csv > $O/an-128M-d1.txt 2>&1; gzip -9 $O/xp-128M-d1.csv
tail -n 4 $O/perf-*.txt
cat $O/an-*.txt
