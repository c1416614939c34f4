#!/bin/bash
# No spin threshold on one H100 (PCCL_SPIN_HEAD/BASE/MIN = 2^40 polls, PCCL_STICKY=1): every wait ends by a
# neighbour's posted wait or never, so a case the hint misses shows as a hang, and PCCL_HANG_DUMP_MS prints each
# block's posted wait then.  7206d15's pccl-perf and pccl-multiproc (.dev/hint/*-ext).
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
H=.dev/hint; G=results/share-stalls-h100/gaps.py; O=$OUT/n4; mkdir -p $O; C=$O/runs-4.txt
T=1099511627776
export PCCL_SPIN_HEAD=$T PCCL_SPIN_BASE=$T PCCL_SPIN_MIN=$T PCCL_STICKY=1
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
for i in $(seq 1 10); do
  PCCL_HANG_DUMP_MS=300 timeout 60 $H/pccl-perf-ext -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 200 -w 20 -c 0 --timing b2b -T 20 --pccl-times $O/t.csv > $O/p$i.txt 2>&1
  echo "run $i: exit $? time out/in $(grep -E '^ *8388608' $O/p$i.txt | awk '{print $8, $12}'); $(python3 $G $O/t.csv 2>/dev/null | awk '/rank 0/{printf "in place %s: %s gaps > 200 us, largest %s %s %s us; ", $4, $17, $19, $20, $21}')" >> $O/stall-4.txt
done
rm -f $O/t.csv
t timeout 120 env PCCL_HANG_DUMP_MS=300 $H/pccl-perf-ext -g 2 --share-gpu --lib pccl --coll all -b 8 -e 32M -f 8 -n 100 -w 10 -c 1 --check-max 8M --timing all -T 20
for s in "" --sync; do for i in 1 2; do t timeout 120 $H/pccl-multiproc-ext --share 2 --iters 100 $s; done; done
cd $O && tar czf perf-4.tgz p*.txt && rm -f p*.txt && gzip -9 runs-4.txt
