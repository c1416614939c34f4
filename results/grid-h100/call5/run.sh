#!/bin/bash
# Issue 22, the bed: is the grid's cost beyond its stall windows the two daemons sharing SMs? Two ranks on one
# H100 (--share-gpu), 2 MiB back to back, off / grid (default) / unaligned, PCCL_BLOCKS=32 (64 blocks in all,
# one SM each) against the default 64 (128 blocks on 132 SMs); ten rounds interleaved.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
R=$(pwd); d=$R/.dev/s2b; cd $d
O=$OUT/s2b; mkdir -p $O/logs; C=$O/runs.txt
{ nvidia-smi -L; cat COMMIT; } > $O/summary.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
for i in $(seq 10); do
  for b in 32 64; do
    P="-g 2 --share-gpu --lib pccl --coll all_reduce -b 2M -e 2M -n 20000 -w 100 --check-max 16M -T 20"
    for v in off unaligned grid; do
      L=$O/logs/b$b-$v-$i.csv
      case $v in
        off) t timeout 60 env PCCL_BLOCKS=$b PCCL_SLICE_US=0 ./pccl-perf $P ;;
        unaligned) t timeout 60 env PCCL_BLOCKS=$b PCCL_SLICE_ALIGN=0 PCCL_SLICE_LOG=$L ./pccl-perf $P ;;
        grid) t timeout 60 env PCCL_BLOCKS=$b PCCL_SLICE_LOG=$L ./pccl-perf $P ;;
      esac
      [ -f $L ] && { echo "# b$b $v $i"; $R/scripts/slice-log --ranks $L; } >> $O/ranks.txt
    done
  done
done
grep -c "exit 0" $C >> $O/summary.txt
cd $O && tar czf logs.tgz logs && rm -rf logs && gzip -9 runs.txt
