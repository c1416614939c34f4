#!/bin/bash
# Call 4 (2 H200s): the launch ahead on 2 GPUs.  Back-to-back float sum all-reduces, pccl-perf -g 2,
# scripts/perf-ab --rounds 4 (A B B A), one size per run: the default (6 ms slice, launch ahead)
# against no slice (B: PCCL_SLICE_US=0 through a wrapper) at 8 B, 32 KiB, 2 MiB, 128 MiB, and against
# the same slice relaunched after the end (PCCL_SLICE_AHEAD_US=0) at 8 B, 2 MiB, 128 MiB; nccl-tests
# beside (-g 2 and -t 2); then scripts/test-gpu on both GPUs (ITERS=100; the cross-rank sharing test
# among its steps).  Staged by bash results/x2-h200/stage.sh with this checkout's make gpu; device
# command:
#   tar xJf .dev/x2.tar.xz -C .dev && bash results/ahead-h200/run4.sh
set -u
export NCCL_NVLS_ENABLE=0
top=$PWD
cd .dev/x2
. ./call.sh
call_begin d
printf '#!/bin/sh\nPCCL_SLICE_US=0 exec "$(dirname "$0")/pccl-perf" "$@"\n' > off && chmod +x off
printf '#!/bin/sh\nPCCL_SLICE_AHEAD_US=0 exec "$(dirname "$0")/pccl-perf" "$@"\n' > noahead && chmod +x noahead
for s in "8 100000 off" "32K 100000 off" "2M 50000 off" "128M 1500 off" "8 100000 noahead" "2M 50000 noahead" \
         "128M 1500 noahead"; do
  set -- $s
  t ../../scripts/perf-ab --rounds 4 --out $O/ab-$1-$3 ./pccl-perf ./$3 -- --lib pccl -g 2 --coll all_reduce -b $1 -e $1 \
      -n $2 -w 2000 -c 0 --timing b2b
done
t ./nt/all_reduce_perf -g 2 -b 8 -e 128M -f 64 -n 2000 -w 200 -c 0
t ./nt/all_reduce_perf -t 2 -g 1 -b 8 -e 128M -f 64 -n 2000 -w 200 -c 0
for d in $O/ab-*; do cat $d/ab.txt >> $S; done
(cd $O && tar cf - ab-* | xz -T4 > ab.tar.xz && rm -rf ab-*)
cd "$top"
mkdir -p build && ln -sfn ../.dev/x2 build/gpu
step test-gpu 0 330 env ITERS=100 scripts/test-gpu --report $O/pccl-gpu.md
call_end
