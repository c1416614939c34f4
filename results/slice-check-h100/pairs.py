#!/usr/bin/env python3
"""Single-size pairs (call3/, call4/ run.sh): per size, each variant's time per all-reduce (mean of out of
place and in place) over the rounds, and its ratio to the slice off within each round.
    python3 pairs.py call3/cost.txt.gz"""
import re,statistics as st,sys,gzip
p=sys.argv[1]; f=gzip.open(p,'rt') if p.endswith('.gz') else open(p)
runs=[]; cur=None
for l in f:
    if l.startswith('== timeout'):
        v='off' if 'SLICE_US=0' in l else 'watch' if 'WATCH_US=100' in l else 'slice'
        cur={'v':v,'size':re.search(r'-b (\S+)',l).group(1)}
    m=re.match(r'\s+(\d+)\s+\d+\s+float\s+sum\s+-1\s+pccl\s+b2b\s+([\d.]+)\s+\S+\s+\S+\s+\S+\s+([\d.]+)',l)
    if m and cur: cur['t']=(float(m.group(2))+float(m.group(3)))/2; runs.append(cur); cur=None
vs=[v for v in ['slice','watch'] if any(r['v']==v for r in runs)]
print('| size | off (us) | ' + ' | '.join('%s (us) | %s / off per round: median, range' % (v,v) for v in vs) + ' |')
print('|---' * (2 + 2*len(vs)) + '|')
for s in ['8','32K','2M','16M','128M']:
    off=[r['t'] for r in runs if r['size']==s and r['v']=='off']
    row='| %s | %.2f-%.2f |' % (s, min(off), max(off))
    for v in vs:
        on=[r['t'] for r in runs if r['size']==s and r['v']==v]
        ratios=[b/a for a,b in zip(off,on)]
        row+=' %.2f-%.2f | %.3f, %.3f-%.3f |' % (min(on), max(on), st.median(ratios), min(ratios), max(ratios))
    print(row)
