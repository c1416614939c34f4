#!/bin/bash
# Two ranks sharing one H100, 8 MiB back to back: the stalls against --pccl-depth (1, 2, 4), 6 runs each.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/o8; O=$OUT/o8b; mkdir -p $O
for d in 1 2 4; do for i in 1 2 3 4 5 6; do
  timeout 60 ./pccl-perf -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 200 -w 20 -c 0 --timing b2b --pccl-depth $d --pccl-times $O/t.csv > $O/p.txt 2>&1
  echo "== depth $d run $i: $(grep -E '^ *8388608' $O/p.txt | awk '{print $8, $12}') $(python3 gaps.py $O/t.csv | awk '/rank 0/{printf "[%s big gaps, largest %s] ", $16, $NF}')"
done; done > $O/summary.txt 2>&1
rm -f $O/t.csv $O/p.txt
cat $O/summary.txt
