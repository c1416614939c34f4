import sys, csv, collections, gzip
op = gzip.open if sys.argv[1].endswith('.gz') else open
rows = [(int(r['block']), int(r['t']), int(r['ev']), int(r['id']), int(r['inv'])) for r in csv.DictReader(op(sys.argv[1], 'rt'))]
rows.sort(key=lambda r: r[1])
sqn = collections.Counter(); ev = collections.defaultdict(lambda: collections.defaultdict(list))
cur = {}  # block -> (id, inv) active (from pick)
for b, t, e, i, v in rows:
    if e == 0: sqn[i] += 1; ev[(i, sqn[i])]['sq'].append(t); cur0 = (i, sqn[i])
    elif e == 8: ev[(i, sqn[i])]['handed'].append(t)
    elif e == 10 and b == 0 and 'cur0' in dir(): ev[cur0]['lanes'].append(t)
    elif e == 1: ev[(i, v)]['take'].append((t, b))
    elif e == 2: ev[(i, v)]['pick'].append((t, b)); cur[b] = (i, v)
    elif e == 3 and b in cur: ev[cur[b]]['fill'].append((t, b))
    elif e == 4: ev[(i, v)]['done'].append((t, b))
    elif e == 5: ev[(i, v)]['last'].append((t, b))
flush = sorted((t, b) for b, t, e, i, v in rows if e == 6)
keys = sorted((k for k in ev if ev[k]['sq'] and ev[k]['done']), key=lambda k: ev[k]['sq'][0])
n = len(keys); part = {'first half (out of place)': keys[10:n//2-5], 'second half (in place)': keys[n//2+10:]}
import bisect
ft = [t for t, b in flush]
for name, ks in part.items():
    cols = collections.defaultdict(list); prev = None
    for k in ks:
        d = ev[k]; s = d['sq'][0]
        def mm(lst, tag):
            if not lst: return
            ts = sorted(t for t, b in lst)
            cols[f'sq->first {tag}'].append(ts[0] - s); cols[f'sq->med {tag}'].append(ts[len(ts)//2] - s); cols[f'sq->last {tag}'].append(ts[-1] - s)
        if d['handed']: cols['sq->handed'].append(d['handed'][0] - s)
        if d['lanes']: cols['sq->lanes written'].append(d['lanes'][0] - s)
        mm(d['take'], 'take'); mm(d['pick'], 'pick'); mm(d['fill'], 'fill'); mm(d['done'], 'done')
        # per block: take->pick, pick->first fill, first fill->done
        tk = {b: t for t, b in d['take']}; pk = {}; fl = {}; dn = {}
        for t, b in d['pick']: pk.setdefault(b, t)
        for t, b in d['fill']: fl.setdefault(b, t)
        for t, b in d['done']: dn[b] = t
        for b in tk:
            if b in pk: cols['blk take->pick'].append(pk[b] - tk[b])
            if b in pk and b in fl: cols['blk pick->fill'].append(fl[b] - pk[b])
            if b in fl and b in dn: cols['blk fill->done'].append(dn[b] - fl[b])
        if d['last']:
            lt, lb = d['last'][0]; cols['sq->last (counted)'].append(lt - s)
            j = bisect.bisect_left(ft, lt)
            if j < len(ft): cols['sq->flush after last'].append(ft[j] - s)
        if prev is not None: cols['sq gap'].append(s - prev)
        prev = s
        cols['blocks'].append(len(d['done']))
    print(f'## {name}: {len(ks)} invocations')
    for c, v in cols.items():
        v = sorted(v)
        if v: print(f"{c:22s} median {v[len(v)//2]/1000:8.2f} us  p10 {v[len(v)//10]/1000:8.2f}  p90 {v[9*len(v)//10]/1000:8.2f}  n {len(v)}")
