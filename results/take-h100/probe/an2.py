import sys, csv, collections
rows = [(int(r['block']), int(r['t']), int(r['ev'])) for r in csv.DictReader(open(sys.argv[1]))]
per = collections.defaultdict(list)
for b, t, e in rows: per[b].append((t, e))
d = collections.defaultdict(list)
for b, ev in per.items():
    ev.sort()
    half = len(ev) // 2  # second half: in place
    ev = ev[half:]
    for i, (t, e) in enumerate(ev):
        if e != 2: continue
        nxt = {}
        for t2, e2 in ev[i + 1:i + 8]:
            if e2 in (11, 12, 3) and e2 not in nxt: nxt[e2] = t2
            if e2 == 2: break
        if 11 in nxt: d['pick->try'].append(nxt[11] - t)
        if 11 in nxt and 12 in nxt: d['try->ready'].append(nxt[12] - nxt[11])
        if 12 in nxt and 3 in nxt: d['ready->filled'].append(nxt[3] - nxt[12])
for k, v in d.items():
    v.sort(); print(f"{k:14s} median {v[len(v)//2]/1000:6.2f} us p10 {v[len(v)//10]/1000:6.2f} p90 {v[9*len(v)//10]/1000:6.2f} n {len(v)}")
