# results/hostpath/table.py DIR: the tables of results/hostpath/README.md from DIR/perf.csv
# (pccl-perf rows, out of place, with a variant column and either a ranks column: the interim
# run, or a run column: the final run, whose repeats become variant#run) and the nccl-tests
# lines of DIR/log.txt (-z 0 or none: b2b, -z 1: rt; a second run of the same is nccl-tests#2).
# Time per operation in us.
import collections, csv, re, sys

d = sys.argv[1]
T = collections.defaultdict(dict)
vs = []
for r in csv.DictReader(open(d + '/perf.csv')):
    if r['placement'] != 'out' or r.get('mode', 'bench') != 'bench':
        continue
    ranks = r.get('ranks') or '1'
    v = r['variant'] + ('#' + r['run'] if r.get('run') else '')
    T[(ranks, int(r['size']), r['timing'])][v] = float(r['time_us'])
    if v not in vs:
        vs.append(v)
cur, ncv = None, []
for l in open(d + '/log.txt'):
    m = re.match(r'== (?:env \S+ )?\./nccl-tests/all_reduce_perf (.*)', l)
    if m:  # -g GPUs, -z 0 (default): back to back, -z 1: a wait after each
        g, z = re.search(r'-g (\d+)', m.group(1)), re.search(r'-z (\d)', m.group(1))
        cur = (g.group(1) if g else '1', 'rt' if z and z.group(1) == '1' else 'b2b')
        continue
    if l.startswith('=='):
        cur = None
        continue
    f = l.split()
    if cur and len(f) > 6 and f[0].isdigit():
        row = T[(cur[0], int(f[0]), cur[1])]
        n = 'nccl-tests' if 'nccl-tests' not in row else 'nccl-tests#%d' % (1 + sum(k.startswith('nccl-tests') for k in row))
        row[n] = float(f[5])
        if n not in ncv:
            ncv.append(n)
vs += ncv
print('| ranks | size (B) | timing | ' + ' | '.join(vs) + ' |')
print('|' + '---|' * (3 + len(vs)))
for k in sorted(T):
    print('| %s | %d | %s | ' % k + ' | '.join('%.1f' % T[k][v] if v in T[k] else '-' for v in vs) + ' |')
