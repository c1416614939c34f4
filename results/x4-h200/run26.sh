#!/bin/bash
# Call 26 (2 H200s, 2026-11-29): call 24 again with every relaunch after a slice logged (PCCL_SLICE_LOG), so
# that gaps.py sets the stalls beside the cuts too; the quiet spells with the stall report's
# timestamps (741f002: each report names its pass's start on the clock of --times), and the host's CPU
# accounting around them: 12 sweeps of call 19's three collectives (bfloat16, 8 B-8 MiB, every
# completion timed) with PCCL_POLLER_STALL_US=300, vmstat every second and /proc/stat's cpu line (its
# steal column: time the hypervisor ran something else) before and after; gaps.py with the reports.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/x4-h200/run26.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/t
{ nproc; head -1 /proc/stat; cat /proc/loadavg; } > $O/cpu-before.txt
(vmstat -t 1 > $O/vmstat.txt 2>&1 &) ; sleep 1
for k in $(seq 12); do
  [ $((SECONDS - T0)) -gt 300 ] && break
  env PCCL_POLLER_STALL_US=300 PCCL_SLICE_LOG=$O/t/log-$k.csv ./pccl-perf -g 2 --lib pccl --coll all_reduce,reduce_scatter,reduce -d bfloat16 \
      -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all --times $O/t/t-$k.csv > $O/t/out-$k.txt 2> $O/t/err-$k.txt
  echo "== sweep $k: exit $?" >> "$C"
  t python3 ../../results/x4-h200/gaps.py $O/t/t-$k.csv $O/t/log-$k.csv $O/t/err-$k.txt
done
{ nproc; head -1 /proc/stat; cat /proc/loadavg; } > $O/cpu-after.txt
pkill vmstat
(cd $O && tar cf - t | xz -T4 > t.tar.xz && rm -rf t)
call_end
