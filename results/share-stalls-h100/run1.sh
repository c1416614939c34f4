#!/bin/bash
# Two ranks sharing one H100, 8 MiB all-reduce back to back: every completion's time, 8 runs; PCCL_SLICE_LOG.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/o8; O=$OUT/o8; mkdir -p $O
for i in 1 2 3 4 5 6 7 8; do
  PCCL_SLICE_LOG=$O/slice-$i.csv timeout 60 ./pccl-perf -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 200 -w 20 -c 0 --timing b2b --pccl-times $O/times-$i.csv > $O/perf-$i.txt 2>&1
  echo "== run $i: $(grep -E '^ *8388608' $O/perf-$i.txt | awk '{print $8, $12}')"
  python3 gaps.py $O/times-$i.csv
done > $O/summary.txt 2>&1
cat $O/summary.txt
head -3 $O/times-1.csv
tar czf $O/all.tgz -C $O $(cd $O; ls slice-*.csv times-*.csv perf-*.txt) && rm -f $O/slice-*.csv $O/times-*.csv $O/perf-*.txt
