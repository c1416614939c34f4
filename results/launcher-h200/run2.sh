#!/bin/bash
# Call 2 (2 H200s): the launcher only where the poller may run on more than one CPU (call 1 found it
# costing 0.2-1.5% on the poller's one CPU, pccl-slice-ab's pinned poller).  One GPU (GPU 0):
# pccl-slice-ab unpinned (--poller-cpu -1), 8 B and 32 KiB three times each, the launcher against the
# poller's call (both sliced) and the default against no slice; pinned (the tool's default, so the
# launcher stays off) the same A/B at 8 B twice: a null.  Two GPUs: scripts/perf-ab of pccl-perf -g 2
# back to back, the launcher against the poller's call at 8 B and 2 MiB (6 rounds), the default
# against no slice at 8 B and 32 KiB (4 rounds).  Then scripts/test-gpu --sanitize (ITERS=100) on both.
# Staged by bash results/x2-h200/stage.sh after make gpu; device command:
#   tar xJf .dev/x2.tar.xz -C .dev && bash results/launcher-h200/run2.sh
set -u
export NCCL_NVLS_ENABLE=0
top=$PWD
cd .dev/x2
. ./call.sh
call_begin d
ab="env CUDA_VISIBLE_DEVICES=0 ./pccl-slice-ab -n 20000 -r 24 --sets 4"
for k in 1 2 3; do
  for s in 8 32K; do
    t $ab -b $s --poller-cpu -1 --base-us 6000 --b-env PCCL_SLICE_LAUNCHER=0
    t $ab -b $s --poller-cpu -1
  done
done
t $ab -b 8 --base-us 6000 --b-env PCCL_SLICE_LAUNCHER=0
t $ab -b 8 --base-us 6000 --b-env PCCL_SLICE_LAUNCHER=0
printf '#!/bin/sh\nPCCL_SLICE_US=0 exec "$(dirname "$0")/pccl-perf" "$@"\n' > off && chmod +x off
printf '#!/bin/sh\nPCCL_SLICE_LAUNCHER=0 exec "$(dirname "$0")/pccl-perf" "$@"\n' > poller && chmod +x poller
for s in "8 100000 poller 6" "2M 50000 poller 6" "8 100000 off 4" "32K 100000 off 4"; do
  set -- $s
  t ../../scripts/perf-ab --rounds $4 --out $O/ab-$1-$3 ./pccl-perf ./$3 -- --lib pccl -g 2 --coll all_reduce -b $1 \
      -e $1 -n $2 -w 2000 -c 0 --timing b2b
done
for d in $O/ab-*; do cat $d/ab.txt >> $S; done
(cd $O && tar cf - ab-* | xz -T4 > ab.tar.xz && rm -rf ab-*)
cd "$top"
mkdir -p build && ln -sfn ../.dev/x2 build/gpu
step test-gpu 0 330 env ITERS=100 scripts/test-gpu --sanitize --report $O/pccl-gpu.md
call_end
