import re,sys
cur=None; rows={}
for l in open(sys.argv[1]):
    if l.startswith('=='): cur=l.strip('= \n'); continue
    if l.startswith('probe'): print(cur, l.strip()); continue
    m=re.match(r'\s+(\d+)\s+\d+\s+float\s+sum\s+-1\s+(?:pccl\s+(b2b|rt)\s+)?([\d.]+)\s+\S+\s+\S+\s+\d+\s+([\d.]+)',l)
    if m:
        k=(cur, m.group(2) or '', int(m.group(1)))
        rows.setdefault(k,[]).append((float(m.group(3)),float(m.group(4))))
for k in sorted(rows): print(k, ' '.join('%.2f/%.2f'%x for x in rows[k]))
