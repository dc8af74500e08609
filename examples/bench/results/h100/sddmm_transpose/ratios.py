import csv,sys,math,collections
def load(p):
    d=collections.defaultdict(dict)
    for r in csv.DictReader(open(p)):
        if r['status']!='ok': continue
        d[(r['matrix'],int(r['k']))][r['kernel']]=float(r['median_ms'])
    return d
for p in sys.argv[1:]:
    d=load(p)
    print(p)
    for lang in ['lang_warp','lang_group16','lang_auto']:
        rs=[(m,c[ 'sddmm_cuda']/c[lang]) for m,c in d.items() if lang in c and 'sddmm_cuda' in c]
        cs=[(m,c['cusparse_sddmm']/c[lang]) for m,c in d.items() if lang in c and 'cusparse_sddmm' in c]
        g=math.exp(sum(math.log(r) for _,r in rs)/len(rs))
        gc=math.exp(sum(math.log(r) for _,r in cs)/len(cs))
        low=sorted(rs,key=lambda x:x[1])[:4]
        print(f"  {lang}: vs cuda geomean {g:.3f} min {low[0][1]:.3f} ({len(rs)} cases) below0.9: {sum(r<0.9 for _,r in rs)}; vs cusparse {gc:.3f}; lowest {[(m,round(r,2)) for m,r in low]}")
        for k in sorted(set(k for (_,k) in d)):
            rk=[r for (m,kk),r in rs if kk==k]; ck=[r for (m,kk),r in cs if kk==k]
            print(f"     k={k}: vs cuda {math.exp(sum(map(math.log,rk))/len(rk)):.3f} min {min(rk):.2f}; vs cusparse {math.exp(sum(map(math.log,ck))/len(ck)):.3f}" if ck else f"     k={k}: vs cuda {math.exp(sum(map(math.log,rk))/len(rk)):.3f}")
