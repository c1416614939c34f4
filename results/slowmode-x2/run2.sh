#!/bin/bash
# Call 2 (2 H200s, 2026-11-29): call 1 found the slow mode in pccl-slice-ab -g 2 (whose pollers, four
# threads with two communicators, are pinned to the last two CPUs) and never in pccl-perf alone
# (unpinned), its runs full of preemptions, gone with PCCL_STICKY=1 or one invocation in flight. Is it
# the two ranks' pollers sharing a CPU? pccl-slice-ab unpinned against pinned; pccl-perf with every
# thread on two CPUs and on one (taskset); then the slice's cost on 2 GPUs unpinned.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/slowmode-x2/run2.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
AB="./pccl-slice-ab -g 2 -n 20000 -r 16 --sets 4 --slice-us 0 -b 32K"
t timeout 90 $AB --poller-cpu -1
t timeout 90 $AB
last=$(($(nproc) - 1))
P="./pccl-perf -g 2 --lib pccl --coll all_reduce -b 32K -e 32K -n 20000 -w 100 -c 0 --timing b2b"
for k in 1 2 3; do t timeout 60 env PCCL_SLICE_US=0 taskset -c $((last - 1)),$last $P; done
for k in 1 2; do t timeout 60 env PCCL_SLICE_US=0 taskset -c $last $P; done
for b in 32K 512K 2M; do t timeout 120 ./pccl-slice-ab -g 2 -b $b -n 20000 -r 48 --sets 12 --poller-cpu -1; done
call_end
