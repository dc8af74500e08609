#!/usr/bin/env python3
"""Ratios of bench_sort --transpose-only CSVs: time of the hand-written transpose (and of cuSPARSE
csr2csc) over each loops implementation's (above 1: that implementation is faster), geomean and
lowest per set (generated: names with spaces from bench_sort's generated set; real: the corpus).

    python3 ratios.py sort_f32.csv [sort_f64.csv ...]
"""
import csv
import math
import sys



def load(path):
    t = {}
    for r in csv.DictReader(open(path)):
        if r["operation"] != "transpose" or not r["median_ms"]:
            continue
        t.setdefault(r["matrix"], {})[r["implementation"]] = float(r["median_ms"])
    return t


def geo(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


for path in sys.argv[1:]:
    t = load(path)
    impls = sorted({i for m in t.values() for i in m if i.startswith("loops")})
    print(f"== {path}")
    for set_name in ("generated", "real"):
        # bench_sort's generated matrices have names of several words; the corpus's have one.
        ms = [m for m in t if (" " in m) == (set_name == "generated")]
        print(f"  {set_name} ({len(ms)} matrices)")
        for impl in impls:
            vs_hand = [(t[m]["loops_handwritten"] / t[m][impl], m) for m in ms
                       if impl in t[m] and "loops_handwritten" in t[m]]
            vs_cus = [(t[m]["cusparse_csr2csc"] / t[m][impl], m) for m in ms
                      if impl in t[m] and "cusparse_csr2csc" in t[m]]
            if not vs_hand:
                continue
            low = min(vs_hand)
            below = sum(1 for r, _ in vs_hand if r < 0.9)
            print(f"    {impl:<26} vs hand-written geomean {geo([r for r, _ in vs_hand]):.3f}"
                  f" lowest {low[0]:.3f} ({low[1]}) below0.9: {below};"
                  f" vs cusparse geomean {geo([r for r, _ in vs_cus]):.3f}"
                  f" lowest {min(vs_cus)[0]:.3f} ({min(vs_cus)[1]})")
