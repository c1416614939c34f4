#!/bin/bash
# Call 6 (2 H200s): the example program, which test-gpu runs on every multi-GPU host, now given the
# host's GPU count (call 5: it asked for 4 GPUs of a 2-GPU host and failed), and a bad count refused;
# then issue 22's cost on 2 GPUs in longer sweeps than call 5's (-n 100000), on against off, four
# interleaved rounds, nccl-tests -g 2 beside them.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
n=$(nvidia-smi -L | grep -c '^GPU')
step example$n 0 60 ./pccl-example $n
step example-bad 2 10 ./pccl-example 9
P="-g 2 --lib pccl --coll all_reduce -b 8 -e 128M -f 8 -n 100000 -w 50 --iter-bytes 64G --check-max 16M -T 20"
for i in 1 2 3 4; do
  for s in "" PCCL_SLICE_US=0; do
    t timeout 40 env $s ./pccl-perf $P
  done
done
t timeout 20 ./nt/all_reduce_perf -g 2 -b 8 -e 128M -f 8 -n 2000 -w 50
cp $C $O/perf.txt
call_end
