#!/usr/bin/env python3
"""Times per all-reduce (us) from a call's runs.txt: every pccl-perf run's pccl rows, by GPUs, timing,
size and PCCL_ALGO (pccl-perf-base: main before the mesh), out of place / in place, one cell per round.
Usage: table.py callN/runs.txt.gz"""
import collections, gzip, re, sys
tab = collections.defaultdict(list)
op = gzip.open if sys.argv[1].endswith('.gz') else open
for r in re.split(r'(?m)^== ', op(sys.argv[1], 'rt').read()):
    m = re.search(r'PCCL_ALGO=(\w+) \./pccl-perf (--share-gpu=2 -g 4|-g 2)', r) or \
        re.search(r'\./(pccl-perf-base) (--share-gpu=2 -g 4|-g 2)', r)
    if not m:
        continue
    algo = 'base' if m.group(1) == 'pccl-perf-base' else m.group(1)
    g = '4 ranks on 2 GPUs' if '-g 4' in m.group(2) else '2 GPUs'
    for line in r.split('\n'):
        f = line.split()
        try:
            if len(f) > 11 and f[5] == 'pccl':
                tab[(g, int(f[0]), f[6], algo)].append((float(f[7]), float(f[11])))
        except ValueError:
            pass
sizes = sorted({k[1] for k in tab})
for g, algos in [('4 ranks on 2 GPUs', ['ring', 'auto', 'base', 'oneshot', 'twoshot']),
                 ('2 GPUs', ['auto', 'base', 'oneshot', 'twoshot'])]:
    for tm in ['b2b', 'rt']:
        print(f"\n{g}, {tm} (us, out of place/in place, each round): size | " + " | ".join(algos))
        for s in sizes:
            cells = [" ".join(f"{o:.1f}/{i:.1f}" for o, i in tab.get((g, s, tm, a), [])) for a in algos]
            if any(cells):
                print(f"{s:>8} | " + " | ".join(cells))
