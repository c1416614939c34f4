#!/bin/bash
# Call 5 (2 H200s): issue 22's cost on 2 GPUs with the 6 ms slice (the default since 2026-11-29, never
# measured on 2 GPUs): back-to-back float sum all-reduces, slice on (A, the default) against off (B,
# PCCL_SLICE_US=0 through a wrapper), scripts/perf-ab --rounds 4 (A B B A), one size per run: 8 B, 32 KiB,
# 2 MiB, 128 MiB; nccl-tests beside them (-g 2 and -t 2).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
printf '#!/bin/sh\nPCCL_SLICE_US=0 exec "$(dirname "$0")/pccl-perf" "$@"\n' > off && chmod +x off
for s in "8 100000" "32K 100000" "2M 50000" "128M 1500"; do
  b=${s% *} n=${s#* }
  t ../../scripts/perf-ab --rounds 4 --out $O/ab-$b ./pccl-perf ./off -- --lib pccl -g 2 --coll all_reduce -b $b -e $b \
      -n $n -w 2000 -c 0 --timing b2b
done
t ./nt/all_reduce_perf -g 2 -b 8 -e 128M -f 64 -n 2000 -w 200 -c 0
t ./nt/all_reduce_perf -t 2 -g 1 -b 8 -e 128M -f 64 -n 2000 -w 200 -c 0
for b in 8 32K 2M 128M; do cat $O/ab-$b/ab.txt >> $S; done
(cd $O && tar cf - ab-* | xz -T4 > ab.tar.xz && rm -rf ab-*)
call_end
