#!/usr/bin/env python3
"""Call 3's table from its raw times (run3.sh packs every completion's time, --pccl-times, and every
relaunch, PCCL_SLICE_LOG, into times.tgz on the device; 8 MB, so the repository keeps this summary,
call3/intervals.csv, and the relaunch logs, call3/slice.tgz). One row a run: the intervals between
out-of-place completions after the warm-up (the first 600), their count and sum, those over 30 us
(count, sum, median), the mean of the rest, and the mean interval by position after a long one
(bins of 50 completions; far: 1000 or more).
    python3 intervals.py times.tgz > call3/intervals.csv"""
import csv, io, statistics as st, sys, tarfile

LONG_NS, WARM, BIN = 30000, 600, 50
tar = tarfile.open(sys.argv[1])
w = csv.writer(sys.stdout)
bins = list(range(0, 12)) + [20]
w.writerow(["size", "slice_us", "run", "n", "sum_ns", "long_n", "long_sum_ns", "long_median_ns", "rest_mean_ns"] +
           ["after_%d_mean_ns" % (b * BIN) if b < 20 else "far_mean_ns" for b in bins])
for m in sorted(tar.getmembers(), key=lambda m: m.name):
    if not m.name.startswith("times-"):
        continue
    size, slice_us, run = m.name[len("times-"):-len(".csv")].split("-")
    rows = csv.DictReader(io.TextIOWrapper(tar.extractfile(m)))
    t = [int(r["ns"]) for r in rows if r["inplace"] == "0"]
    iv = [b - a for a, b in zip(t, t[1:])][WARM:]
    long_ = [x for x in iv if x > LONG_NS]
    rest = [x for x in iv if x <= LONG_NS]
    pos, last = {}, -10**9
    for i, x in enumerate(iv):
        if x > LONG_NS:
            last = i
            continue
        pos.setdefault(min((i - last) // BIN, 20), []).append(x)
    w.writerow([size, slice_us, run, len(iv), sum(iv), len(long_), sum(long_), int(st.median(long_)) if long_ else 0,
                round(st.mean(rest), 1)] + [round(st.mean(pos[b]), 1) if b in pos else "" for b in bins])
