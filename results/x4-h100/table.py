#!/usr/bin/env python3
"""The A/B tables of results/x4-h100 from a call's runs.txt(.gz): every pccl-perf row, keyed by GPUs,
collective, size and timing, one line per variant (the binary's suffix, pccl-perf-VARIANT or plain, and the
PCCL_ knobs of its command), each run's out-of-place/in-place time in us, in the order run.
  results/x4-h100/table.py results/x4-h100/call3/runs.txt.gz [--sizes 8388608,33554432] [--coll all_reduce]"""
import gzip, re, sys
from collections import OrderedDict

def main():
    args = sys.argv[1:]
    if not args or args[0] in ('-h', '--help'):
        print(__doc__); return 0 if args else 2
    path, sizes, coll = args[0], None, None
    i = 1
    while i < len(args):
        if args[i] == '--sizes': sizes = set(args[i + 1].split(',')); i += 2
        elif args[i] == '--coll': coll = args[i + 1]; i += 2
        else: print(f'table.py: unknown argument {args[i]!r}', file=sys.stderr); return 2
    op = gzip.open if path.endswith('.gz') else open
    rows = OrderedDict()
    variant = None
    with op(path, 'rt') as f:
        for line in f:
            if line.startswith('== ') and 'pccl-perf' in line:
                m = re.search(r'pccl-perf(?:-(\w+))?\s', line)
                knobs = ' '.join(k for k in re.findall(r'(PCCL_\w+=\S+)', line))
                g = re.search(r'-g (\d+)', line)
                c = re.search(r'--coll (\w+)', line)
                variant = ((m.group(1) or 'plain') + (' ' + knobs if knobs else ''), g.group(1) if g else '?',
                           c.group(1) if c else 'all_reduce')
                continue
            if line.startswith('== '):
                variant = None; continue
            if variant is None: continue
            p = line.split()
            if len(p) >= 13 and p[0].isdigit() and p[5] == 'pccl':
                name, g, cl = variant
                if (sizes and p[0] not in sizes) or (coll and cl != coll): continue
                rows.setdefault((int(g), cl, int(p[0]), p[6]), OrderedDict()).setdefault(name, []).append(f'{p[7]}/{p[11]}')
    for (g, cl, size, timing), vs in sorted(rows.items()):
        for name, runs in vs.items():
            print(f'{g} {cl:14s} {size:>10d} {timing:3s} {name:24s} {"  ".join(runs)}')
    return 0

sys.exit(main())
