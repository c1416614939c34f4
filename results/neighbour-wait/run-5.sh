#!/bin/bash
# A wait the slice cut stays posted (keep) against 7206d15 (ext), one H100: two processes sharing the GPU
# (their contexts take turns), the paper's random orders with a device synchronization after every invocation,
# with no spin threshold (2^40 polls) and with the defaults; the stall case with no threshold; the one-GPU
# correctness steps with keep.  A quiet spell of 3 s prints the hang dump (PCCL_HANG_DUMP_MS=3000).
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
H=.dev/hint; G=results/share-stalls-h100/gaps.py; O=$OUT/n5; mkdir -p $O; C=$O/runs-5.txt
T=1099511627776; NT="PCCL_SPIN_HEAD=$T PCCL_SPIN_BASE=$T PCCL_SPIN_MIN=$T PCCL_STICKY=1"
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
for i in 1 2 3 4 5; do for v in ext keep; do
  env $NT PCCL_HANG_DUMP_MS=3000 timeout 60 $H/pccl-multiproc-$v --share 2 --iters 100 --sync --timeout 20 > $O/m.txt 2>&1
  echo "$v no threshold run $i: exit $? $(grep RESULT $O/m.txt) quiet spells $(grep -c 'no completion' $O/m.txt)" >> $O/sync-5.txt
  cat $O/m.txt >> $C
done; done
for i in 1 2 3; do for v in ext keep; do
  PCCL_HANG_DUMP_MS=3000 timeout 60 $H/pccl-multiproc-$v --share 2 --iters 100 --sync --timeout 20 > $O/m.txt 2>&1
  echo "$v defaults run $i: exit $? $(grep RESULT $O/m.txt) quiet spells $(grep -c 'no completion' $O/m.txt)" >> $O/sync-5.txt
done; done
rm -f $O/m.txt
for i in 1 2 3 4 5; do
  env $NT timeout 60 $H/pccl-perf-keep -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 200 -w 20 -c 0 --timing b2b -T 20 --pccl-times $O/t.csv > $O/p.txt 2>&1
  echo "keep no threshold run $i: exit $? time out/in $(grep -E '^ *8388608' $O/p.txt | awk '{print $8, $12}'); $(python3 $G $O/t.csv 2>/dev/null | awk '/rank 0/{printf "in place %s: %s gaps > 200 us, largest %s %s %s us; ", $4, $17, $19, $20, $21}')" >> $O/stall-5.txt
done
rm -f $O/t.csv $O/p.txt
t timeout 120 $H/pccl-gpu-test --gpus 1
t timeout 100 $H/pccl-share --reps 4
t timeout 150 $H/pccl-fault --share 2 --seeds 4
cat $O/sync-5.txt $O/stall-5.txt
gzip -9 $C
