#!/bin/bash
# Call 27 (2 H200s, 2026-11-29): call 26's stalls from the daemon's side: the same twelve sweeps with
# the hang report at 1 ms (PCCL_HANG_DUMP_MS=1: with invocations outstanding and no completion for 1
# ms, what the rank knows: the daemon's launches, each block's saved queue and posted wait, the
# collectives' step counters, the poller's last passes) beside the stall report (PCCL_POLLER_STALL_US=300)
# and every completion's time; gaps.py with the reports. The dumps copy device memory under the
# communicator's lock: a diagnosis that perturbs what it looks at.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/x4-h200/run27.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
for k in $(seq 12); do
  [ $((SECONDS - T0)) -gt 300 ] && break
  env PCCL_HANG_DUMP_MS=1 PCCL_POLLER_STALL_US=300 ./pccl-perf -g 2 --lib pccl \
      --coll all_reduce,reduce_scatter,reduce -d bfloat16 -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all \
      --times $O/t/t-$k.csv > $O/t/out-$k.txt 2> $O/t/err-$k.txt
  echo "== sweep $k: exit $?" >> "$C"
  t python3 ../../results/x4-h200/gaps.py $O/t/t-$k.csv - $O/t/err-$k.txt
done
(cd $O && tar cf - t | xz -T4 > t.tar.xz && rm -rf t)
call_end
