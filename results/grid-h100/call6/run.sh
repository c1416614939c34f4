#!/bin/bash
# Issue 22, the bed: where the two-rank slice cost goes in time. Two ranks sharing one H100 (--share-gpu),
# 2 MiB back to back, off / grid (default) / unaligned, three rounds, every completion's time
# (--pccl-times) and every relaunch (PCCL_SLICE_LOG); results/grid-h100/timeline.py on each pair,
# the off run of the round giving the steady interval. One rank too, off / grid.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
R=$(pwd); d=$R/.dev/s2t; cd $d
O=$OUT/s2t; mkdir -p $O/logs; C=$O/runs.txt; A=$O/timeline.txt
{ nvidia-smi -L; cat COMMIT; } > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
for i in 1 2 3; do
  for g in 2 1; do
    sh=""; n=20000; [ $g = 2 ] && sh="--share-gpu"; [ $g = 1 ] && n=40000
    P="-g $g $sh --lib pccl --coll all_reduce -b 2M -e 2M -n $n -w 100 --check-max 16M -T 20"
    for v in off grid unaligned; do
      [ $g = 1 ] && [ $v = unaligned ] && continue
      L=$O/logs/g$g-$v-$i.csv; TM=$O/logs/g$g-$v-$i.times
      case $v in
        off) t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $P --pccl-times $TM ;;
        grid) t timeout 60 env PCCL_SLICE_LOG=$L ./pccl-perf $P --pccl-times $TM ;;
        unaligned) t timeout 60 env PCCL_SLICE_ALIGN=0 PCCL_SLICE_LOG=$L ./pccl-perf $P --pccl-times $TM ;;
      esac
    done
    # the steady interval: the off run's mean, out of place (us)
    base=$(awk -F, 'NR > 1 && $3 == 0 { k = $4; n[k]++; if (!(k in a)) a[k] = $5; z[k] = $5 } END { m = 0; for (k in n) if (n[k] > n[m] || m == 0) m = k; printf "%.4f", (z[m] - a[m]) / (n[m] - 1) / 1e3 }' $O/logs/g$g-off-$i.times)
    for v in grid unaligned; do
      [ -f $O/logs/g$g-$v-$i.csv ] || continue
      echo "# g$g $v round $i (steady interval from off: $base us)" >> $A
      python3 $R/results/grid-h100/timeline.py $O/logs/g$g-$v-$i.times $O/logs/g$g-$v-$i.csv --base $base >> $A 2>&1
      python3 $R/results/grid-h100/timeline.py $O/logs/g$g-off-$i.times $O/logs/g$g-$v-$i.csv --base $base 2>/dev/null | grep -m1 "lost" | sed 's/^/  (off, same base: /; s/$/)/' >> $A
    done
  done
done
grep -c "exit 0" $C >> $O/summary.txt
cd $O && tar czf logs.tgz logs && rm -rf logs && gzip -9 runs.txt
