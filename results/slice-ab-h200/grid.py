#!/usr/bin/env python3
"""grid.py TIMES.csv [GRID_US [BIN_US]]: the pace of back-to-back completions by their place on the host
clock's grid of GRID_US (default 4000: where aligned slices end, lib/slice.c), in BIN_US bins (10) from
half a period before a grid point to half after.  TIMES: pccl-perf --pccl-times, out-of-place rows, the
first 2000 dropped.  An interval is placed by its start; a bin's mean says how fast completions came
there (a run without the slice shows whether anything else keeps that period)."""
import csv, sys
grid = int(sys.argv[2]) * 1000 if len(sys.argv) > 2 else 4000000
b = int(sys.argv[3]) * 1000 if len(sys.argv) > 3 else 10000
t = sorted(int(r['ns']) for r in csv.DictReader(open(sys.argv[1])) if r['inplace'] == '0')[2000:]
bins = {}
for x, y in zip(t, t[1:]):
    ph = x % grid
    if ph >= grid // 2:
        ph -= grid
    k = (ph // b) * b
    c = bins.setdefault(k, [0, 0]); c[0] += 1; c[1] += y - x
tot = sum(c[1] for c in bins.values()) / sum(c[0] for c in bins.values())
print('# %s: grid %d us, %d intervals, mean %.3f us' % (sys.argv[1], grid // 1000, len(t) - 1, tot / 1e3))
for k in sorted(bins):
    n, s = bins[k]
    if -400000 <= k < 150000:
        print('%+6d us: %6d intervals, mean %7.3f us' % (k // 1000, n, s / n / 1e3))
