#!/usr/bin/env python3
"""Components' rows of bench_graphs --library CSVs side by side, with PageRank's fixed cost and
marginal cost an iteration from the same process (20- and 200-iteration calls, device loop).
Usage: python3 table.py DIR NAME... (DIR/NAME.csv each)."""
import csv, sys

d, names = sys.argv[1], sys.argv[2:]
rows = {n: list(csv.DictReader(open(f"{d}/{n}.csv"))) for n in names}
graphs = []
for r in rows[names[0]]:
    if r["graph"] not in graphs:
        graphs.append(r["graph"])

def get(n, g, alg, strat):
    for r in rows[n]:
        if r["graph"] == g and r["algorithm"] == alg and r["strategy"] == strat:
            return r

print("| graph | run | cc auto ms (it, ran) | cc device ms (it) | cc host ms (it) | pr device us/it (marginal) | pr device fixed us | cc device (ms - fixed) / it, us |")
print("|---|---|---|---|---|---|---|---|")
for g in graphs:
    for n in names:
        a, dq, h = (get(n, g, "components", s) for s in ("auto", "device-queue", "host"))
        p20, p200 = get(n, g, "pagerank", "device-queue"), get(n, g, "pagerank-200", "device-queue")
        marg = fixed = None
        if p20 and p200:
            marg = (float(p200["median_ms"]) - float(p20["median_ms"])) * 1e3 / 180
            fixed = float(p20["median_ms"]) * 1e3 - 20 * marg
        per = (float(dq["median_ms"]) * 1e3 - fixed) / int(dq["iterations"]) if fixed is not None else None
        f = lambda x: "-" if x is None else f"{x:.1f}"
        print(f"| {g} | {n} | {float(a['median_ms']):.4f} ({a['iterations']}, {a['ran']}) | "
              f"{float(dq['median_ms']):.4f} ({dq['iterations']}) | {float(h['median_ms']):.4f} ({h['iterations']}) | "
              f"{f(marg)} | {f(fixed)} | {f(per)} |")

# Ratios of the first run named to each other (its ms over theirs), components, per strategy.
print()
print("| graph | run | auto | device-queue | host |")
print("|---|---|---|---|---|")
b = names[0]
for g in graphs:
    for n in names[1:]:
        cells = []
        for s in ("auto", "device-queue", "host"):
            x, y = get(b, g, "components", s), get(n, g, "components", s)
            cells.append(f"{float(x['median_ms']) / float(y['median_ms']):.2f}")
        print(f"| {g} | {b} / {n} | " + " | ".join(cells) + " |")
