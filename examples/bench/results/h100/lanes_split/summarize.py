import csv, sys, math, collections
# usage: summarize.py csv... ; prints per-case best lanes / op / best cuSPARSE and geomeans per set
rows = []
for path in sys.argv[1:]:
    with open(path) as f:
        for r in csv.DictReader(f):
            r['set'] = path
            rows.append(r)
cases = collections.OrderedDict()
for r in rows:
    key = (r['set'], r['matrix'], int(r['k']))
    cases.setdefault(key, {})
    if r['median_ms'] and r['status'] == 'ok':
        cases[key][r['kernel']] = float(r['median_ms'])
    elif r['median_ms'] and r['status'] != 'ok':
        print('NOT OK', key, r['kernel'], r['status'])
def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float('nan')
out = []
print(f"{'set':<10} {'matrix':<28} {'k':>4} {'op ms':>9} {'cs ms':>9} {'best lanes':>16} {'ms':>9} {'lrb ms':>9} {'best/op':>8} {'lrb/op':>7} {'best/cs':>8}")
for (s, m, k), t in cases.items():
    if 'op' not in t:
        continue
    lanes = {n: v for n, v in t.items() if n.startswith('lanes_')}
    cs = [v for n, v in t.items() if n.startswith('cusparse')]
    if not lanes:
        continue
    bn, bv = min(lanes.items(), key=lambda x: x[1])
    csb = min(cs) if cs else float('nan')
    lrb = lanes.get('lanes_lrb', float('nan'))
    out.append((s, m, k, t['op'] / bv, t['op'] / lrb, csb / bv))
    tag = s.split('/')[-1].replace('.csv','')[:10]
    print(f"{tag:<10} {m:<28} {k:>4} {t['op']:>9.4f} {csb:>9.4f} {bn:>16} {bv:>9.4f} {lrb:>9.4f} {t['op']/bv:>8.3f} {t['op']/lrb:>7.3f} {csb/bv:>8.3f}")
for name, sel in [('all', lambda o: True), ('generated', lambda o: 'generated' in o[0]), ('real', lambda o: 'data_f32' in o[0])] + [(f'k={k}', (lambda k: lambda o: o[2] == k)(k)) for k in (8, 32, 128)]:
    xs = [o for o in out if sel(o)]
    if not xs:
        continue
    worst = min(xs, key=lambda o: o[3])
    print(f"{name:<10} n={len(xs):>3}  best lanes/op geomean {gm([o[3] for o in xs]):.3f} worst {worst[3]:.3f} ({worst[1]} k={worst[2]}); below 0.9: {sum(o[3] < 0.9 for o in xs)};  lrb/op geomean {gm([o[4] for o in xs if o[4]==o[4]]):.3f};  best lanes/best cuSPARSE geomean {gm([o[5] for o in xs if o[5]==o[5]]):.3f}")
