#!/bin/bash
# Issue 22: the grid (host clock, default) against unaligned, ten rounds: two ranks sharing one H100,
# 2 MiB and 512 KiB all-reduce back to back, off / unaligned / grid; one rank 2 MiB off / grid.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
R=$(pwd); d=$R/.dev/s2h; cd $d
O=$OUT/s2h; mkdir -p $O/logs; C=$O/runs.txt
{ nvidia-smi -L; cat COMMIT; } > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
for i in $(seq 10); do
  for gs in 2:2M:20000 2:512K:40000 1:2M:40000; do
    IFS=: read g s n <<< "$gs"
    sh=""; [ $g = 2 ] && sh="--share-gpu"
    P="-g $g $sh --lib pccl --coll all_reduce -b $s -e $s -n $n -w 100 --check-max 16M -T 20"
    for v in off unaligned grid; do
      [ $g = 1 ] && [ $v = unaligned ] && continue
      L=$O/logs/g$g-$s-$v-$i.csv
      case $v in
        off) t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $P ;;
        unaligned) t timeout 60 env PCCL_SLICE_ALIGN=0 PCCL_SLICE_LOG=$L ./pccl-perf $P ;;
        grid) t timeout 60 env PCCL_SLICE_LOG=$L ./pccl-perf $P ;;
      esac
      [ -f $L ] && [ $g = 2 ] && { echo "# g$g $s $v $i"; $R/scripts/slice-log --ranks $L; } >> $O/ranks.txt
    done
  done
done
grep -c "exit 0" $C >> $O/summary.txt
cd $O && tar czf logs.tgz logs && rm -rf logs && gzip -9 runs.txt
