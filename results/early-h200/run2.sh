#!/bin/bash
# Call 2 (one H200): call 1's comparison of early ends again with the fix (a relaunch after an early end
# takes the next grid point): 2 ranks sharing the GPU, float sum all-reduce, --timing rt, one size per
# run; scripts/perf-ab --rounds 4, A the default (6 ms slice, no early ends), B PCCL_SLICE_EARLY_US=1000.
# Staged and run as call 1 (run2.sh).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
printf '#!/bin/sh\nPCCL_SLICE_EARLY_US=1000 exec "$(dirname "$0")/pccl-perf" "$@"\n' > early && chmod +x early
for s in "8 20000" "2M 10000" "128M 1000" "512M 250"; do
  b=${s% *} n=${s#* }
  t ../../scripts/perf-ab --rounds 4 --out $O/early-$b ./pccl-perf ./early -- --share-gpu -g 2 --lib pccl \
      --coll all_reduce -b $b -e $b -n $n -w 100 -c 0 --timing rt
  cat $O/early-$b/ab.txt >> $S
done
(cd $O && tar cf - early-* | xz -T4 > ab.tar.xz && rm -rf early-*)
call_end
