//! The SpMM benchmark's summaries, plan variants and outputs.

use super::*;

/// The suffix of a relabelled copy's name (as `bench_spmv --relabel`'s).
pub(super) const RELABELLED: &str = "@deg";

/// For each matrix and k run as is and relabelled (`--relabel`): the op's, the best cuSPARSE
/// algorithm's and ALG1's times on both, the relabelling's GPU cost, and the products that repay
/// it (where the op is faster relabelled).
pub(super) fn relabel_summary(
    results: &[(usize, MatrixResult)],
    costs: &[(String, f64)],
) -> String {
    if costs.is_empty() {
        return String::new();
    }
    let base_name = |r: &MatrixResult| r.name.split(" k=").next().unwrap_or(&r.name).to_string();
    let mut s = String::from(
        "\nrelabelled by in-degree on the GPU (ops::relabel; ms, ratio = as is / relabelled):\n",
    );
    let _ = writeln!(
        s,
        "{:<22} {:>4} {:>9} {:>9} {:>7} {:>9} {:>9} {:>7} {:>9} {:>9} {:>7} {:>8} {:>9}",
        "matrix",
        "k",
        "op",
        "op rel",
        "ratio",
        "best cs",
        "cs rel",
        "ratio",
        "alg1",
        "alg1 rel",
        "ratio",
        "GPU ms",
        "repaid by"
    );
    let ms = |v: Option<f64>| v.map_or("-".to_string(), |t| format!("{t:.4}"));
    let x = |a: Option<f64>, b: Option<f64>| {
        a.zip(b)
            .map_or("-".to_string(), |(a, b)| format!("{:.2}x", a / b))
    };
    for (k, rel) in results {
        let name = base_name(rel);
        let Some(base) = name.strip_suffix(RELABELLED) else {
            continue;
        };
        let Some(cost) = costs.iter().find(|c| c.0 == name).map(|c| c.1) else {
            continue;
        };
        let Some((_, orig)) = results
            .iter()
            .find(|(kk, o)| kk == k && base_name(o) == base)
        else {
            continue;
        };
        let alg1 = SpMmAlg::CsrAlg1.kernel_name();
        let (o0, o1) = (orig.ms(OP), rel.ms(OP));
        let (c0, c1) = (
            best_cusparse(orig).map(|b| b.1),
            best_cusparse(rel).map(|b| b.1),
        );
        let repaid = o0
            .zip(o1)
            .filter(|(a, b)| a > b)
            .map_or("never".to_string(), |(a, b)| {
                format!("{:.0}", (cost / (a - b)).ceil())
            });
        let _ = writeln!(
            s,
            "{:<22} {k:>4} {:>9} {:>9} {:>7} {:>9} {:>9} {:>7} {:>9} {:>9} {:>7} {:>8.1} {:>9}",
            base,
            ms(o0),
            ms(o1),
            x(o0, o1),
            ms(c0),
            ms(c1),
            x(c0, c1),
            ms(orig.ms(alg1)),
            ms(rel.ms(alg1)),
            x(orig.ms(alg1), rel.ms(alg1)),
            cost,
            repaid
        );
    }
    s
}

/// The copy a traffic line is timed on: at most this many bytes moved (read + written), the
/// time scaled to the model's bytes beyond.
const TRAFFIC_COPY_MAX: u64 = 8 << 30;

