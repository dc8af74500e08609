#!/usr/bin/env python3
"""hierarchical / best of the other schedules, main-before's binary and the merged tree's, same
call (call1/): per class (the classes of ../hier/call2/ratios.csv) and per matrix."""
import csv, math, os, collections
here = os.path.dirname(os.path.abspath(__file__))
classes = {(r['set'], r['matrix']): r['class'] for r in csv.DictReader(open(f'{here}/../hier/call2/ratios.csv'))}
def load(path):
    t = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if r['status'] == 'ok' and r['kernel'] != 'copy':
            t[r['matrix']][r['kernel']] = float(r['median_ms'])
    return t
rows = []
for st, sub, f in [('real', 'corpus', 'spmv_data_f32.csv'), ('powerlaw', 'powerlaw', 'spmv_powerlaw_f32.csv')]:
    m, n = load(f'{here}/call1/{sub}_main/{f}'), load(f'{here}/call1/{sub}_new/{f}')
    for mat in m:
        if mat not in n: continue
        def ratio(t):
            best = min(v for k, v in t.items() if k not in ('hierarchical', 'cusparse_alg1'))
            return t['hierarchical'], best, best / t['hierarchical']
        a, b = ratio(m[mat]), ratio(n[mat])
        rows.append((st, classes.get((st, mat), '?'), mat, *a, *b))
with open(f'{here}/hier_ratios.csv', 'w') as o:
    w = csv.writer(o); w.writerow(['set', 'class', 'matrix', 'main_hier_ms', 'main_best_ms', 'main_ratio', 'new_hier_ms', 'new_best_ms', 'new_ratio'])
    for r in rows: w.writerow(r)
g = collections.defaultdict(list)
for r in rows: g[(r[0], r[1])].append((r[5], r[8]))
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
print('set class n main new lowest_new')
for k, v in sorted(g.items()):
    print(*k, len(v), '%.3f %.3f %.3f' % (gm([a for a, _ in v]), gm([b for _, b in v]), min(b for _, b in v)))
for r in rows:
    if r[1] in ('skewed',) or r[8] < 0.6: print(r[2], 'main %.4f ms (%.3f) -> new %.4f ms (%.3f), best %.4f' % (r[3], r[5], r[6], r[8], r[7]))
