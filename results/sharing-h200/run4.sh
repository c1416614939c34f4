#!/bin/bash
# Call 4 (one H200): the long intervals of call 3 (back-to-back means 7-12% above the medians, slice or
# not): pace.py --tail on all-reduce back to back at 8 B and 32 KiB, slice off and on (the intervals'
# percentiles, the time the long ones take, their phase in the host's millisecond); the host's kernel
# tick (CONFIG_HZ) and its local timer interrupts over one second.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
{ uname -r; grep -E "^CONFIG_HZ=|^CONFIG_NO_HZ" /boot/config-$(uname -r) 2>&1; nproc;
  a=$(grep LOC /proc/interrupts | awk '{s=0; for(i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s+=$i; print s}'); sleep 1;
  b=$(grep LOC /proc/interrupts | awk '{s=0; for(i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s+=$i; print s}');
  echo "local timer interrupts in 1 s, all CPUs: $((b - a))"; } > $O/host.txt 2>&1
P="-g 1 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30 -n 80000"
for n in 8 32K; do
  t timeout 20 env PCCL_SLICE_US=0 ./pccl-perf $P -b $n -e $n --pccl-times $O/x/t-off-$n.csv
  t timeout 20 env PCCL_SLICE_LOG=$O/x/s-on-$n.csv ./pccl-perf $P -b $n -e $n --pccl-times $O/x/t-on-$n.csv
  echo "== off, $n" >> $O/pace.txt; python3 ../../results/sharing-h200/pace.py --tail $O/x/t-off-$n.csv >> $O/pace.txt 2>&1
  echo "== on, $n" >> $O/pace.txt; python3 ../../results/sharing-h200/pace.py --tail $O/x/t-on-$n.csv $O/x/s-on-$n.csv >> $O/pace.txt 2>&1
done
rm -rf $O/x
call_end
