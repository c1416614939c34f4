#!/bin/bash
# Call 13 (2 H200s): the 16 MiB slow mode against where the daemon's blocks run. The slice log has
# four more columns (lib/slice.c): the relaunch's SMs (distinct), its blocks sharing an SM with
# another daemon block, its span (us) and the completions seen in it, so each relaunch's pace can be
# set against its placement. pccl-perf-v1 is that build with PCCL_SMEM_PAD=BYTES (a variant, not
# landed: the launch asks that much dynamic shared memory, 120000 B leaving room for one daemon block
# (c0adaaf with launch-log.patch, PCCL_LAUNCH_LOG unset: the log writes nothing)
# per SM). Four rounds of 16 MiB on / pad on / off / pad off; then 4-64 MiB on and off, two rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
P="-g 2 --lib pccl --coll all_reduce -n 16000 -w 500 -c 0 -T 30"
for i in 1 2 3 4; do
  t timeout 30 env PCCL_SLICE_LOG=$O/x/log-on-$i.csv ./pccl-perf-v1 $P -b 16M -e 16M
  t timeout 30 env PCCL_SLICE_LOG=$O/x/log-pad-$i.csv PCCL_SMEM_PAD=120000 ./pccl-perf-v1 $P -b 16M -e 16M
  t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf-v1 $P -b 16M -e 16M
  t timeout 30 env PCCL_SLICE_US=0 PCCL_SMEM_PAD=120000 ./pccl-perf-v1 $P -b 16M -e 16M
done
echo "== (1) done at $((SECONDS - T0)) s" >> $S
for i in 1 2; do
  for s in 4M 8M 12M 24M 32M 64M; do
    t timeout 30 env PCCL_SLICE_LOG=$O/x/log-$s-$i.csv ./pccl-perf-v1 $P -b $s -e $s
    t timeout 30 env PCCL_SLICE_US=0 ./pccl-perf-v1 $P -b $s -e $s
  done
done
(cd $O && tar cJf x.tar.xz x && rm -rf x)
call_end
