#!/bin/bash
# Call 5 (2 H200s, 2026-11-29): the placement by id under the issues' own tests on 2 GPUs: the paper's
# random orders (with and without cudaDeviceSynchronize after each), and the cross-rank sharing test
# (each rank's compute thread makes the implicit synchronizations at random points while its
# communication thread runs random orders; NCCL beside it in one order).
# Staged by `bash results/x2-h200/stage.sh`; device command
# `tar xJf .dev/x2.tar.xz -C .dev && bash results/slowmode-x2/run5.sh`, carry .dev/x2.tar.xz.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
BUDGET=170
step random 0 60 ./pccl-deadlock --gpus 2 --iters 100
step random-sync 0 60 ./pccl-deadlock --gpus 2 --iters 100 --sync
step share2 0 90 ./pccl-share --gpus 2 --seeds 20 --iters 10
call_end
