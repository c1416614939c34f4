#!/usr/bin/env python3
"""The cost tables of README.md from a call's runs.txt.gz: pccl-perf's rows with the slice on (the
defaults) and off (PCCL_SLICE_US=0) and nccl-tests' all_reduce_perf, per size and timing; each
round's out / in place time (us), and on / off of the medians.
    python3 table.py call2/runs.txt.gz"""
import gzip, re, statistics as st, sys

runs, cur = [], None
for l in gzip.open(sys.argv[1], "rt"):
    if l.startswith("== timeout"):
        cur = None
        if "pccl-share" in l:
            continue
        if "all_reduce_perf" in l:
            kind = "nt-" + ("rt" if "-z 1" in l else "b2b")
        else:
            kind = "off" if "PCCL_SLICE_US=0 " in l else "on"
        cur = (kind, {})
        runs.append(cur)
    elif cur and re.match(r"^ +\d+ +\d+ +float", l):
        f = l.split()
        if cur[0].startswith("nt"):
            cur[1][(int(f[0]), cur[0][3:])] = (float(f[5]), float(f[9]))
        else:
            cur[1][(int(f[0]), f[6])] = (float(f[7]), float(f[11]))

def rows(kind, key):
    return [r[1][key] for r in runs if r[0] == kind and key in r[1]]

print("| size (B) | timing | nccl-tests, out | pccl off, out / in, each round | pccl on | on / off (medians), out / in |")
print("|---|---|---|---|---|---|")
for key in sorted({k for r in runs for k in r[1]}, key=lambda k: (k[1], k[0])):
    nt, off, on = rows("nt-" + key[1], key), rows("off", key), rows("on", key)
    if not off or not on:
        continue
    fmt = lambda v: ", ".join(f"{a:.2f} / {b:.2f}" for a, b in v)
    m = lambda v, i: st.median(x[i] for x in v)
    ntm = f"{m(nt, 0):.2f}" if nt else "-"
    print(f"| {key[0]} | {key[1]} | {ntm} | {fmt(off)} | {fmt(on)} | "
          f"{m(on, 0) / m(off, 0):.3f} / {m(on, 1) / m(off, 1):.3f} |")
