#!/bin/bash
# A neighbour's posted wait on one H100: base = main dfd7c18, final = with it (pccl-perf and pccl-multiproc of
# `make gpu` in each tree, staged in .dev/hint/ as pccl-perf-{base,final}, pccl-multiproc-{base,final}).
# 1. the stall case of ../share-stalls-h100: two ranks sharing the GPU, 8 MiB back to back, 4 in flight, every
#    completion's time (gaps.py there), 8 runs each, interleaved;
# 2. two ranks sharing the GPU, all-reduce 8 B-32 MiB both timings, and all five collectives back to back;
# 3. one rank, all-reduce 8 B-128 MiB both timings (no neighbour: nothing should change);
# 4. two processes sharing GPU 0 (their contexts take turns), the paper's random orders, 3 runs each;
# 5. compute-sanitizer memcheck and racecheck of the stall case, and the correctness suites.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
H=.dev/hint; G=results/share-stalls-h100/gaps.py; O=$OUT/nw; mkdir -p $O; C=$O/runs.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
nvidia-smi -L >> $C
for i in 1 2 3 4 5 6 7 8; do for v in base final; do
  timeout 60 $H/pccl-perf-$v -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 200 -w 20 -c 0 --timing b2b --pccl-times $O/t.csv > $O/p.txt 2>&1
  echo "$v run $i: time out/in $(grep -E '^ *8388608' $O/p.txt | awk '{print $8, $12}'); $(python3 $G $O/t.csv | awk '/rank 0/{printf "in place %s: %s gaps > 200 us, largest %s %s %s us; ", $4, $17, $19, $20, $21}')" >> $O/stall.txt
done; done
rm -f $O/t.csv $O/p.txt
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 8 -e 32M -f 4 -n 200 -w 20 -c 1 --check-max 8M --timing all -T 30"
for i in 1 2; do for v in base final; do t timeout 120 $H/pccl-perf-$v $S; done; done
A="-g 2 --share-gpu --lib pccl --coll all -b 32K -e 32M -f 32 -n 100 -w 10 -c 1 --check-max 8M --timing b2b -T 30"
for i in 1 2; do for v in base final; do t timeout 120 $H/pccl-perf-$v $A; done; done
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 16 -n 300 -w 20 -c 1 --check-max 16M --timing all -T 30"
for i in 1 2; do for v in base final; do t timeout 60 $H/pccl-perf-$v $P; done; done
for i in 1 2 3; do for v in base final; do t timeout 120 $H/pccl-multiproc-$v --share 2 --iters 200; done; done
CS="compute-sanitizer --error-exitcode 9"
t timeout 150 $CS --tool memcheck $H/pccl-perf-final -g 2 --share-gpu --lib pccl --coll all_reduce -b 8M -e 8M -n 40 -w 2 -c 0 --timing b2b -T 0
t timeout 150 env PCCL_BLOCKS=8 $CS --tool racecheck $H/pccl-perf-final -g 2 --share-gpu --lib pccl --coll all_reduce -b 8K -e 8M -f 1024 -n 20 -w 2 -c 1 --timing b2b -T 0
t timeout 120 $H/pccl-gpu-test --gpus 1
t timeout 100 $H/pccl-share --reps 4
t timeout 150 $H/pccl-fault --share 2 --seeds 4
gzip -9 $C
