#!/bin/bash
# Stages .dev/ah for the run scripts here (V1=DIR: see below): this checkout's `make gpu` (the programs scripts/test-gpu runs, and
# pccl-slice-ab), nccl-tests' all_reduce_perf from ../shared, results/call.sh; packed as
# .dev/ah.tar.xz, which the device call carries and unpacks into .dev.
set -eu
cd "$(dirname "$0")/../.."
d=.dev/ah; rm -rf $d; mkdir -p $d/nt
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
for b in pccl-gpu-test pccl-deadlock nccl-deadlock pccl-multiproc pccl-share pccl-stream pccl-fault pccl-perf pccl-perf-proc \
         pccl-example pccl-slice-ab pccl-ops-test; do
  cp build/gpu/$b $d/
done
cp ../shared/tools/nccl-tests/all_reduce_perf $d/nt/
cp results/call.sh $d/
# V1=DIR: an earlier build's pccl-slice-ab and pccl-share (stripped copies), run beside as *-v1
if [ -n "${V1:-}" ]; then cp $V1/pccl-slice-ab $d/pccl-slice-ab-v1; cp $V1/pccl-share $d/pccl-share-v1; fi
git rev-parse HEAD > $d/COMMIT; git diff --quiet || echo "+ uncommitted: $(git diff --stat | tail -1)" >> $d/COMMIT
strip --strip-debug $d/pccl-* $d/nccl-deadlock
(cd .dev && tar cf - ah | xz -9e -T2 > ah.tar.xz)
ls -la .dev/ah.tar.xz
