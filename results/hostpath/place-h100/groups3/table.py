#!/usr/bin/env python3
"""Per size, the time per all-reduce (us, out of place) of each binary in a call's log, in run order:
base = main at e27dc90, new = the group placement, new+rt = new with PCCL_XPLACE_RT=1 (call 3's experiment),
nccl-tests = its out-of-place rows.  Share rows: 2 ranks on one GPU (--share-gpu), with the PCCL_BLOCKS of the run.
Usage: table.py callN.txt.gz"""
import gzip, re, sys
cur = None; rows = {}
for l in gzip.open(sys.argv[1], 'rt'):
    if l.startswith('== ') and not l.startswith('== exit'):
        if 'nt/' in l: cur = ('nccl-tests', 'rt' if '-z 1' in l else 'b2b'); continue
        m = re.search(r'\./pccl-perf-(\w+)', l)
        if not m: cur = None; continue
        b = re.search(r'PCCL_BLOCKS=(\d+)', l)
        kind = ('share B%s' % (b.group(1) if b else '64')) if 'share-gpu' in l else '1rank'
        cur = (kind, m.group(1) + ('+rt' if 'XPLACE' in l else ''))
        if 'depth 16' in l: cur = (kind + ' d16', cur[1])
        if '--coll all ' in l: cur = (kind + ' all', cur[1])
        continue
    m = re.match(r'\s+(\d+)\s+\d+\s+float\s+sum\s+-1\s+(?:pccl\s+(b2b|rt)\s+)?([\d.]+)\s', l)
    if m and cur:
        kind, v = cur
        if kind == 'nccl-tests': k = ('1rank ' + v, int(m.group(1))); v = 'nccl-tests'
        else: k = (kind + ' ' + m.group(2), int(m.group(1)))
        rows.setdefault(k, {}).setdefault(v, []).append(float(m.group(3)))
for k in sorted(rows):
    print('%-22s %9d  ' % k, '  '.join('%s: %s' % (v, ' '.join('%.1f' % x for x in rows[k][v]))
                                     for v in ['base', 'new', 'new+rt', 'nccl-tests'] if v in rows[k]))
