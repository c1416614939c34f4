#!/bin/bash
# Call 9 (4 H200s, main 36b52e5): (b) the quiet spells after pcclRun learned to relaunch a sliced daemon
# itself once the gap is over (204a18d; calls 3-8 had 9-20 reports in eight runs of this sweep on the
# builds before): eight runs with PCCL_HANG_DUMP_MS=1; (c) the large-message spread (call 2: 128 MiB
# all-reduce 552-657 us between runs where nccl-tests' varied by 1%): five collectives at 128 MiB back
# to back, -n 100, each completion's time (--pccl-times), three interleaved rounds of the defaults
# (with PCCL_SLICE_LOG), the slice off, PCCL_DYNAMIC=0 and PCCL_SPIN_HEAD=100000, and nccl-tests -t 4
# on the same GPUs.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
timeout 15 ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
W="--coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 8 -e 32M -f 4 -g 4 -n 50 -w 10 -c 1 --timing all -T 60"
for i in 1 2 3 4 5 6 7 8; do
  t timeout 60 env PCCL_HANG_DUMP_MS=1 ./pccl-perf $W
done
echo "== (b) done at $((SECONDS - T0)) s" >> $S
L="-g 4 --lib pccl --coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 128M -e 128M -n 100 -w 10 -c 0 --timing b2b -T 60"
for i in 1 2 3; do
  t timeout 60 env PCCL_SLICE_LOG=$O/x/s-def-$i.csv ./pccl-perf $L --pccl-times $O/x/t-def-$i.csv
  t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $L --pccl-times $O/x/t-off-$i.csv
  t timeout 60 env PCCL_DYNAMIC=0 ./pccl-perf $L --pccl-times $O/x/t-dyn0-$i.csv
  t timeout 60 env PCCL_SPIN_HEAD=100000 ./pccl-perf $L --pccl-times $O/x/t-spin-$i.csv
  for c in all_reduce all_gather reduce_scatter reduce broadcast; do
    t timeout 30 ./nt/${c}_perf -b 128M -e 128M -t 4 -g 1 -n 100 -w 10 -c 0 -z 0
  done
done
echo "== (c) done at $((SECONDS - T0)) s" >> $S
(cd $O && tar cJf x.tar.xz x && rm -rf x)
call_end
