#!/bin/bash
# Call 1 (one H200): the slice's cost on one GPU over many interleaved rounds, so that a ratio
# comes with its interval (issue 22's 2%): all-reduce back to back, one size a run, ~0.3 s of
# collectives per placement, slice on (the defaults: 4 ms) and off (PCCL_SLICE_US=0), 12 rounds,
# on first in odd rounds and off first in even ones, at 32 KiB and 2 MiB also unaligned
# (PCCL_SLICE_ALIGN=0); nccl-tests' all_reduce_perf once per size.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
SZ="8:80000 32K:80000 512K:60000 2M:50000 8M:30000 32M:12000 128M:4000 512M:1000"
for r in $(seq 1 12); do
  order="4000 0"; [ $((r % 2)) -eq 0 ] && order="0 4000"
  for s in $SZ; do
    for us in $order; do
      t timeout 30 env PCCL_SLICE_US=$us ./pccl-perf -g 1 --lib pccl --coll all_reduce -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 --timing b2b -T 30
    done
    # one rank has no peer to meet: off the host's grid, a relaunch falls at any phase of the
    # host's millisecond (its jitter: ../sharing-h200/, call 4)
    case $s in 32K:*|2M:*)
      t timeout 30 env PCCL_SLICE_ALIGN=0 ./pccl-perf -g 1 --lib pccl --coll all_reduce -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 --timing b2b -T 30 ;;
    esac
  done
done
for s in $SZ; do
  t timeout 30 ./nt/all_reduce_perf -g 1 -b ${s%%:*} -e ${s%%:*} -n ${s##*:} -w 500 -c 0 -z 0
done
call_end
