#!/bin/bash
# Call 1 (4 H200s, NV18): issue 16's side-by-side on 4 GPUs with this session's build (block 0 reads
# the host's SQ while it waits, the poller relaunches on the end word; results/slice-x2/ calls 21-22),
# which no 4-GPU kind had measured since results/slice-h200/: (a) a 15 s smoke run; (b)
# perf-vs-nccl-tests --gpus 4; (c) the stalls: a 5-collective sweep (-n 50) with PCCL_HANG_DUMP_MS=1,
# three interleaved rounds this build / the base (results/slice-x2/ call 21's); (d) the slice at 8 B
# and 8 MiB back to back, off / on, two rounds, with PCCL_SLICE_LOG; (e) the GPU suite on 4 GPUs and
# the paper's random-order test, plain and chaos.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
timeout 15 ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
step vs4 0 200 ./perf-vs-nccl-tests --gpus 4 --out $O/x/vs4 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
cp $O/x/vs4/vs-nccl-tests.txt $O/vs4-nccl-tests.txt
W="--coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 8 -e 32M -f 4 -g 4 -n 50 -w 10 -c 1 --timing all -T 60"
for i in 1 2 3; do
  t timeout 60 env PCCL_HANG_DUMP_MS=1 ./pccl-perf $W
  t timeout 60 env PCCL_HANG_DUMP_MS=1 ./pccl-perf-base $W
done
echo "== (c) done at $((SECONDS - T0)) s" >> $S
P="-g 4 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30"
for i in 1 2; do
  for s in "8 -n 50000" "8M -n 10000"; do
    t timeout 20 env PCCL_SLICE_US=0 ./pccl-perf $P -b ${s%% *} -e $s
    t timeout 20 env PCCL_SLICE_LOG=$O/x/c-$i-${s%% *}.csv ./pccl-perf $P -b ${s%% *} -e $s
  done
done
echo "== (d) done at $((SECONDS - T0)) s" >> $S
(cd $O && tar cJf x.tar.xz x && rm -rf x)
BUDGET=500 step suite 0 120 ./pccl-gpu-test --gpus 4 --quick
BUDGET=500 step random 0 40 ./pccl-deadlock --gpus 4 --iters 100
BUDGET=500 step chaos 0 40 ./pccl-deadlock --gpus 4 --iters 30 --chaos
call_end
