#!/bin/bash
# Issue 16: new = the copy without the division compiled in + take keeps the context for the next pick + the device
# SQ's next slot looked at while an entry is taken; p = the copy change alone; base = main 144dff2.
# One rank all-reduce both timings, 3 rounds interleaved, nccl-tests beside; all collectives; two ranks sharing
# the GPU; probe build; the GPU suite, pccl-share, pccl-fault --share 2; sanitizers.
set -u
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev/tr3; O=$OUT/tr3; mkdir -p $O; C=$O/runs.txt
t() { local t0=$SECONDS; echo "== $*" >> $C; "$@" >> $C 2>&1; echo "== exit $? ($((SECONDS - t0)) s)" >> $C; }
nvidia-smi -L >> $C
t timeout 120 ./pccl-gpu-test --gpus 1
t timeout 60 ./pccl-share --reps 6
t timeout 200 ./pccl-fault --share 2 --seeds 4
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 128M -f 4 -n 300 -w 20 -c 1 --check-max 16M --timing all -T 30"
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 4 -n 300 -w 20 -z 0
t timeout 60 ./nt/all_reduce_perf -g 1 -b 8 -e 128M -f 4 -n 300 -w 20 -z 1
for i in 1 2 3; do for v in base p new; do t timeout 60 ./pccl-perf-$v $P; done; done
A="-g 1 --lib pccl --coll all -b 1M -e 128M -f 8 -n 100 -w 10 -c 1 --check-max 16M --timing b2b -T 30"
for i in 1 2; do for v in base new; do t timeout 90 ./pccl-perf-$v $A; done; done
for c in all_gather broadcast reduce_scatter; do t timeout 30 ./nt/${c}_perf -g 1 -b 1M -e 128M -f 8 -n 100 -w 10; done
S="-g 2 --share-gpu --lib pccl --coll all_reduce -b 32K -e 32M -f 4 -n 200 -w 20 -c 1 --check-max 8M --timing all -T 30"
for i in 1 2; do for v in base new; do t timeout 90 ./pccl-perf-$v $S; done; done
for s in 128M 16M 2M; do
  PCCL_XPROBE=$O/xp.csv timeout 60 ./pccl-perf-xp -g 1 --lib pccl --coll all_reduce -b $s -e $s -n 300 -w 5 -c 0 --timing b2b -T 30 > /dev/null 2>&1
  python3 an.py $O/xp.csv > $O/an-$s.txt 2>&1; rm -f $O/xp.csv
done
CS="compute-sanitizer --error-exitcode 9"
t timeout 150 env PCCL_BLOCKS=8 $CS --tool racecheck ./pccl-perf-new -g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 1024 -n 2 -w 1 -c 1 --timing all -T 0
t timeout 100 $CS --tool synccheck ./pccl-perf-new -g 1 --lib pccl --coll all -b 8 -e 128M -f 64 -n 4 -w 1 -c 1 --timing all -T 0
t timeout 100 $CS --tool initcheck ./pccl-perf-new -g 1 --lib pccl --coll all_reduce -b 8 -e 8M -f 1024 -n 4 -w 1 -c 1 --timing all -T 0
t timeout 150 $CS --tool memcheck ./pccl-gpu-test --gpus 1 --quick --max-bytes 1M
gzip -9 $C
