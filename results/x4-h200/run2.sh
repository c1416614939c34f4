#!/bin/bash
# Call 2 (4 H200s): call 1's rows below nccl-tests back to back, sampled longer. (a) 128 and 512 MiB,
# the five collectives, with the slice (4 ms, the default), without, and with 8 ms slices (pccl-perf
# -n 20 -w 5 --timing b2b), nccl-tests -t 4 -g 1 and -g 4 at the same sizes; (b) all-reduce 8 B-512 KiB
# back to back -n 2000 against nccl-tests -t 4 -g 1 -n 2000, two rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
timeout 15 ./pccl-perf -g 4 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
L="-g 4 --lib pccl --coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 128M -e 512M -f 4 -n 20 -w 5 -c 0 --timing b2b -T 60"
for c in all_reduce all_gather reduce_scatter reduce broadcast; do
  t timeout 30 ./nt/${c}_perf -b 128M -e 512M -f 4 -t 4 -g 1 -n 20 -w 5 -c 0 -z 0
  t timeout 30 ./nt/${c}_perf -b 128M -e 512M -f 4 -g 4 -n 20 -w 5 -c 0 -z 0
done
t timeout 60 ./pccl-perf $L
t timeout 60 env PCCL_SLICE_US=0 ./pccl-perf $L
t timeout 60 env PCCL_SLICE_US=8000 ./pccl-perf $L
echo "== (a) done at $((SECONDS - T0)) s" >> $S
S2="-g 4 --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 2000 -w 100 -c 0 --timing b2b -T 60"
for i in 1 2; do
  t timeout 30 ./nt/all_reduce_perf -b 8 -e 512K -f 4 -t 4 -g 1 -n 2000 -w 100 -c 0 -z 0
  t timeout 60 ./pccl-perf $S2
done
call_end
