#!/bin/bash
# Call 1 (2 H200s): the launcher thread (lib/launch.c) against the poller's own launch call
# (PCCL_SLICE_LAUNCHER=0), and the 6 ms slice's cost against none, with it.
# One GPU (GPU 0): pccl-slice-ab, 24 rounds in 4 sets, at 8 B and 32 KiB three times each: launcher
# against poller (both sliced), and the default against no slice; 2 MiB and 512 MiB the default
# against none once; every completion's time at 8 B (pccl-perf --times, lost.py) with the launcher,
# with the poller's call, and without a slice, twice each.
# Two GPUs: scripts/perf-ab --rounds 4 (A B B A) of pccl-perf -g 2, back-to-back all-reduces: the
# default against no slice at 8 B, 32 KiB, 2 MiB, 128 MiB; against the poller's call at 8 B, 2 MiB.
# Staged by bash results/x2-h200/stage.sh after make gpu; device command:
#   tar xJf .dev/x2.tar.xz -C .dev && bash results/launcher-h200/run1.sh
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
for k in 1 2 3; do
  for s in 8 32K; do
    t env CUDA_VISIBLE_DEVICES=0 ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4 --base-us 6000 \
        --b-env PCCL_SLICE_LAUNCHER=0
    t env CUDA_VISIBLE_DEVICES=0 ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4
  done
done
t env CUDA_VISIBLE_DEVICES=0 ./pccl-slice-ab -b 2M -n 5000 -r 24 --sets 4
t env CUDA_VISIBLE_DEVICES=0 ./pccl-slice-ab -b 512M -n 40 -r 24 --sets 4
mkdir -p $O/times $O/times-poller
for k in 1 2; do
  p="./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 300000 -w 5000 -c 0 --timing b2b"
  t env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_LOG=$O/times/slog-on-$k.csv $p --times $O/times/t-on-$k.csv
  t env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_LAUNCHER=0 PCCL_SLICE_LOG=$O/times-poller/slog-on-$k.csv $p \
      --times $O/times-poller/t-on-$k.csv
  t env CUDA_VISIBLE_DEVICES=0 PCCL_SLICE_US=0 $p --times $O/times/t-off-$k.csv
  cp $O/times/t-off-$k.csv $O/times-poller/
done
t python3 lost.py $O/times
t python3 lost.py $O/times-poller
rm -rf $O/times $O/times-poller
printf '#!/bin/sh\nPCCL_SLICE_US=0 exec "$(dirname "$0")/pccl-perf" "$@"\n' > off && chmod +x off
printf '#!/bin/sh\nPCCL_SLICE_LAUNCHER=0 exec "$(dirname "$0")/pccl-perf" "$@"\n' > poller && chmod +x poller
for s in "8 100000 off" "32K 100000 off" "2M 50000 off" "128M 1500 off" "8 100000 poller" "2M 50000 poller"; do
  set -- $s
  t ../../scripts/perf-ab --rounds 4 --out $O/ab-$1-$3 ./pccl-perf ./$3 -- --lib pccl -g 2 --coll all_reduce -b $1 \
      -e $1 -n $2 -w 2000 -c 0 --timing b2b
done
for d in $O/ab-*; do cat $d/ab.txt >> $S; done
(cd $O && tar cf - ab-* | xz -T4 > ab.tar.xz && rm -rf ab-*)
call_end
