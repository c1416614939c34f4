#!/bin/bash
# Call 1 (2 H200s, 2026-11-29): the slow mode that results/sharing-final-h200 call 3 found (pccl-slice-ab
# -g 2: whole runs of back-to-back all-reduces at 45.6 us/op where the others took 4.8 at 32 KiB, 72.5
# against 5.8 at 512 KiB, 75 against 10.3 at 2 MiB; without the slice more often than with it). Is it in
# pccl-perf alone (one communicator), and which knob takes it away: each variant as pccl-slice-ab's B
# against the default as A, both without the slice, the preemptions, daemon ends and launches of each
# side printed. Build: 6c0e9bc's library, pccl-slice-ab with -g and the per-side counts.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/slowmode-x2/run1.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
for k in 1 2 3 4 5 6; do
  for v in "" "PCCL_SLICE_US=0"; do
    t timeout 60 env $v ./pccl-perf -g 2 --lib pccl --coll all_reduce -b 32K -e 32K -n 20000 -w 100 -c 0 --timing b2b
  done
done
AB="./pccl-slice-ab -g 2 -n 20000 -r 16 --sets 4 --slice-us 0"
for v in "" "--b-env PCCL_SPREAD=0" "--b-env PCCL_STICKY=1" "--b-env PCCL_PROTO=simple" "--b-env PCCL_CROSS_POLLS=0" "--depth 1"; do
  t timeout 90 $AB -b 32K $v
done
for v in "" "--b-env PCCL_SPREAD=0"; do t timeout 90 $AB -b 512K $v; done
call_end
