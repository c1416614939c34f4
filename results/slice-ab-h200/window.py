#!/usr/bin/env python3
"""window.py TIMES.csv [SLICE.csv]: the pace of back-to-back completions around each relaunch.
TIMES: pccl-perf --pccl-times (rank,bytes,inplace,run,ns; out-of-place rows taken, the first 2000
dropped as warm-up); SLICE: its PCCL_SLICE_LOG (seen_at: the host saw the cut launch end, same clock).
Prints the run's mean interval between completions, and with SLICE, per 50 us bin of a completion's
time from the nearest relaunch's seen_at (-600 .. +600 us), the intervals' count and mean (us), then
the mean of the intervals farther than 1 ms from any relaunch."""
import bisect, csv, sys
t = sorted(int(r['ns']) for r in csv.DictReader(open(sys.argv[1])) if r['inplace'] == '0')[2000:]
iv = [(a, b - a) for a, b in zip(t, t[1:])]
print('# %s: %d intervals, mean %.3f us' % (sys.argv[1], len(iv), sum(d for _, d in iv) / len(iv) / 1e3))
if len(sys.argv) < 3:
    sys.exit(0)
seen = sorted(int(r['seen_at']) for r in csv.DictReader(open(sys.argv[2])))
W, B = 600000, 50000
bins, far = {}, [0, 0]
for a, d in iv:
    i = bisect.bisect_left(seen, a)
    near = min((abs(a - seen[j]), a - seen[j]) for j in (i - 1, i) if 0 <= j < len(seen)) if seen else (10**18, 0)
    rel = near[1]
    if abs(rel) >= 1000000:
        far[0] += 1; far[1] += d
    if abs(rel) < W:
        k = (rel // B) * B
        c = bins.setdefault(k, [0, 0]); c[0] += 1; c[1] += d
print('# %d relaunches; far from any (> 1 ms): %d intervals, mean %.3f us' % (len(seen), far[0], far[1] / max(far[0], 1) / 1e3))
for k in sorted(bins):
    n, s = bins[k]
    print('%+5d..%+5d us: %7d intervals, mean %8.3f us' % (k // 1000, (k + B) // 1000, n, s / n / 1e3))
