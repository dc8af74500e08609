"""Best `lanes_*` schedule per case over the op and over the best cuSPARSE algorithm, from the
bench_spmm CSVs given (one run each), geomeans per class and k. Usage: summarize.py CSV.."""
import csv, math, sys
from collections import defaultdict

HUBS = ("arrow", "powerlaw", "rmat")
for path in sys.argv[1:]:
    cases = defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if r["status"] != "ok" or r["kernel"].endswith("first_call"):
            continue
        cases[(r["matrix"], int(r["k"]))][r["kernel"]] = float(r["median_ms"])
    rows, groups = [], defaultdict(list)
    for (m, k), t in sorted(cases.items()):
        lanes = {n: v for n, v in t.items() if n.startswith("lanes_")}
        cs = [v for n, v in t.items() if n.startswith("cusparse")]
        if "op" not in t or not lanes or not cs:
            continue
        best = min(lanes, key=lanes.get)
        r_op, r_cs = t["op"] / lanes[best], min(cs) / lanes[best]
        rows.append((m, k, best, lanes[best], t["op"], min(cs), r_op, r_cs))
        cls = "hub" if m.startswith(HUBS) else "even"
        for key in ("all", cls, f"k={k}", f"{cls} k={k}"):
            groups[key].append((r_op, r_cs))
    print(f"== {path}")
    print(f"{'matrix':20} {'k':>4} {'best lanes':14} {'ms':>9} {'op ms':>9} {'cs ms':>9} {'/op':>7} {'/cs':>7}")
    for m, k, b, v, o, c, ro, rc in rows:
        print(f"{m:20} {k:>4} {b:14} {v:9.4f} {o:9.4f} {c:9.4f} {ro:7.3f} {rc:7.3f}")
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    for key in sorted(groups):
        xs = groups[key]
        print(f"{key:12} n={len(xs):2}  best/op {g([a for a, _ in xs]):.3f}  best/cuSPARSE {g([b for _, b in xs]):.3f}  worst/op {min(a for a, _ in xs):.3f}")
