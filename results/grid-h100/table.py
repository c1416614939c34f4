#!/usr/bin/env python3
"""The slice's cost per variant from one call's runs.txt.gz (pccl-perf runs of
one size each, sections '== COMMAND'): per rank count and size, each variant's
time per all-reduce (us, mean of out of place and in place) against the slice
off of the same round, and each rank's relaunches per run.

  python3 table.py call3/runs.txt.gz

Variants by the command's knobs: off (PCCL_SLICE_US=0), s8 (PCCL_SLICE_US=8000),
grid (PCCL_SLICE_ALIGN=1), grid+gap0 (and PCCL_SLICE_GAP_US=0), unaligned
(PCCL_SLICE_ALIGN=0), default (none of them: unaligned in call 1's build, the
grid in calls 2 and 3)."""
import collections, gzip, re, statistics as st, sys

if len(sys.argv) != 2 or sys.argv[1] in ('-h', '--help'):
    print(__doc__)
    sys.exit(0 if len(sys.argv) == 2 else 2)
t = collections.defaultdict(list)
rel = collections.defaultdict(list)
key = None
for line in gzip.open(sys.argv[1], 'rt'):
    if line.startswith('== timeout'):
        v = 'default'
        if 'PCCL_SLICE_US=0 ' in line: v = 'off'
        elif 'PCCL_SLICE_US=8000' in line: v = 's8'
        elif 'PCCL_SLICE_GAP_US=0' in line: v = 'grid+gap0'
        elif 'PCCL_SLICE_ALIGN=1' in line: v = 'grid'
        elif 'PCCL_SLICE_ALIGN=0' in line: v = 'unaligned'
        size = re.search(r' -b (\S+)', line).group(1)
        blocks = re.search(r'PCCL_BLOCKS=(\d+)', line)
        if blocks: size += f" ({blocks.group(1)} blocks)"
        key = (int(re.search(r' -g (\d+)', line).group(1)), size, v)
    elif key and re.match(r'^ +\d+ +\d+ +float', line):
        f = line.split()
        t[key].append((float(f[7]) + float(f[11])) / 2)
    elif key:
        m = re.match(r'# pccl rank \d: (\d+) relaunches', line)
        if m: rel[key].append(int(m.group(1)))
order = ['default', 'unaligned', 'grid', 'grid+gap0', 's8']
print('| ranks | size | off (us) | variant | per-round ratio to off: median | mean | range | relaunches per rank and run |')
print('|---|---|---|---|---|---|---|---|')
for g, s in sorted({(k[0], k[1]) for k in t}, key=lambda x: (-x[0], x[1])):
    off = t[(g, s, 'off')]
    for v in order:
        x = t.get((g, s, v))
        if not x or not off: continue
        r = [a / b for a, b in zip(x, off)]
        n = rel.get((g, s, v), [])
        print(f"| {g} | {s} | {st.median(off):.2f} | {v} | {st.median(r):.3f} | {st.mean(r):.3f} | "
              f"{min(r):.3f}-{max(r):.3f} | {st.median(n) if n else '-'} |")
