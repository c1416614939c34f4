#!/bin/bash
# Call 15 (4 H200s): the final build (invocation order, pccl_had, PCCL_CROSS_POLLS=1024 by default):
# four runs of call 9's 5-collective sweep with PCCL_HANG_DUMP_MS=1 (quiet spells); the five
# collectives at 32 and 128 MiB back to back (-n 100), slice on and off, two rounds, with nccl-tests
# -t 4 at 128 MiB (-n 100) beside them; the table against nccl-tests; the paper's random-order test
# plain, with a synchronization after each invocation, and in chaos mode; the GPU suite on 4 GPUs.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
timeout 15 ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
W="--coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 8 -e 32M -f 4 -g 4 -n 50 -w 10 -c 1 --timing all -T 60"
for i in 1 2 3 4; do
  t timeout 60 env PCCL_HANG_DUMP_MS=1 ./pccl-perf $W
done
P="-g 4 --lib pccl --coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 32M -e 128M -f 4 -n 100 -w 10 -c 0 --timing b2b -T 60"
for i in 1 2; do
  t timeout 60 ./pccl-perf $P
  t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $P
done
for c in all_reduce all_gather reduce_scatter reduce broadcast; do
  t timeout 30 ./nt/${c}_perf -b 128M -e 128M -t 4 -g 1 -n 100 -w 10 -c 0 -z 0
done
echo "== large done at $((SECONDS - T0)) s" >> $S
step vs4 0 240 ./perf-vs-nccl-tests --gpus 4 --out $O/x/vs4 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
cp $O/x/vs4/vs-nccl-tests.txt $O/vs4-nccl-tests.txt
(cd $O && tar cJf x.tar.xz x && rm -rf x)
BUDGET=560 step random 0 40 ./pccl-deadlock --gpus 4 --iters 100
BUDGET=560 step random-sync 0 60 ./pccl-deadlock --gpus 4 --iters 100 --sync
BUDGET=560 step chaos 0 40 ./pccl-deadlock --gpus 4 --iters 30 --chaos
BUDGET=560 step suite 0 150 ./pccl-gpu-test --gpus 4 --quick
call_end
