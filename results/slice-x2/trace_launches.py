# Call 15 (trace.patch): per launch, from one rank's PCCL_VT_LOG dump: the pace (us per invocation), the
# invocations, their blocks' first start to last completion, the spread of their starts and completions,
# block 0's rank among the blocks in starting and in completing, and a block's gap from a completion to its
# next pick. Usage: python3 trace_launches.py vt-on-1.0 [...]
import struct,sys,collections,statistics as st
def load(fn):
    d=open(fn,'rb').read()
    lens=struct.unpack('64I',d[:256]); off=256; ev={}
    for b in range(64):
        n=lens[b]; a=struct.unpack('%dQ'%(2*n),d[off:off+16*n]); off+=16*n
        ev[b]=[(a[2*i],a[2*i+1]&0xff,(a[2*i+1]>>8)&0xff,(a[2*i+1]>>16)&0xffff,a[2*i+1]>>32) for i in range(n)]
    return ev
def analyze(fn):
    ev=load(fn)
    t0=min(e[0][0] for e in ev.values() if e)
    # launches from block 0's begin events
    begins=[e[0] for e in ev[0] if e[1]==6]
    ends=[e[0] for e in ev[0] if e[1]==7]
    # per block: for each complete, the next pick's gap (idle between invocations)
    first_pick={}; comp={}
    gaps=collections.defaultdict(list)
    for b,E in ev.items():
        last_c=None
        for (t,k,x,i,inv) in E:
            if k==1:
                first_pick.setdefault((i,inv),{}).setdefault(b,t)
                if last_c is not None: gaps[b].append((last_c,t-last_c)); last_c=None
            elif k==2:
                comp.setdefault((i,inv),{})[b]=t; last_c=t
            elif k in (6,7): last_c=None
    # block 0 L at fetch
    fetchL=collections.Counter(e[2] for e in ev[0] if e[1]==8)
    print(fn,'launches',len(begins),'block0 tq_len at fetch',sorted(fetchL.items()))
    # per launch stats
    def launch_of(t):
        import bisect
        return bisect.bisect_right(begins,t)-1
    per=collections.defaultdict(lambda: collections.defaultdict(list))
    for key,cb in comp.items():
        if len(cb)<64 or key not in first_pick or len(first_pick[key])<64: continue
        fp=first_pick[key]
        L=launch_of(min(fp.values()))
        if L!=launch_of(max(cb.values())): continue
        s0=fp[0]; smin=min(fp.values()); smax=max(fp.values())
        c0=cb[0]; cmin=min(cb.values()); cmax=max(cb.values())
        per[L]['start_spread'].append(smax-smin)
        per[L]['b0_start_rank'].append(sorted(fp.values()).index(s0))
        per[L]['b0_comp_rank'].append(sorted(cb.values()).index(c0))
        per[L]['dur'].append(cmax-smin)
        per[L]['cmax'].append(cmax)
        per[L]['comp_spread'].append(cmax-cmin)
    out=[]
    for L in sorted(per):
        p=per[L]; cm=sorted(p['cmax'])
        if len(cm)<5: continue
        pace=(cm[-1]-cm[0])/(len(cm)-1)/1e3
        gl=[g for b in gaps for (t,g) in gaps[b] if launch_of(t)==L]
        out.append((L,pace,len(cm),st.median(p['dur'])/1e3,st.median(p['start_spread'])/1e3,st.median(p['comp_spread'])/1e3,st.median(p['b0_start_rank']),st.median(p['b0_comp_rank']),st.median(gl)/1e3 if gl else -1, st.mean(gl)/1e3 if gl else -1))
    print('launch pace n dur start_spread comp_spread b0_start_rank b0_comp_rank gap_med gap_mean')
    for o in out[:60]: print('%d %.1f %d %.1f %.1f %.1f %d %d %.2f %.2f'%o)
    return ev
if __name__=='__main__':
    for f in sys.argv[1:]: analyze(f)
