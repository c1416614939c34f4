#!/bin/bash
# Stages .dev/hf for runN.sh: this checkout's `make gpu` (pccl-perf, pccl-conv-test, pccl-gpu-test),
# BASE's pccl-perf as pccl-perf-base (BASE: a folder holding the build before the change, default
# /tmp/base), results/call.sh; packed as .dev/hf.tar.xz, which the device call carries and unpacks.
set -eu
cd "$(dirname "$0")/../.."
d=.dev/hf; rm -rf $d; mkdir -p $d
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
for b in pccl-perf pccl-conv-test pccl-gpu-test; do cp build/gpu/$b $d/; done
cp "${BASE:-/tmp/base}/pccl-perf" $d/pccl-perf-base
cp results/call.sh $d/
git rev-parse HEAD > $d/COMMIT; git diff --quiet || echo "+ uncommitted: $(git diff --stat | tail -1)" >> $d/COMMIT
strip --strip-debug $d/pccl-*
(cd .dev && tar cf - hf | xz -9 -T2 > hf.tar.xz)
ls -la .dev/hf.tar.xz
