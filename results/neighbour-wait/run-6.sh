#!/bin/bash
# The stall case (two ranks sharing one H100, 8 MiB back to back), ext (7206d15) against keep (a wait the slice
# cut stays posted), interleaved: 8 runs each with no spin threshold (2^40 polls), 8 with the defaults.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
H=.dev/hint; G=results/share-stalls-h100/gaps.py; O=$OUT/n6; mkdir -p $O
T=1099511627776; NT="PCCL_SPIN_HEAD=$T PCCL_SPIN_BASE=$T PCCL_SPIN_MIN=$T PCCL_STICKY=1"
for k in nothreshold defaults; do for i in $(seq 1 8); do for v in ext keep; do
  E=""; [ $k = nothreshold ] && E="$NT"
  env $E timeout 60 $H/pccl-perf-$v -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 200 -w 20 -c 0 --timing b2b -T 20 --pccl-times $O/t.csv > $O/p.txt 2>&1
  echo "$v $k run $i: exit $? time out/in $(grep -E '^ *8388608' $O/p.txt | awk '{print $8, $12}'); $(python3 $G $O/t.csv 2>/dev/null | awk '/rank 0/{printf "in place %s: %s gaps > 200 us, largest %s %s %s us; ", $4, $17, $19, $20, $21}')" >> $O/stall-6.txt
done; done; done
rm -f $O/t.csv $O/p.txt
cat $O/stall-6.txt
