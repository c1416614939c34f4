#!/bin/bash
# Two ranks sharing one H100, 8 MiB back to back, depth 4: the stalls against PCCL_QUIT_US (default 1000) and chaos.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/o8; O=$OUT/o8c; mkdir -p $O
for cfg in "" "PCCL_QUIT_US=200" "PCCL_QUIT_US=20000" "PCCL_STICKY=1"; do for i in 1 2 3 4 5; do
  env $cfg timeout 60 ./pccl-perf -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 200 -w 20 -c 0 --timing b2b --pccl-times $O/t.csv > $O/p.txt 2>&1
  echo "== ${cfg:-default} run $i: $(grep -E '^ *8388608' $O/p.txt | awk '{print $8, $12}') | $(python3 gaps.py $O/t.csv | grep 'rank 0' | sed 's/.*gaps>200us/gaps>200us/' | tr '\n' ' ')"
done; done > $O/summary.txt 2>&1
rm -f $O/t.csv $O/p.txt
cat $O/summary.txt
