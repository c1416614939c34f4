#!/bin/bash
# Call 21 (2 H200s): (a) where the stalls of 50-iteration back-to-back rows come from (calls 18-20:
# rows 3-40x off, ~2 ms and ~20 ms lost), and (b) how late the poller sees a launch's end: the
# launch's last block now writes its epoch to pinned memory (hdr->ended), stamped when first seen
# (slice log column ended_seen_at) against the stream query's sight (seen_at); PCCL_END_SEEN=pinned
# relaunches on that sight instead of the query's. Six rounds of call 19's pccl-perf command each
# way with PCCL_HANG_DUMP_MS=1 (a report on stderr after 1 ms without a completion with work
# outstanding) and every completion's time (--pccl-times), two with the slice off; then the slice's
# cost at 8 B and 8 MiB back to back, off / query / pinned, two interleaved rounds.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
mkdir -p $O/x
timeout 15 ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 8 -e 16M -f 16 -n 200 -w 10 -c 1 > $O/smoke.txt 2>&1 || { echo "== smoke failed" >> $S; call_end; exit 0; }
W="--coll all_reduce,all_gather,reduce_scatter,reduce,broadcast -b 8 -e 32M -f 4 -g 2 -n 50 -w 10 -c 1 --timing all -T 60"
for i in 1 2 3 4 5 6; do
  t timeout 60 env PCCL_SLICE_LOG=$O/x/q-$i.csv PCCL_HANG_DUMP_MS=1 ./pccl-perf $W --pccl-times $O/x/tq-$i.csv
  t timeout 60 env PCCL_END_SEEN=pinned PCCL_SLICE_LOG=$O/x/p-$i.csv PCCL_HANG_DUMP_MS=1 ./pccl-perf $W --pccl-times $O/x/tp-$i.csv
done
for i in 1 2; do
  t timeout 60 env PCCL_SLICE_US=0 PCCL_HANG_DUMP_MS=1 ./pccl-perf $W --pccl-times $O/x/t0-$i.csv
done
echo "== (a) done at $((SECONDS - T0)) s" >> $S
P="-g 2 --lib pccl --coll all_reduce -w 500 -c 0 --timing b2b -T 30"
for i in 1 2; do
  for s in "8 -n 100000" "8M -n 20000"; do
    t timeout 20 env PCCL_SLICE_US=0 ./pccl-perf $P -b ${s%% *} -e $s
    t timeout 20 env PCCL_SLICE_LOG=$O/x/cq-$i-${s%% *}.csv ./pccl-perf $P -b ${s%% *} -e $s
    t timeout 20 env PCCL_END_SEEN=pinned PCCL_SLICE_LOG=$O/x/cp-$i-${s%% *}.csv ./pccl-perf $P -b ${s%% *} -e $s
  done
done
echo "== (b) done at $((SECONDS - T0)) s" >> $S
(cd $O && tar cJf x.tar.xz x && rm -rf x)
call_end
