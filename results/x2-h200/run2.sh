#!/bin/bash
# Call 2 (2 H200s): (a) why pccl-perf's NCCL round trips differ from nccl-tests' -z 1 on 2 GPUs (call 1:
# +5-8 us for all-reduce, all-gather, reduce-scatter, -1 to -5 us for reduce and broadcast): nccl-tests
# -z 1, pccl-perf --lib nccl (no pccl communicator at all) and pccl-perf with both libraries, 8 B-32 MiB
# by 4, two interleaved rounds; (b) call 1's one slow round trip (bfloat16 reduce-scatter 8 KiB in place,
# 57 us against 17): 100,000 round trips each placement with every one's time (--pccl-times, rt) and
# every relaunch (PCCL_SLICE_LOG), bfloat16 reduce-scatter and float all-reduce; (c) the 512 MiB
# all-reduce round trip (call 1: 1779 us in place against nccl-tests' 1709), slice on and off.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
mkdir -p $O/x
F="-g 2 -b 8 -e 32M -f 4 -n 50 -w 10 -c 1"
for i in 1 2; do
  for c in all_reduce all_gather reduce; do
    t ./nt/${c}_perf $F -z 1
    t ./pccl-perf --lib nccl --coll $c $F --timing rt
    t ./pccl-perf --coll $c $F --timing all
  done
done
for d in "reduce_scatter -d bfloat16" "all_reduce -d float"; do
  n=${d%% *}
  t env PCCL_SLICE_LOG=$O/x/slice-$n.csv ./pccl-perf --lib pccl --coll $d -g 2 -b 8K -e 8K -n 100000 -w 10 -c 0 \
      --timing rt --pccl-times $O/x/times-$n.csv
done
for i in 1 2; do
  t ./pccl-perf --coll all_reduce -g 2 -b 512M -e 512M -n 20 -w 5 -c 0 --timing all
  t env PCCL_SLICE_US=0 ./pccl-perf --lib pccl --coll all_reduce -g 2 -b 512M -e 512M -n 20 -w 5 -c 0 --timing all
done
(cd $O && tar cf - x | xz -T4 > x.tar.xz && rm -rf x)
call_end
