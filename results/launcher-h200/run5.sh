#!/bin/bash
# Call 5 (2 H200s): where the 2-GPU 8 B cost goes, call 4's build.  scripts/perf-ab --rounds 4 of
# pccl-perf -g 2, 8 B back to back: the default (6 ms) against no slice, against a slice that never
# ends a launch (PCCL_SLICE_US=60000000: the checks without the relaunches), against a 12 ms slice
# (half the relaunches); pccl-slice-ab on GPU 0 at 8 B and 32 KiB, twice each.
# Staged by bash results/x2-h200/stage.sh after make gpu; device command:
#   tar xJf .dev/x2.tar.xz -C .dev && bash results/launcher-h200/run5.sh
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
printf '#!/bin/sh\nPCCL_SLICE_US=0 exec "$(dirname "$0")/pccl-perf" "$@"\n' > off && chmod +x off
printf '#!/bin/sh\nPCCL_SLICE_US=60000000 exec "$(dirname "$0")/pccl-perf" "$@"\n' > checks && chmod +x checks
printf '#!/bin/sh\nPCCL_SLICE_US=12000 exec "$(dirname "$0")/pccl-perf" "$@"\n' > s12 && chmod +x s12
for b in off checks s12; do
  t ../../scripts/perf-ab --rounds 4 --out $O/ab-8-$b ./pccl-perf ./$b -- --lib pccl -g 2 --coll all_reduce -b 8 -e 8 \
      -n 100000 -w 2000 -c 0 --timing b2b
done
for d in $O/ab-*; do cat $d/ab.txt >> $S; done
(cd $O && tar cf - ab-* | xz -T4 > ab.tar.xz && rm -rf ab-*)
for k in 1 2; do for s in 8 32K; do t env CUDA_VISIBLE_DEVICES=0 ./pccl-slice-ab -b $s -n 20000 -r 24 --sets 4; done; done
call_end
