#!/bin/bash
# Stages .dev/hf for runN.sh: this checkout's `make gpu` (pccl-perf, pccl-ops-test [calls 1-2: pccl-conv-test], pccl-gpu-test),
# MUTANT (a pccl-ops-test built against a broken ops.cuh) as pccl-ops-test-mutant, SPLIT, SPLIT2 (pccl-perf
# variants) as pccl-perf-split, pccl-perf-split2,
# BASE's pccl-perf as pccl-perf-base (BASE: a folder holding the build before the change, default
# /tmp/base), results/call.sh; packed as .dev/hf.tar.xz, which the device call carries and unpacks.
set -eu
cd "$(dirname "$0")/../.."
d=.dev/hf; rm -rf $d; mkdir -p $d
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo /.dev/ >> .git/info/exclude
for b in pccl-perf pccl-ops-test pccl-gpu-test; do cp build/gpu/$b $d/; done
# ALL=1 (call 7): every program scripts/test-gpu runs, too
[ "${ALL:-0}" = 1 ] && for b in pccl-deadlock nccl-deadlock pccl-multiproc pccl-share pccl-stream pccl-fault \
    pccl-perf-proc pccl-example; do cp build/gpu/$b $d/; done
[ -x "${MUTANT:-}" ] && cp "$MUTANT" $d/pccl-ops-test-mutant # call 3: pccl-ops-test built against a broken ops.cuh
[ -x "${SPLIT:-}" ] && cp "$SPLIT" $d/pccl-perf-split # calls 5-6: pccl-perf with split.patch
[ -x "${SPLIT2:-}" ] && cp "$SPLIT2" $d/pccl-perf-split2 # call 6: and avg's dividing primitive 2 vectors wide
cp "${BASE:-/tmp/base}/pccl-perf" $d/pccl-perf-base
cp results/call.sh $d/
git rev-parse HEAD > $d/COMMIT; git diff --quiet || echo "+ uncommitted: $(git diff --stat | tail -1)" >> $d/COMMIT
strip --strip-debug $d/pccl-* $d/nccl-deadlock 2>/dev/null || true
(cd .dev && tar cf - hf | xz -9 -T2 > hf.tar.xz)
ls -la .dev/hf.tar.xz
