import sys, csv, collections
# pccl-times CSV: rank, bytes, in place, run, ns
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[0] if not rows[0][0].isdigit() else None
data = [r for r in rows if r and r[0].isdigit()]
by = collections.defaultdict(list)
for r in data: by[(int(r[0]), int(r[2]), int(r[3]))].append(int(r[4]))
for k in sorted(by):
    t = sorted(by[k])
    if len(t) < 50: continue
    g = [b - a for a, b in zip(t, t[1:])]
    big = sorted(g)[-3:]
    print(f"rank {k[0]} inplace {k[1]} run {k[2]}: n {len(t)} span {(t[-1]-t[0])/1e3:.0f} us, median gap {sorted(g)[len(g)//2]/1e3:.1f} us, gaps>200us {sum(x > 200000 for x in g)}, largest {[round(x/1e3) for x in big]} us")
