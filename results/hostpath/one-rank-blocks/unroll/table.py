#!/usr/bin/env python3
"""Time per all-reduce (us, out of place) per size: main, u8 (every primitive 8 wide), c8 (copies 8 wide),
new (the call's candidate: call 3 copies 8-4-1 in one frame, call 4 the merged code), nccl-tests.
Usage: table.py callN-*.txt.gz"""
import re, sys, gzip
cur=None; rows={}
op=gzip.open if sys.argv[1].endswith('.gz') else open
for l in op(sys.argv[1],'rt'):
    if l.startswith('== ') and not l.startswith('== exit'):
        if 'nt/' in l: cur='nccl'; continue
        m=re.search(r'pccl-perf-(\w+)',l); cur=(m.group(1), 'share' if 'share-gpu' in l else '1rank') if m else None; continue
    m=re.match(r'\s+(\d+)\s+\d+\s+float\s+sum\s+-1\s+(?:pccl\s+(b2b|rt)\s+)?([\d.]+)\s',l)
    if m and cur:
        if cur=='nccl': k=('1rank b2b', int(m.group(1))); v='nccl'
        else: k=(cur[1]+' '+m.group(2), int(m.group(1))); v=cur[0]
        rows.setdefault(k,{}).setdefault(v,[]).append(float(m.group(3)))
for k in sorted(rows): print('%-11s %9d '%k, '  '.join('%s: %s'%(v,' '.join('%.1f'%x for x in rows[k][v])) for v in ['main','u8','c8','new','nccl'] if v in rows[k]))
