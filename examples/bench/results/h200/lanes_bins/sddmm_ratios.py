import csv, sys, math, collections
# usage: sddmm_sum.py csv... : per set, hand-written (op) time over the language's (lang_op, lang_lrb, lang_auto), geomean, worst, below 0.9
def gm(xs): return math.exp(sum(math.log(x) for x in xs)/len(xs)) if xs else float('nan')
for path in sys.argv[1:]:
    cases = collections.OrderedDict()
    for r in csv.DictReader(open(path)):
        if r['median_ms'] and r['status'] == 'ok':
            cases.setdefault((r['matrix'], int(r['k'])), {})[r['kernel']] = float(r['median_ms'])
        elif r['median_ms']:
            print('NOT OK', r['matrix'], r['k'], r['kernel'], r['status'])
    print(f"== {path}: {len(cases)} cases")
    kernels = sorted({k for t in cases.values() for k in t if k.startswith('lang_')})
    for kern in kernels + ['cusparse_sddmm']:
        xs = [(t['op'] / t[kern], m, k) for (m, k), t in cases.items() if kern in t and 'op' in t]
        if not xs: continue
        w = min(xs)
        below = sorted(f"{m} k={k} {r:.2f}" for r, m, k in xs if r < 0.9)
        print(f"  op / {kern:<16} n={len(xs):>3} geomean {gm([x[0] for x in xs]):.3f}  worst {w[0]:.3f} ({w[1]} k={w[2]})  below 0.9: {len(below)}")
        if kern == 'lang_op' and below: print('     ', '; '.join(below))
    xs = [(t['cusparse_sddmm'] / t['lang_op'], m, k) for (m, k), t in cases.items() if 'cusparse_sddmm' in t and 'lang_op' in t]
    if xs: print(f"  cusparse / lang_op geomean {gm([x[0] for x in xs]):.3f} worst {min(xs)[0]:.3f} ({min(xs)[1]} k={min(xs)[2]})")
