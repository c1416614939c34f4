import collections, sys
def load(path):
    runs=collections.defaultdict(lambda: collections.defaultdict(list)); hdr=None
    for line in open(path):
        if line.startswith('==') and not line.startswith('== exit') and not line.startswith('== skipped'):
            hdr=line.lstrip('= ').strip(); continue
        f=line.split()
        if not f or not f[0].isdigit() or not hdr: continue
        if len(f)>12 and f[5]=='pccl':
            key=('share ' if 'share-gpu' in hdr else '')+('blocks=1' if 'PCCL_BLOCKS=1 ' in hdr else 'blocks=4' if 'PCCL_BLOCKS=4' in hdr else 'default')
            runs[key][(int(f[0]),f[6])].append((float(f[7])+float(f[11]))/2)
        elif 'all_reduce_perf' in hdr and len(f)>=10 and f[2]=='float':
            runs['nccl-tests '+('b2b' if '-z 0' in hdr else 'rt')][(int(f[0]),'x')].append(float(f[5]))
    return runs
def m(runs,k,s,t):
    v=runs[k].get((s,t)); return '%.1f'%(sum(v)/len(v)) if v else '-'
sizes=[8,32,128,512,2048,8192,32768,131072,524288]
p=load(sys.argv[1]); f=load(sys.argv[2])
print("| size (B) | timing | nccl-tests | 64 blocks, lo 4 (old default) | PCCL_BLOCKS=4 | PCCL_BLOCKS=1 | new default | nccl-tests | 2 ranks shared: old default | PCCL_BLOCKS=1 | new default |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for t in ['b2b','rt']:
    for s in sizes:
        print(f"| {s} | {t} | {m(p,'nccl-tests '+t,s,'x')} | {m(p,'default',s,t)} | {m(p,'blocks=4',s,t)} | {m(p,'blocks=1',s,t)} | {m(f,'default',s,t)} | {m(f,'nccl-tests '+t,s,'x')} | {m(p,'share default',s,t)} | {m(p,'share blocks=1',s,t)} | {m(f,'share default',s,t)} |")
