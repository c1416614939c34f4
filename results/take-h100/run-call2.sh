#!/bin/bash
# Issue 16: the copy without the division compiled in (p), the context kept by take + one device SQ entry into an
# empty queue (s), both (sp), against main 144dff2 (base); one rank all-reduce both timings, 2 rounds interleaved,
# nccl-tests beside; two ranks sharing the GPU; all collectives 1-128 MiB; the GPU suite; sanitizers timed.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/tr2; O=$OUT/tr2; mkdir -p $O; C=$O/runs.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
nvidia-smi -L >> $C
t timeout 120 ./pccl-gpu-test --gpus 1
t timeout 60 ./pccl-share --reps 6
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 4 -n 300 -w 20 -c 1 --check-max 16M --timing all -T 30"
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 4 -n 300 -w 20 -z 0
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 4 -n 300 -w 20 -z 1
for i in 1 2; do for v in base s p sp; do t timeout 60 ./pccl-perf-$v $P; done; done
A="-g 1 --lib pccl --coll all -b 1M -e 128M -f 8 -n 100 -w 10 -c 1 --check-max 16M --timing b2b -T 30"
for v in base sp; do t timeout 90 ./pccl-perf-$v $A; done
for c in all_gather broadcast reduce_scatter; do t timeout 30 ./nt/${c}_perf -g 1 -b 1M -e 128M -f 8 -n 100 -w 10; done
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 32K -e 32M -f 4 -n 200 -w 20 -c 1 --check-max 8M --timing all -T 30"
for v in base sp; do t timeout 90 ./pccl-perf-$v $S; done
CS="compute-sanitizer --error-exitcode 9"
t timeout 150 env PCCL_BLOCKS=8 $CS --tool racecheck ./pccl-perf-sp -g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 1048576 -n 2 -w 1 -c 1 --timing rt -T 0
t timeout 100 $CS --tool synccheck ./pccl-perf-sp -g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 64 -n 4 -w 1 -c 1 --timing all -T 0
t timeout 150 $CS --tool memcheck ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
gzip -9 $C
