import csv, sys, collections, statistics
rows = list(csv.reader(open(sys.argv[1])))
# find header
hi = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
h = rows[hi]; data = rows[hi+1:]
ix = {k: h.index(k) for k in ["ID", "Kernel Name", "Block Size", "Grid Size", "Metric Name", "Metric Value"]}
launches = collections.OrderedDict()
for r in data:
    if len(r) < len(h): continue
    i = int(r[ix["ID"]])
    d = launches.setdefault(i, {"name": r[ix["Kernel Name"]], "block": r[ix["Block Size"]], "grid": r[ix["Grid Size"]]})
    v = r[ix["Metric Value"]].replace(",", "")
    try: d[r[ix["Metric Name"]]] = float(v)
    except ValueError: d[r[ix["Metric Name"]]] = v
# segments: matrix changes after a cusparse run followed by a non-cusparse kernel
seg, prev_cs, groups = 0, False, collections.OrderedDict()
for i, d in launches.items():
    cs = "csrmv" in d["name"].lower() or "cusparse" in d["name"].lower()
    if prev_cs and not cs: seg += 1
    prev_cs = cs
    key = (seg, d["name"][:50], d["block"], d["grid"], d.get("launch__shared_mem_config_size"))
    groups.setdefault(key, []).append(d)
mets = ["gpu__time_duration.sum", "l1tex__t_sector_hit_rate.pct", "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sector_op_read_hit_rate.pct", "dram__bytes_read.sum", "sm__warps_active.avg.pct_of_peak_sustained_active"]
print("seg kernel block grid smem_cfg n | time_us L1hit% L2sectors(M) L2hit% DRAM_MB occ%")
for k, ds in groups.items():
    med = lambda m: statistics.median([d[m] for d in ds if isinstance(d.get(m), float)] or [float('nan')])
    print(k[0], k[1], k[2], k[3], k[4], len(ds), "|", "%.1f" % (med(mets[0]) / 1e3), "%.1f" % med(mets[1]), "%.1f" % (med(mets[2]) / 1e6), "%.1f" % med(mets[3]), "%.1f" % (med(mets[4]) / 1e6), "%.1f" % med(mets[5]))
