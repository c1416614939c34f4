#!/usr/bin/env python3
"""Rows of a device call's runs.txt.gz (results/*/runN.sh, ../call.sh's `t`) side by side: for each run
(its '== ...' line names the variant: the PCCL_* settings it made, the --share-gpu it used, the
pccl-perf-<build>; nccl-tests' *_perf runs as `nt`, `nt -t` for one thread per GPU), each size and timing,
the time per operation out of place / in place (us), min-max over the rounds.
Usage: results/table.py DIR/callN/runs.txt.gz"""
import gzip, re, sys, collections

def variant(cmd):
    algo = " ".join(re.findall(r"PCCL_\w+=\S+", cmd)) or None
    algo = re.match(r"(.*)", algo) if algo else None
    share = re.search(r"--share-gpu(=\d+)?", cmd)
    build = re.search(r"\./pccl-perf(-\w+)?", cmd)
    g = re.search(r" -g (\d+)", cmd)
    d = re.search(r" -d (\w+)", cmd)
    return "%s%s g%s %s%s" % ((build.group(1) or "-new")[1:], " share" + (share.group(1) or "=1") if share else "",
                              g.group(1) if g else "?", algo.group(1) if algo else "auto",
                              " " + d.group(1) if d and d.group(1) != "float" else "")

rows = collections.defaultdict(list)  # (variant, coll, size, timing) -> [(out, in)]
cur = coll = None
with gzip.open(sys.argv[1], "rt") as f:
    for line in f:
        if line.startswith("== ") and "./pccl-perf" in line:
            cur = variant(line)
            continue
        m = re.match(r"# (\w+): ", line)
        if m and m.group(1) in ("all_reduce", "all_gather", "reduce_scatter", "reduce", "broadcast"):
            coll = m.group(1)
        if line.startswith("== ") and "_perf" in line:
            cur = "nt%s g%s" % (" -t" if " -t " in line else "", re.search(r" -[gt] (\d+)", line).group(1))
            coll = re.search(r"nt/(\w+)_perf", line).group(1)
            z = re.search(r"-z (\d)", line).group(1)
            continue
        p = line.split()
        if cur and cur.startswith("nt") and len(p) >= 13 and p[0].isdigit():
            rows[(cur, coll, int(p[0]), "rt" if z == "1" else "b2b")].append((float(p[5]), float(p[9])))
            continue
        if cur and len(p) >= 14 and p[0].isdigit() and p[5] == "pccl":
            rows[(cur, coll, int(p[0]), p[6])].append((float(p[7]), float(p[11])))

def rng(v):
    lo, hi = min(v), max(v)
    return "%.1f" % lo if abs(hi - lo) < 0.05 else "%.1f-%.1f" % (lo, hi)

variants = sorted({k[0] for k in rows})
for coll in sorted({k[1] for k in rows}):
    for timing in ("rt", "b2b"):
        vs = [v for v in variants if any(k[0] == v and k[1] == coll for k in rows)]
        print("\n%s, %s (us, out / in place, min-max over rounds)" % (coll, timing))
        print("| size | " + " | ".join(vs) + " |")
        print("|---" * (len(vs) + 1) + "|")
        for size in sorted({k[2] for k in rows if k[1] == coll}):
            cells = []
            for v in vs:
                r = rows.get((v, coll, size, timing))
                cells.append("%s / %s" % (rng([a for a, _ in r]), rng([b for _, b in r])) if r else "")
            print("| %d | %s |" % (size, " | ".join(cells)))
