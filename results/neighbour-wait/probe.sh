#!/bin/bash
# Ran twice on one H100: first with `seq 1 10` (probe-1.txt), then as here (probe-2.txt).
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
H=.dev/hint; G=results/share-stalls-h100/gaps.py; O=$OUT/pr; mkdir -p $O
for i in $(seq 1 30); do
  PCCL_HANG_DUMP_MS=2 timeout 60 $H/pccl-perf-final -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 200 -w 20 -c 0 --timing b2b --pccl-times $O/t$i.csv > $O/p$i.txt 2>&1
  echo "run $i: time out/in $(grep -E '^ *8388608' $O/p$i.txt | awk '{print $8, $12}'); $(python3 $G $O/t$i.csv | awk '/rank 0/{printf "in place %s: %s gaps > 200 us, largest %s %s %s us; ", $4, $17, $19, $20, $21}')" >> $O/sum.txt
done
cd $O && tar czf probe.tgz p*.txt t*.csv && rm -f p*.txt t*.csv
cat sum.txt
