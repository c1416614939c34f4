#!/usr/bin/env python3
"""Base against this build in a call's A B B A sweeps (runN.sh): every row (collective, type, size,
timing, placement) of pccl-perf-base and of pccl-perf, the mean of each build's rounds, and new / base:
its median and spread per timing and size band, and the rows where one build is 10% or more off.
Usage: ab.py DIR/callN/runs.txt.gz"""
import collections, gzip, re, statistics, sys

rows = collections.defaultdict(list)  # (build, coll, dtype, size, timing, place) -> [us]
build = coll = dtype = None
with gzip.open(sys.argv[1], "rt") as f:
    for line in f:
        if line.startswith("== ") and "./pccl-perf" in line:
            build = "base" if "./pccl-perf-base" in line else "new"
            d = re.search(r" -d (\w+)", line)
            dtype = d.group(1) if d else "float"
            continue
        if line.startswith("== "):
            build = None
            continue
        m = re.match(r"# (\w+): ", line)
        if m:
            coll = m.group(1)
        p = line.split()
        if build and len(p) >= 14 and p[0].isdigit() and p[5] == "pccl":
            rows[(build, coll, dtype, int(p[0]), p[6], "out")].append(float(p[7]))
            rows[(build, coll, dtype, int(p[0]), p[6], "in")].append(float(p[11]))

bands = collections.defaultdict(list)
off = []
for k, v in rows.items():
    if k[0] != "new" or ("base",) + k[1:] not in rows:
        continue
    b = statistics.mean(rows[("base",) + k[1:]])
    n = statistics.mean(v)
    band = "8 B-2 KiB" if k[3] <= 2048 else "8 KiB-512 KiB" if k[3] <= 524288 else "2-8 MiB"
    bands[(k[4], band)].append(n / b)
    if abs(n / b - 1) >= 0.10:
        off.append("%s %s %d %s %s: base %s, new %s" % (k[1], k[2], k[3], k[4], k[5], rows[("base",) + k[1:]], v))
print("timing  sizes           rows  new/base median  (10th-90th)  new faster")
for (timing, band), r in sorted(bands.items()):
    r.sort()
    q = lambda x: r[min(len(r) - 1, int(x * len(r)))]
    print("%-6s  %-14s %5d  %15.3f  (%.2f-%.2f)  %d" % (timing, band, len(r), statistics.median(r), q(0.1), q(0.9),
                                                      sum(x < 1 for x in r)))
print("\nrows 10% or more apart (each build's rounds, us):")
for o in sorted(off):
    print("  " + o)
