#!/bin/bash
# Call 3 (2 H200s): call 2 again with the barrier after the buffers' allocation (2bc22fc): (a) nccl-tests
# -z 1 against pccl-perf --lib nccl (every round trip's time, --times) and pccl-perf with both
# libraries, 8 B-32 MiB by 4, all-reduce, all-gather, reduce, two interleaved rounds; (b) the tails of
# 100,000 8 KiB all-reduce round trips, both libraries (--times), and pccl with the slice off; (c) the
# 512 MiB all-reduce round trip, four runs, every round trip's time and every relaunch.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/x
{ nproc; grep -m1 "model name" /proc/cpuinfo; cat /proc/loadavg; } >> $S
F="-g 2 -b 8 -e 32M -f 4 -n 50 -w 10 -c 1"
for i in 1 2; do
  for c in all_reduce all_gather reduce; do
    t ./nt/${c}_perf $F -z 1
    t ./pccl-perf --lib nccl --coll $c $F --timing rt --times $O/x/nccl-$c-$i.csv
    t ./pccl-perf --coll $c $F --timing all
  done
done
t ./pccl-perf --coll all_reduce -g 2 -b 8K -e 8K -n 100000 -w 10 -c 0 --timing rt --times $O/x/tail-both.csv
t env PCCL_SLICE_US=0 ./pccl-perf --lib pccl --coll all_reduce -g 2 -b 8K -e 8K -n 100000 -w 10 -c 0 --timing rt \
    --times $O/x/tail-off.csv
for i in 1 2 3 4; do
  t env PCCL_SLICE_LOG=$O/x/slice-512-$i.csv ./pccl-perf --lib pccl --coll all_reduce -g 2 -b 512M -e 512M -n 20 -w 5 \
      -c 0 --timing rt --times $O/x/times-512-$i.csv
done
(cd $O && tar cf - x | xz -T4 > x.tar.xz && rm -rf x)
call_end
