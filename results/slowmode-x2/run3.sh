#!/bin/bash
# Call 3 (2 H200s, 2026-11-29): call 2 ruled out the pollers' CPUs (unpinned pccl-slice-ab -g 2 slow as
# pinned; pccl-perf with every thread on one or two CPUs never slow). What pccl-slice-ab does that
# pccl-perf does not: every run starts from a daemon that quit in the 5 ms pause. Without the quit
# (PCCL_QUIT_US=100000: both communicators' daemons stay, 128 of 132 SMs), without the pause
# (--idle-ms 0), and B with PCCL_DYNAMIC=0 or PCCL_SPREAD=1 against the default.
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/slowmode-x2/run3.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
AB="./pccl-slice-ab -g 2 -n 20000 -r 16 --sets 4 --slice-us 0 -b 32K"
t timeout 90 env PCCL_QUIT_US=100000 $AB
t timeout 90 $AB --idle-ms 0
t timeout 90 $AB --b-env PCCL_DYNAMIC=0
t timeout 90 $AB --b-env PCCL_SPREAD=1
call_end
