#!/usr/bin/env python3
"""Time per collective (us, out of place) per size and timing for each build of run.sh (main: 512 KiB per block;
131072, 32768: -DPCCL_BYTES_PER_BLOCK), nccl-tests beside.  "all" rows: every collective of the --coll all run.
Usage: table.py log.txt.gz"""
import gzip, re, sys
cur=None; rows={}
for l in gzip.open(sys.argv[1], "rt"):
    if l.startswith('== ') and not l.startswith('== exit'):
        if 'nt/' in l: cur='nccl '+('rt' if '-z 1' in l else 'b2b'); continue
        m=re.search(r'pccl-perf-(\w+)',l); cur=(m.group(1)+(' all' if '--coll all ' in l else '')) if m else None; continue
    m=re.match(r'\s+(\d+)\s+\d+\s+(\w+)\s+(\w+)\s+(-?\d+)\s+(?:pccl\s+(b2b|rt)\s+)?([\d.]+)\s',l)
    if m and cur:
        coll='' if ' all' not in cur else ''
        if cur.startswith('nccl'): k=(cur.split()[1], int(m.group(1))); v='nccl'
        else: k=(m.group(5)+(' all' if ' all' in cur else ''), int(m.group(1))); v=cur.split()[0]
        rows.setdefault(k,{}).setdefault(v,[]).append(float(m.group(6)))
for k in sorted(rows): print('%-8s %9d '%k, '  '.join('%s: %s'%(v,' '.join('%.1f'%x for x in rows[k][v])) for v in ['main','131072','32768','nccl'] if v in rows[k]))
