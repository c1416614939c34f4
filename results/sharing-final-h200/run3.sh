#!/bin/bash
# Call 3 (2 H200s, 2026-11-29): the slice's cost on two GPUs inside one process: pccl-slice-ab -g 2
# (one rank on each GPU, two communicators in turn, A with the 6 ms slice, B without; 24 sets of 4
# rounds up to 8 MiB, 12 of 4 above), its null at 8 B; nccl-tests all_reduce_perf -g 2 and -t 2 beside.
# Then, with what the call has left, call 26's quiet spells again (results/x4-h200/run27.sh's sweeps
# with the hang report at 1 ms). Build: 6c0e9bc's library, pccl-slice-ab with -g.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/sharing-final-h200/run3.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
for s in 8:20000:96:24 32K:20000:96:24 512K:20000:96:24 2M:10000:96:24 8M:4000:96:24 128M:400:48:12 512M:100:48:12; do
  IFS=: read -r b n r k <<< "$s"
  t timeout 120 ./pccl-slice-ab -g 2 -b $b -n $n -r $r --sets $k
done
t timeout 120 ./pccl-slice-ab -g 2 -b 8 -n 20000 -r 96 --sets 24 --slice-us 0
t timeout 60 ./nt/all_reduce_perf -g 2 -b 8 -e 512M -f 4 -n 200 -w 20
t timeout 60 ./nt/all_reduce_perf -t 2 -g 1 -b 8 -e 512M -f 4 -n 200 -w 20
mkdir -p $O/t
for k in $(seq 12); do
  [ $((SECONDS - T0)) -gt 480 ] && break
  env PCCL_HANG_DUMP_MS=1 PCCL_POLLER_STALL_US=300 ./pccl-perf -g 2 --lib pccl \
      --coll all_reduce,reduce_scatter,reduce -d bfloat16 -b 8 -e 8M -f 4 -n 50 -w 10 -c 1 --timing all \
      --times $O/t/t-$k.csv > $O/t/out-$k.txt 2> $O/t/err-$k.txt
  echo "== sweep $k: exit $?" >> "$C"
  t python3 ../../results/x4-h200/gaps.py $O/t/t-$k.csv - $O/t/err-$k.txt
done
(cd $O && tar cf - t | xz -T4 > t.tar.xz && rm -rf t)
call_end
