#!/bin/bash
# Issue 22: the grid on the host's clock, on by default. Two ranks sharing one H100 (--share-gpu) and one
# rank: 2 MiB / 512 KiB / 8 MiB all-reduce back to back, off / unaligned (PCCL_SLICE_ALIGN=0) / default
# (the grid), three rounds interleaved; the two-rank runs' PCCL_SLICE_LOG lined up (slice-log --ranks).
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
R=$(pwd); d=$R/.dev/s2g; cd $d
O=$OUT/s2g; mkdir -p $O/logs; C=$O/runs.txt
{ nvidia-smi -L; cat COMMIT; } > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
for i in 1 2 3; do
  for g in 2 1; do
    for sn in 2M:20000 512K:40000 8M:6000; do
      s=${sn%:*}; n=${sn#*:}
      sh=""; [ $g = 2 ] && sh="--share-gpu"
      [ $g = 1 ] && n=$((n * 2))
      P="-g $g $sh --lib pccl --coll all_reduce -b $s -e $s -n $n -w 100 --check-max 16M -T 20"
      for v in off unaligned grid; do
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
done
grep -c "exit 0" $C >> $O/summary.txt
cd $O && tar czf logs.tgz logs && rm -rf logs && gzip -9 runs.txt
