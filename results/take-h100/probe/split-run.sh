#!/bin/bash
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/xp5; O=$OUT/xp5; mkdir -p $O
for s in 16M 8; do
  PCCL_XPROBE=$O/xp.csv timeout 60 ./pccl-perf-xp -g 1 --lib pccl --coll all_reduce -b $s -e $s -n 300 -w 5 -c 0 --timing b2b -T 30 > /dev/null 2>&1
  python3 an2.py $O/xp.csv > $O/an2-$s.txt 2>&1; rm -f $O/xp.csv
done
cat $O/an2-*.txt
