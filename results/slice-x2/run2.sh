#!/bin/bash
# Call 2 (2 H200s): 16 MiB all-reduce back to back runs at ~58 or ~67 us per invocation out of place
# (call 1: slice on 66-67 in both rounds, off 60; ../slice-h200/ call 6: on 3 rounds of 4 slow, off 1
# of 4). Is the slow mode the slice's? Every completion timed (--pccl-times) and every relaunch logged
# (PCCL_SLICE_LOG), on / off / the checks alone (a 60 s slice), three rounds; PCCL_SPREAD=0 on and off.
# Then main against nccl-tests on 2 GPUs (issue 16; call 1's copy did not come back).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
P="-g 2 --lib pccl --coll all_reduce -b 16M -e 16M -n 16000 -w 500 -c 0 -T 30"
for i in 1 2 3; do
  t timeout 30 env PCCL_SLICE_LOG=$O/x/log-on-$i.csv ./pccl-perf $P --pccl-times $O/x/times-on-$i.csv
  t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf $P --pccl-times $O/x/times-off-$i.csv
  t timeout 30 env PCCL_SLICE_US=60000000 ./pccl-perf $P --pccl-times $O/x/times-checks-$i.csv
done
t timeout 30 env PCCL_SPREAD=0 ./pccl-perf $P
t timeout 30 env PCCL_SPREAD=0 PCCL_SLICE_US=0 ./pccl-perf $P
echo "== (1) done at $((SECONDS - T0)) s" >> $S
step vs2 0 240 ./perf-vs-nccl-tests --gpus 2 --out $O/x/vs2 --nccl-tests ./nt --bin ./pccl-perf -b 8 -e 1G -f 4 -n 50 -w 10
cp $O/x/vs2/vs-nccl-tests.txt $O/vs2-nccl-tests.txt
(cd $O && tar cJf x.tar.xz x && rm -rf x)
call_end
