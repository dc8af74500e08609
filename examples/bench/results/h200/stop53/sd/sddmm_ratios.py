import csv, sys, math, collections
# usage: sddmm_ratios.py csv... : per set, the hand-written op's time over the language's
# (lang_op, `sddmm_lang::sddmm`), the op timed before (op) and after (op_after) the language in
# the same process: A/B/A. Also the A/A controls (op / sddmm_cuda, op / op_after) and cuSPARSE.
def gm(xs): return math.exp(sum(math.log(x) for x in xs)/len(xs)) if xs else float('nan')
def line(name, xs, show_below=False):
    if not xs: return
    w = min(xs)
    below = sorted(f"{m} k={k} {r:.2f}" for r, m, k in xs if r < 0.9)
    print(f"  {name:<34} n={len(xs):>3} geomean {gm([x[0] for x in xs]):.3f}  worst {w[0]:.3f} ({w[1]} k={w[2]})  below 0.9: {len(below)}")
    if show_below and below: print('     ', '; '.join(below))
for path in sys.argv[1:]:
    cases = collections.OrderedDict()
    for r in csv.DictReader(open(path)):
        if r['median_ms'] and r['status'] == 'ok':
            cases.setdefault((r['matrix'], int(r['k'])), {})[r['kernel']] = float(r['median_ms'])
        elif r['median_ms']:
            print('NOT OK', r['matrix'], r['k'], r['kernel'], r['status'])
    print(f"== {path}: {len(cases)} cases")
    both = lambda t: math.sqrt(t['op'] * t['op_after'])
    line("op(before,after) / lang_op", [(both(t) / t['lang_op'], m, k) for (m, k), t in cases.items()], True)
    line("op(before) / lang_op", [(t['op'] / t['lang_op'], m, k) for (m, k), t in cases.items()])
    line("op(after) / lang_op", [(t['op_after'] / t['lang_op'], m, k) for (m, k), t in cases.items()])
    line("A/A: op / op_after", [(t['op'] / t['op_after'], m, k) for (m, k), t in cases.items()])
    line("A/A: op / sddmm_cuda", [(t['op'] / t['sddmm_cuda'], m, k) for (m, k), t in cases.items()])
    line("cusparse_sddmm / lang_op", [(t['cusparse_sddmm'] / t['lang_op'], m, k) for (m, k), t in cases.items() if 'cusparse_sddmm' in t])
    line("cusparse_sddmm / op", [(t['cusparse_sddmm'] / t['op'], m, k) for (m, k), t in cases.items() if 'cusparse_sddmm' in t])
    for kk in sorted({k for _, k in cases}):
        line(f"  k={kk}: op(b,a) / lang_op", [(both(t) / t['lang_op'], m, k) for (m, k), t in cases.items() if k == kk])
