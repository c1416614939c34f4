#!/usr/bin/env python3
"""The slice's cost with its interval, from a call's runs.txt.gz (run1.sh): pccl-perf's rows with the
slice on (the defaults) and off (PCCL_SLICE_US=0), the k-th run of each setting and size forming
round k, and nccl-tests' all_reduce_perf beside them; "unaligned" runs (PCCL_SLICE_ALIGN=0) a third
setting. Per size, placement and setting: the medians over the rounds (us), the ratio of the medians
to off's, the mean of the rounds' ratios with its 95% interval (Student's t over the rounds), and how
many rounds exceeded 1.02.
    python3 ci.py call1/runs.txt.gz"""
import gzip, math, re, statistics as st, sys

# Student's t, two-sided 95%, by degrees of freedom (1..30); more: the normal's 1.96
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
       2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
       2.052, 2.048, 2.045, 2.042]

runs, nt, cur = {}, {}, None
for l in gzip.open(sys.argv[1], "rt"):
    if l.startswith("== timeout"):
        cur = None
        if "all_reduce_perf" in l:
            cur = "nt"
        elif "pccl-perf" in l:
            cur = "off" if "PCCL_SLICE_US=0 " in l else "unaligned" if "PCCL_SLICE_ALIGN=0 " in l else "on"
    elif cur and re.match(r"^ +\d+ +\d+ +float", l):
        f = l.split()
        if cur == "nt":
            nt[int(f[0])] = float(f[5])
        else:  # one run per size: its out- and in-place times
            for pl, col in (("out", 7), ("in", 11)):
                runs.setdefault((int(f[0]), pl, cur), []).append(float(f[col]))

print("| size (B) | place | nccl-tests (us) | pccl off, median (us) | setting | median (us) | / off, medians | "
      "/ off, mean of rounds [95% interval] | rounds | rounds > 1.02 |")
print("|---|---|---|---|---|---|---|---|---|---|")
for size, pl in sorted({(s, p) for s, p, _ in runs}, key=lambda k: (k[0], k[1] != "out")):
    off = runs.get((size, pl, "off"), [])
    for setting in ("on", "unaligned"):
        on = runs.get((size, pl, setting), [])
        n = min(len(on), len(off))
        if n < 2:
            continue
        r = [a / b for a, b in zip(on[:n], off[:n])]
        m, sd = st.mean(r), st.stdev(r)
        h = (T95[n - 2] if n - 1 <= len(T95) else 1.96) * sd / math.sqrt(n)
        ntc = f"{nt[size]:.2f}" if size in nt and pl == "out" else "-"
        print(f"| {size} | {pl} | {ntc} | {st.median(off):.2f} | {setting} | {st.median(on):.2f} | "
              f"{st.median(on) / st.median(off):.3f} | {m:.3f} [{m - h:.3f}, {m + h:.3f}] | {n} | "
              f"{sum(x > 1.02 for x in r)} |")
