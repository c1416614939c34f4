#!/bin/bash
# Call 1 (one H200): the slice's cost on round trips, and early cuts (PCCL_SLICE_EARLY_US, off by
# default and never measured on round trips): 2 ranks sharing the GPU (--share-gpu -g 2), float sum
# all-reduce, --timing rt, one size per run; scripts/perf-ab --rounds 4 (A B B A), A the default (6 ms
# slice), B through a wrapper: PCCL_SLICE_EARLY_US=1000 (a block that finds nothing to run ends its
# launch up to 1 ms before the slice's end), then PCCL_SLICE_US=0 (no slice).
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/early-h200/run1.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
printf '#!/bin/sh\nPCCL_SLICE_EARLY_US=1000 exec "$(dirname "$0")/pccl-perf" "$@"\n' > early && chmod +x early
printf '#!/bin/sh\nPCCL_SLICE_US=0 exec "$(dirname "$0")/pccl-perf" "$@"\n' > off && chmod +x off
for s in "8 20000" "2M 10000" "128M 1000" "512M 250"; do
  b=${s% *} n=${s#* }
  for v in early off; do
    t ../../scripts/perf-ab --rounds 4 --out $O/$v-$b ./pccl-perf ./$v -- --share-gpu -g 2 --lib pccl \
        --coll all_reduce -b $b -e $b -n $n -w 100 -c 0 --timing rt
    cat $O/$v-$b/ab.txt >> $S
  done
done
(cd $O && tar cf - early-* off-* | xz -T4 > ab.tar.xz && rm -rf early-* off-*)
call_end
