#!/bin/bash
# "Cannot run X yet" beside a posted wait (ext) against main dfd7c18 (base) and the posted wait alone (final,
# c6150a1): the stall case, 10 rounds of the three interleaved (stall-3.txt); two ranks sharing the GPU and one
# rank, all-reduce 8 B-32 MiB, 2 runs each of base and ext; the one-GPU correctness steps with ext (runs-3.txt.gz).
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
H=.dev/hint; G=results/share-stalls-h100/gaps.py; O=$OUT/n3; mkdir -p $O; C=$O/runs-3.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
nvidia-smi -L >> $C
for i in $(seq 1 10); do for v in base final ext; do
  timeout 60 $H/pccl-perf-$v -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 200 -w 20 -c 0 --timing b2b --pccl-times $O/t.csv > $O/p.txt 2>&1
  echo "$v run $i: time out/in $(grep -E '^ *8388608' $O/p.txt | awk '{print $8, $12}'); $(python3 $G $O/t.csv | awk '/rank 0/{printf "in place %s: %s gaps > 200 us, largest %s %s %s us; ", $4, $17, $19, $20, $21}')" >> $O/stall-3.txt
done; done
rm -f $O/t.csv $O/p.txt
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 32M -f 4 -n 200 -w 20 -c 1 --check-max 8M --timing all -T 30"
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 16 -n 300 -w 20 -c 1 --check-max 16M --timing all -T 30"
for i in 1 2; do for v in base ext; do t timeout 120 $H/pccl-perf-$v $S; t timeout 60 $H/pccl-perf-$v $P; done; done
for i in 1 2; do for v in base ext; do t timeout 120 $H/pccl-multiproc-$v --share 2 --iters 200; done; done
t timeout 120 $H/pccl-gpu-test --gpus 1
t timeout 100 $H/pccl-share --reps 4
t timeout 150 $H/pccl-fault --share 2 --seeds 4
gzip -9 $C
