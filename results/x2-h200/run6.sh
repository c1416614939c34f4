#!/bin/bash
# Call 6 (one H200; the 2-GPU kind was withdrawn): scripts/perf-vs-nccl-tests --again on a GPU, the
# first run of the table with nccl-tests' second time: all-reduce and reduce, one rank, 8 B-64 MiB by 8.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x2
. ./call.sh
call_begin d
step vs1-again 0 200 ./perf-vs-nccl-tests --gpus 1 --out "$O/vs1-again" --nccl-tests nt --bin ./pccl-perf \
    --colls all_reduce,reduce -b 8 -e 64M -f 8 -n 50 -w 10 --again
(cd "$O" && tar czf vs1-again.tar.gz vs1-again && rm -rf vs1-again)
call_end
