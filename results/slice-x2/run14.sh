#!/bin/bash
# Call 14 (2 H200s): the 16 MiB slow mode, per launch and block. pccl-perf-v1 is call 13's build with
# a diagnostic log (a variant, not landed, launch-log.patch: PCCL_LAUNCH_LOG=FILE, one line per launch end and block:
# its SM, the primitives and block completions it ran in that launch, its begin, first step and end
# on the GPU clock, the completions the poller had seen). Three rounds of 16 MiB with the slice and
# without; then 8 MiB and 64 MiB with the slice, one each.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
P="-g 2 --lib pccl --coll all_reduce -n 16000 -w 500 -c 0 -T 30"
for i in 1 2 3; do
  t timeout 30 env PCCL_LAUNCH_LOG=$O/x/on-$i.csv PCCL_SLICE_LOG=$O/x/log-on-$i.csv ./pccl-perf-v1 $P -b 16M -e 16M --pccl-times $O/x/times-on-$i.csv
  t timeout 30 env PCCL_LAUNCH_LOG=$O/x/off-$i.csv PCCL_SLICE_US=0 ./pccl-perf-v1 $P -b 16M -e 16M --pccl-times $O/x/times-off-$i.csv
done
t timeout 30 env PCCL_LAUNCH_LOG=$O/x/on-8M.csv ./pccl-perf-v1 $P -b 8M -e 8M
t timeout 30 env PCCL_LAUNCH_LOG=$O/x/on-64M.csv ./pccl-perf-v1 $P -b 64M -e 64M
(cd $O && for f in x/*.csv; do gzip -9 $f; done; tar cf x.tar x && rm -rf x)
call_end
