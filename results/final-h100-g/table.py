#!/usr/bin/env python3
"""The small-message table of this call: python3 table.py log.txt.gz (us per all-reduce, out of place,
per step of run.sh).  Out of place only: on one rank nccl-tests' in-place all-reduce moves nothing
(0.2-1.2 us), and a mean with it halves NCCL's figure."""
import gzip, re, sys
cols = [("nccl-tests-b2b", ""), ("nccl-tests-b2b-2", ""), ("nccl-tests-rt", ""), ("nccl-tests-rt-2", ""),
        ("perf-1rank", "b2b"), ("perf-1rank-2", "b2b"), ("perf-1rank-3", "b2b"), ("perf-1rank", "rt"),
        ("perf-1rank-2", "rt"), ("perf-1rank-3", "rt"), ("perf-spread0", "b2b"), ("perf-spread0", "rt"),
        ("perf-spread1", "b2b"), ("perf-spread1", "rt"), ("perf-d16", "b2b"), ("perf-spread0-d16", "b2b")]
v, step = {}, None
for line in gzip.open(sys.argv[1], "rt"):
    m = re.match(r"==== (\S+):", line)
    if m: step = m.group(1); continue
    m = re.match(r"\s+(\d+)\s+\d+\s+float\s+sum\s+-1\s+(?:pccl\s+(b2b|rt)\s+)?([\d.]+)\s+\S+\s+\S+\s+\d+\s+([\d.]+)", line)
    if m and step:
        v[(step, m.group(2) or "", int(m.group(1)))] = float(m.group(3))
sizes = sorted({k[2] for k in v})
print("| size (B) | " + " | ".join(f"{s} {t}".strip() for s, t in cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for n in sizes:
    print(f"| {n} | " + " | ".join(f"{v[(s, t, n)]:.2f}" if (s, t, n) in v else "-" for s, t in cols) + " |")
