#!/usr/bin/env python3
"""Ratios of `bench_sort --transpose-only --interleave` runs: for each matrix, the median time of
the hand-written transpose (`loops_handwritten`) over each implementation's (above 1: that one is
faster), with a 95% bootstrap interval (rounds resampled, 2000 times); `A/A` is the hand-written
transpose against itself timed in the same rounds (`loops_handwritten_again`): the run's noise.
Geomean and lowest per set (generated: names of several words; real: the corpus), and the
transpose against cuSPARSE csr2csc (its median over the implementation's).

    python3 ratios.py DIR...   (each DIR holds transpose_samples_<prec>.csv, or .csv.xz)
"""
import csv
import glob
import lzma
import math
import random
import sys

HAND = "loops_handwritten"


def med(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def geo(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def interval(a, b, rng, times=2000):
    """95% bootstrap interval of med(a) / med(b), the rounds resampled in pairs."""
    n = len(a)
    rs = []
    for _ in range(times):
        idx = [rng.randrange(n) for _ in range(n)]
        rs.append(med([a[i] for i in idx]) / med([b[i] for i in idx]))
    rs.sort()
    return rs[int(0.025 * times)], rs[int(0.975 * times) - 1]


for d in sys.argv[1:]:
    for path in sorted(glob.glob(f"{d}/transpose_samples_*.csv*")):
        s = {}
        f = lzma.open(path, "rt") if path.endswith(".xz") else open(path)
        for r in csv.DictReader(f):
            s.setdefault(r["matrix"], {}).setdefault(r["implementation"], []).append(float(r["ms"]))
        impls = [i for i in next(iter(s.values())) if i != HAND]
        rng = random.Random(1)
        print(f"== {path}")
        for set_name in ("generated", "real"):
            ms = [m for m in s if (" " in m) == (set_name == "generated")]
            if not ms:
                continue
            print(f"  {set_name} ({len(ms)} matrices)")
            rows = {}
            for m in ms:
                hand = s[m][HAND]
                for i in impls:
                    if i not in s[m]:
                        continue
                    r = med(hand) / med(s[m][i])
                    lo, hi = interval(hand, s[m][i], rng)
                    rows.setdefault(i, []).append((r, lo, hi, m, med(s[m][i])))
            for i, v in rows.items():
                low = min(v)
                below = [x for x in v if x[0] < 0.9]
                sure = [x for x in v if x[2] < 0.9]
                line = (f"    {i:<26} vs hand-written geomean {geo([x[0] for x in v]):.3f} lowest "
                        f"{low[0]:.3f} [{low[1]:.3f}, {low[2]:.3f}] ({low[3]}); below 0.9: {len(below)}, "
                        f"of which interval wholly below: {len(sure)}")
                print(line)
            if "cusparse_csr2csc" in impls:
                # cuSPARSE's median over the transpose's (above 1: the transpose is faster).
                for i in ("loops_lang", HAND):
                    v = [med(s[m]["cusparse_csr2csc"]) / med(s[m][i]) for m in ms]
                    low = min(zip(v, ms))
                    print(f"    transpose {i} vs cusparse_csr2csc: geomean {geo(v):.3f}"
                          f" lowest {low[0]:.3f} ({low[1]}) highest {max(v):.3f}")
            print("    per matrix (ms hand-written; ratio [95%] per implementation):")
            for m in ms:
                cells = []
                for i in impls:
                    if i not in s[m]:
                        continue
                    for (r, lo, hi, mm, t) in rows[i]:
                        if mm == m:
                            cells.append(f"{i.replace('loops_', '')} {r:.3f} [{lo:.3f},{hi:.3f}]")
                print(f"      {m:<40} {med(s[m][HAND]):8.4f}  " + "; ".join(cells))
