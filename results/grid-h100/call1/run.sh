#!/bin/bash
# Issue 22: the slice's cost across two ranks, reproduced on one H100 with both ranks on it (--share-gpu,
# threads, a daemon each): 2 MiB / 512 KiB / 8 MiB all-reduce back to back, off / default / grid / grid+gap0 /
# 8 ms, three rounds interleaved; each slice-on run's PCCL_SLICE_LOG lined up by scripts/slice-log --ranks.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
R=$(pwd); d=$R/.dev/s2r; cd $d
O=$OUT/s2r; mkdir -p $O/logs; C=$O/runs.txt
{ nvidia-smi -L; cat COMMIT; } > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
for i in 1 2 3; do
  for sn in 2M:20000 512K:40000 8M:6000; do
    s=${sn%:*}; n=${sn#*:}
    P="-g 2 --share-gpu --lib pccl --coll all_reduce -b $s -e $s -n $n -w 100 --check-max 16M -T 20"
    for v in off on grid grid0 s8; do
      L=$O/logs/$s-$v-$i.csv
      case $v in
        off) t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $P ;;
        on) t timeout 60 env PCCL_SLICE_LOG=$L ./pccl-perf $P ;;
        grid) t timeout 60 env PCCL_SLICE_ALIGN=1 PCCL_SLICE_LOG=$L ./pccl-perf $P ;;
        grid0) t timeout 60 env PCCL_SLICE_ALIGN=1 PCCL_SLICE_GAP_US=0 PCCL_SLICE_LOG=$L ./pccl-perf $P ;;
        s8) t timeout 60 env PCCL_SLICE_US=8000 PCCL_SLICE_LOG=$L ./pccl-perf $P ;;
      esac
      [ -f $L ] && { echo "# $s $v $i"; $R/scripts/slice-log --ranks $L; } >> $O/ranks.txt
    done
  done
done
grep -c "exit 0" $C >> $O/summary.txt
cd $O && tar czf logs.tgz logs && rm -rf logs && gzip -9 runs.txt
