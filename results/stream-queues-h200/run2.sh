#!/bin/bash
# Call 2 (one H200): the warning (lib/stream.c, PCCL_STREAM_QUEUES): the same runs as call 1 with the
# build that warns once when more streams wait than there are hardware queues; each run's stderr
# kept (stderr-N.txt). Default queues twice (expect the warning, then the hang), 32 once (neither),
# --plain once (no stream: neither), and the torch-like --lazy mode (one stream: neither).
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/x4
. ./call.sh
call_begin d
S="./pccl-stream --procs --ranks 2 --iters 10 --timeout 15"
i=0
run() { i=$((i + 1)); t timeout 60 "$@" 2> $O/stderr-$i.txt; echo "== stderr-$i.txt: $*" >> $C; cat $O/stderr-$i.txt >> $C; }
for r in 1 2; do run env PCCL_DEVICE_OF_RANK=0,0 $S; done
run env PCCL_DEVICE_OF_RANK=0,0 CUDA_DEVICE_MAX_CONNECTIONS=32 $S
run env PCCL_DEVICE_OF_RANK=0,0 $S --plain
run env PCCL_DEVICE_OF_RANK=0,0 $S --lazy
call_end
