#!/usr/bin/env python3
"""The slice's cost per build with its interval, from run1.sh's runs.txt.gz: each run is headed
"== round R build B slice US size S"; per build, size and placement, the mean over rounds of on / off
(slice 4000 against 0) with Student's t 95% interval, and the medians.
    python3 ci.py call2/runs.txt.gz"""
import gzip, math, re, statistics as st, sys

T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179]
runs, cur = {}, None
for l in gzip.open(sys.argv[1], "rt"):
    m = re.match(r"== round (\d+) build (\S+) slice (\d+) size", l)
    if m:
        cur = (int(m[1]), m[2], int(m[3]))
    elif cur and re.match(r"^ +\d+ +\d+ +float", l):
        f = l.split()
        for pl, col in (("out", 7), ("in", 11)):
            runs.setdefault((int(f[0]), pl, cur[1], cur[2]), {})[cur[0]] = float(f[col])
print("| size (B) | place | build | off, median (us) | on, median (us) | on / off, mean of rounds [95% interval] | rounds |")
print("|---|---|---|---|---|---|---|")
for size, pl, b in sorted({k[:3] for k in runs}, key=lambda k: (k[0], k[1] != "out", k[2])):
    on, off = runs.get((size, pl, b, 4000), {}), runs.get((size, pl, b, 0), {})
    rs = sorted(set(on) & set(off))
    if len(rs) < 2:
        continue
    r = [on[k] / off[k] for k in rs]
    m, sd = st.mean(r), st.stdev(r)
    h = T95[len(r) - 2] * sd / math.sqrt(len(r))
    print(f"| {size} | {pl} | {b} | {st.median(off.values()):.2f} | {st.median(on.values()):.2f} | "
          f"{m:.3f} [{m - h:.3f}, {m + h:.3f}] | {len(r)} |")
