#!/usr/bin/env python3
"""Paired on/off ratios of the slice's cost: python3 pairs.py cost.txt.  Runs alternate on/off (run.sh);
run i's pccl time per size is the mean of its out-of-place and in-place rows; pair k is runs 2k, 2k+1.
Prints per size the median and mean of the paired ratios (on / off) with a 95% bootstrap interval of
the mean (10,000 resamples, fixed seed)."""
import random, re, sys
runs, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith("== timeout"):
        cur = {"on": "PCCL_SLICE_US=0" not in line, "t": {}}
        runs.append(cur)
        continue
    m = re.match(r"\s+(\d+)\s+\d+\s+float\s+sum\s+-1\s+pccl\s+b2b\s+([\d.]+)\s+\S+\s+\S+\s+\S+\s+([\d.]+)", line)
    if m and cur is not None:
        cur["t"][int(m.group(1))] = (float(m.group(2)) + float(m.group(3))) / 2
pairs = [(runs[i], runs[i + 1]) for i in range(0, len(runs) - 1, 2)]
rng = random.Random(1)
print("| size (B) | pairs | median on/off | mean on/off | 95% interval of the mean |")
print("|---|---|---|---|---|")
for n in sorted({k for x in runs for k in x["t"]}):
    r = []
    for a, b in pairs:
        on, off = (a, b) if a["on"] else (b, a)
        if n in on["t"] and n in off["t"]: r.append(on["t"][n] / off["t"][n])
    r.sort()
    mean = sum(r) / len(r)
    boots = sorted(sum(rng.choice(r) for _ in r) / len(r) for _ in range(10000))
    print(f"| {n} | {len(r)} | {r[len(r) // 2] if len(r) % 2 else (r[len(r)//2-1] + r[len(r)//2]) / 2:.3f} | {mean:.3f} | {boots[250]:.3f}-{boots[9750]:.3f} |")
