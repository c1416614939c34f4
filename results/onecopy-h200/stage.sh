#!/bin/bash
# Stages .dev/oc for runN.sh: probe.cu (and probe2.cu) built against this checkout's build/libpccl.a, `make gpu`'s
# programs (those scripts/test-gpu runs; calls 1-5 had pccl-perf, pccl-gpu-test, pccl-share), nccl-tests' five collectives from ../shared, results/call.sh and
# scripts/perf-vs-nccl-tests; packed
# as .dev/oc.tar.xz, which the device call carries and unpacks into .dev.
set -eu
cd "$(dirname "$0")/../.."
d=.dev/oc; rm -rf $d; mkdir -p $d/nt
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
nvcc -O2 -arch=sm_90 -Ilib -o $d/probe results/onecopy-h200/probe.cu build/libpccl.a -lcuda -lpthread
nvcc -O2 -arch=sm_90 -o $d/probe2 results/onecopy-h200/probe2.cu -lcuda -lpthread
for b in pccl-gpu-test pccl-deadlock nccl-deadlock pccl-multiproc pccl-share pccl-stream pccl-fault pccl-perf pccl-perf-proc \
         pccl-example; do
  cp build/gpu/$b $d/
done
for c in all_reduce all_gather reduce_scatter reduce broadcast; do cp ../shared/tools/nccl-tests/${c}_perf $d/nt/; done
cp results/call.sh scripts/perf-vs-nccl-tests $d/
git rev-parse HEAD > $d/COMMIT; git diff --quiet || echo "+ uncommitted: $(git diff --stat | tail -1)" >> $d/COMMIT
strip --strip-debug $d/probe $d/probe2 $d/pccl-* $d/nccl-deadlock
(cd .dev && tar cf - oc | xz -9 -T2 > oc.tar.xz)
ls -la .dev/oc.tar.xz
