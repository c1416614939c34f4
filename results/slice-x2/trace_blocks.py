# Call 15 (trace.patch): one launch's events for some blocks, from one rank's PCCL_VT_LOG dump, in us from
# block 0's launch start. Usage: python3 trace_blocks.py vt-on-1.0 LAUNCH 0,1,33 [EVENTS]
import sys
sys.path.insert(0, __import__('os').path.dirname(__file__))
from trace_launches import load
import bisect
ev=load(sys.argv[1]); L=int(sys.argv[2]); blocks=[int(x) for x in sys.argv[3].split(',')]; nmax=int(sys.argv[4]) if len(sys.argv)>4 else 40
begins=[e[0] for e in ev[0] if e[1]==6]
t0=begins[L]
names={1:'pick',2:'comp',3:'last',4:'flush',5:'preempt',6:'BEGIN',7:'END',8:'fetch',9:'take'}
for b in blocks:
    print('block',b)
    s=[]
    for (t,k,x,i,inv) in ev[b]:
        if t>=t0 and len(s)<nmax: s.append('%.1f %s %d.%d x%d'%((t-t0)/1e3,names[k],i,inv if k not in (8,9) else inv,x))
    print('  '+' | '.join(s))