/// `--traffic`: the case's traffic model (`check::spmm_traffic`), a device copy of its DRAM bytes
/// timed (added to `r` as the `copy` line, at the model's bytes), and a line saying what share of
/// the copy's bandwidth the op and the best cuSPARSE algorithm reach at those bytes, how many
/// sectors of B each nonzero asks L2 for, and the rate L2 serves them at under the op.
pub(super) fn traffic_of<T: Float>(
    gpu: &Gpu,
    a: &sprs::CsMat<T>,
    k: usize,
    plan: &Plan,
    r: &mut MatrixResult,
) -> String {
    let name = r.name.split(" k=").next().unwrap_or(&r.name).to_string();
    let started = Instant::now();
    let t = loops::check::spmm_traffic::<T>(
        &a.indptr().to_proper(),
        a.indices(),
        a.cols(),
        k,
        gpu.limits().l2_bytes,
    );
    let modelled = started.elapsed();
    let dram = t.dram_bytes();
    let moved = dram.min(TRAFFIC_COPY_MAX);
    let copy = match bench::timing::measure_copy(gpu, plan, moved, 0.0) {
        Ok((mut m, _)) => {
            let scale = dram as f64 / moved as f64;
            m.median_ms = m.median_ms.map(|ms| ms * scale);
            m.per_launch_ms = m.per_launch_ms.map(|ms| ms * scale);
            m
        }
        Err(e) => Measurement::failed(bench::COPY, Kind::Copy, chain(e.as_ref())),
    };
    let copy_ms = copy.median_ms;
    r.kernels.push(copy);
    r.traffic = Some(t);
    let share = |ms: Option<f64>| match (copy_ms, ms) {
        (Some(c), Some(ms)) => format!("{:.0}%", 100.0 * c / ms),
        _ => "-".to_string(),
    };
    let op = r.ms(OP);
    format!(
        "{name:<22} {k:>4} traffic: DRAM {:.0} MB by the model (stream {:.0} MB, B {:.0} MB of \
         {:.0} MB touched), {:.2} sectors of B per nonzero asked of L2; copy of it {} ms; share \
         of the copy: op {}, best cuSPARSE {}; L2 served {} GB/s under the op (model {:.1?})",
        dram as f64 / 1e6,
        t.stream_bytes as f64 / 1e6,
        t.x_dram_bytes as f64 / 1e6,
        t.x_touched_bytes as f64 / 1e6,
        t.sectors_per_nonzero(a.nnz()),
        copy_ms.map_or("-".to_string(), |c| format!("{c:.4}")),
        share(op),
        share(best_cusparse(r).map(|b| b.1)),
        op.map_or("-".to_string(), |ms| format!(
            "{:.0}",
            t.l2_bytes_served() as f64 / (ms * 1e6)
        )),
        modelled
    )
}

/// How many variants [`plan_variants`] names.
pub(super) const VARIANTS: usize = 4;

