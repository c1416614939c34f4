#!/bin/bash
# Call 2 (one H200): the looked-at-work rule counted once a look is over (cut.h, pccl_looked: a pass
# ended, or 64 polls that found nothing ready), after call 1's racecheck step ran past 120 s with the
# rule that counted a block as having looked once it began to try: scripts/test-gpu --sanitize, whose
# one-GPU part is every check of this host (the calls that wait for the GPU while collectives stream,
# the suite, two processes, faults, memcheck, racecheck, synccheck).
set -u
export NCCL_NVLS_ENABLE=0
mkdir -p build && ln -sfn ../.dev/x4 build/gpu # the staged binaries, where test-gpu looks
cd .dev/x4
. ./call.sh
call_begin d
cd ../..
step test-gpu 0 560 scripts/test-gpu --sanitize --report $O/test-gpu.md
call_end