/// Variants of the op's chosen plan at `k` (None where one does not apply): `op_tile_x2` (half
/// the lanes over k, twice the vectors each), `op_nz_x2` and `op_nz_half` (twice, half the lanes
/// over nonzeros), `op_vector_half` (half the vector width, the lost width made up by lanes or
/// tile vectors).
pub(super) fn plan_variants(p: SpmmPlan, k: usize) -> [(&'static str, Option<SpmmPlan>); VARIANTS] {
    let lanes = p.log_lanes_k + p.log_lanes_nz;
    let tile_x2 = (p.log_lanes_k > 0 && p.tile_vectors < 4).then_some(SpmmPlan {
        log_lanes_k: p.log_lanes_k - 1,
        tile_vectors: p.tile_vectors * 2,
        ..p
    });
    let nz_x2 = (lanes < 5).then_some(SpmmPlan {
        log_lanes_nz: p.log_lanes_nz + 1,
        ..p
    });
    let nz_half = (p.log_lanes_nz > 0).then_some(SpmmPlan {
        log_lanes_nz: p.log_lanes_nz - 1,
        ..p
    });
    let vector_half = (p.vector > 1 && k.is_multiple_of(p.vector as usize / 2))
        .then(|| {
            let v = SpmmPlan {
                vector: p.vector / 2,
                ..p
            };
            if lanes < 5 {
                Some(SpmmPlan {
                    log_lanes_k: p.log_lanes_k + 1,
                    ..v
                })
            } else if p.tile_vectors < 4 {
                Some(SpmmPlan {
                    tile_vectors: p.tile_vectors * 2,
                    ..v
                })
            } else {
                None
            }
        })
        .flatten();
    [
        ("op_tile_x2", tile_x2),
        ("op_nz_x2", nz_x2),
        ("op_nz_half", nz_half),
        ("op_vector_half", vector_half),
    ]
}

pub(super) fn kernel_list(
    sddmm: bool,
    quick: bool,
    variants: bool,
    schedules: &[&str],
    lanes: &[&str],
) -> Vec<String> {
    if sddmm {
        let mut k = vec![
            OP.to_string(),
            SDDMM_CUDA.to_string(),
            SDDMM_LANG_OP.to_string(),
            SDDMM_OP_AFTER.to_string(),
        ];
        k.extend(lanes.iter().map(|s| format!("{SDDMM_LANG}{s}")));
        k.push(SDDMM_KERNEL.into());
        return k;
    }
    let mut k = vec![OP.to_string(), OP_FIRST_CALL.to_string()];
    if !quick {
        k.extend([OP_ROWS.to_string(), OP_SPLIT.to_string()]);
    }
    if variants {
        k.extend(["op_tile_x2", "op_nz_x2", "op_nz_half", "op_vector_half"].map(String::from));
    }
    k.extend(schedules.iter().map(|s| format!("schedule_{s}")));
    k.extend(lanes.iter().map(|s| format!("{LANES}{s}")));
    k.extend(SpMmAlg::ALL.iter().map(|a| a.kernel_name().to_string()));
    k
}

/// The fastest cuSPARSE line of a case: (name, ms).
fn best_cusparse(r: &MatrixResult) -> Option<(&str, f64)> {
    r.kernels
        .iter()
        .filter(|m| m.kind == Kind::Cusparse)
        .filter_map(|m| m.median_ms.map(|t| (m.kernel.as_str(), t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn speedup(r: &MatrixResult) -> Option<f64> {
    speedup_of(r, OP)
}

/// The best cuSPARSE algorithm's time over `kernel`'s.
fn speedup_of(r: &MatrixResult, kernel: &str) -> Option<f64> {
    Some(best_cusparse(r)?.1 / r.ms(kernel)?)
}

pub(super) fn table_row(r: &MatrixResult, k: usize, plan: &str) -> String {
    let ms = |v: Option<f64>| v.map_or("-".to_string(), |t| format!("{t:.4}"));
    let best = best_cusparse(r);
    let mut row = format!(
        "{:<22} {k:>4} {:>10} {:>10} {:>18} {:>8} {:>10}",
        r.name.split(" k=").next().unwrap_or(&r.name),
        ms(r.ms(OP)),
        ms(best.map(|b| b.1)),
        best.map_or("-", |b| b.0),
        speedup(r).map_or("-".to_string(), |s| format!("{s:.2}x")),
        ms(r.ms(OP_FIRST_CALL))
    );
    let _ = write!(row, "  {plan}");
    for f in r.failures() {
        let _ = write!(row, "  [{}: {}]", f.kernel, f.status());
    }
    row
}

pub(super) fn summary(results: &[(usize, MatrixResult)], ks: &[usize]) -> String {
    let mut s = String::new();
    let all = geomean(results.iter().filter_map(|(_, r)| speedup(r)));
    let _ = writeln!(
        s,
        "geomean speedup of the op over the best cuSPARSE algorithm: {} over {} cases",
        all.map_or("-".to_string(), |g| format!("{g:.3}x")),
        results.iter().filter(|(_, r)| speedup(r).is_some()).count()
    );
    for &k in ks {
        let per: Vec<f64> = results
            .iter()
            .filter(|(kk, _)| *kk == k)
            .filter_map(|(_, r)| speedup(r))
            .collect();
        let worst = per.iter().copied().fold(f64::INFINITY, f64::min);
        let _ = writeln!(
            s,
            "  k = {k:>4}: {} (min {}, {} matrices)",
            geomean(per.iter().copied()).map_or("-".to_string(), |g| format!("{g:.3}x")),
            if worst.is_finite() {
                format!("{worst:.2}x")
            } else {
                "-".into()
            },
            per.len()
        );
    }
    let first: Vec<(usize, f64)> = results
        .iter()
        .filter_map(|(k, r)| Some((*k, speedup_of(r, OP_FIRST_CALL)?)))
        .collect();
    if !first.is_empty() {
        let _ = write!(
            s,
            "the op's first call (fresh upload, candidates measured) over the best cuSPARSE \
             algorithm's steady state: {}; per k:",
            geomean(first.iter().map(|f| f.1)).map_or("-".to_string(), |g| format!("{g:.3}x"))
        );
        for &k in ks {
            let g = geomean(first.iter().filter(|f| f.0 == k).map(|f| f.1));
            let _ = write!(
                s,
                " {k}: {}",
                g.map_or("-".to_string(), |g| format!("{g:.2}x"))
            );
        }
        let _ = writeln!(s);
    }
    lanes_summary(&mut s, results);
    // The mappings and schedules, where timed: geomean of each against the op.
    let mut names: Vec<String> = Vec::new();
    for (_, r) in results {
        for m in &r.kernels {
            if m.kernel != OP && !names.contains(&m.kernel) {
                names.push(m.kernel.clone());
            }
        }
    }
    for n in names {
        let g = geomean(
            results
                .iter()
                .filter_map(|(_, r)| Some(r.ms(&n)? / r.ms(OP)?)),
        );
        if let Some(g) = g {
            let _ = writeln!(s, "  {n:<24} takes {g:.3}x the op's time (geomean)");
        }
    }
    s
}

/// The `lanes` SpMM against the op and the best cuSPARSE algorithm, where timed: each schedule,
/// and the best of them per case (chosen after the fact: an upper bound on what a choice by
/// measurement would get), as geomean and worst case.
fn lanes_summary(s: &mut String, results: &[(usize, MatrixResult)]) {
    let mut names: Vec<String> = Vec::new();
    for (_, r) in results {
        for m in &r.kernels {
            if m.kernel.starts_with(LANES) && !names.contains(&m.kernel) {
                names.push(m.kernel.clone());
            }
        }
    }
    if names.is_empty() {
        return;
    }
    let best = |r: &MatrixResult| -> Option<f64> {
        names
            .iter()
            .filter_map(|n| r.ms(n))
            .min_by(|a, b| a.total_cmp(b))
    };
    let line = |s: &mut String, what: &str, time: &dyn Fn(&MatrixResult) -> Option<f64>| {
        for (against, base) in [
            (
                "the op",
                &(|r: &MatrixResult| r.ms(OP)) as &dyn Fn(&MatrixResult) -> Option<f64>,
            ),
            ("best cuSPARSE", &|r: &MatrixResult| {
                best_cusparse(r).map(|b| b.1)
            }),
        ] {
            let ratios: Vec<(f64, String)> = results
                .iter()
                .filter_map(|(k, r)| {
                    Some((
                        base(r)? / time(r)?,
                        format!("{} k={k}", r.name.split(" k=").next().unwrap_or(&r.name)),
                    ))
                })
                .collect();
            let worst = ratios.iter().min_by(|a, b| a.0.total_cmp(&b.0));
            let _ = writeln!(
                s,
                "  {what:<24} over {against:<13}: geomean {} over {} cases, worst {}",
                geomean(ratios.iter().map(|r| r.0)).map_or("-".to_string(), |g| format!("{g:.3}x")),
                ratios.len(),
                worst.map_or("-".to_string(), |w| format!("{:.2}x ({})", w.0, w.1)),
            );
        }
    };
    let _ = writeln!(
        s,
        "the language's lanes SpMM (speedup: the other's time over its time):"
    );
    line(s, "lanes, best per case", &best);
    for n in &names {
        let n2 = n.clone();
        line(s, n, &move |r: &MatrixResult| r.ms(&n2));
    }
}

pub(super) fn write_outputs(
    out: &Path,
    what: &str,
    set: &str,
    precision: &str,
    results: &[(usize, MatrixResult)],
    log: &str,
    summary: &str,
) -> std::io::Result<()> {
    let tag = format!("{set}_{precision}");
    let mut csv = String::from("matrix,rows,cols,nnz,precision,k,kernel,median_ms,timing,status\n");
    for (k, r) in results {
        for m in &r.kernels {
            let _ = writeln!(
                csv,
                "{},{},{},{},{},{k},{},{},{},{}",
                bench::csv::field(r.name.split(" k=").next().unwrap_or(&r.name)),
                r.rows,
                r.cols,
                r.nnz,
                r.precision,
                bench::csv::field(&m.kernel),
                m.median_ms.map_or(String::new(), |t| format!("{t:.6}")),
                m.timing.label(),
                bench::csv::field(m.status())
            );
        }
    }
    std::fs::write(out.join(format!("{what}_{tag}.csv")), csv)?;
    let plain: Vec<MatrixResult> = results.iter().map(|(_, r)| r.clone()).collect();
    std::fs::write(
        out.join(format!("{what}_runtime_vs_nnz_{tag}.svg")),
        bench::plot::runtime_vs_nnz(
            &plain,
            &format!("{what} runtime vs nonzeros, every k ({set}, {precision})"),
        ),
    )?;
    // plot::speedup draws each kernel against the line named ALG1: here the best cuSPARSE
    // algorithm of each case, under that name.
    let against_best: Vec<MatrixResult> = plain
        .iter()
        .filter_map(|r| {
            let (_, ms) = best_cusparse(r)?;
            let mut r = r.clone();
            r.kernels.retain(|m| m.kind != Kind::Cusparse);
            let mut best = Measurement::failed(bench::ALG1, Kind::Cusparse, "");
            best.failure = None;
            best.median_ms = Some(ms);
            r.kernels.push(best);
            Some(r)
        })
        .collect();
    std::fs::write(
        out.join(format!("{what}_speedup_{tag}.svg")),
        bench::plot::speedup(
            &against_best,
            &format!("{what}: speedup over the best cuSPARSE algorithm ({set}, {precision})"),
        ),
    )?;
    std::fs::write(
        out.join(format!("{what}_summary_{tag}.txt")),
        format!("{log}\n{summary}"),
    )
}
