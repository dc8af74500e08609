//! The table printed while the benchmark runs, and the closing summary (geometric means).

use std::fmt::Write as _;

use super::world::WorldRow;
use super::{geomean, kernel_order, MatrixResult, ALG1, AUTO};

/// Matrices with at least this many nonzeros make the second geomean.
pub const LARGE_NNZ: usize = 1_000_000;

fn ms_text(ms: Option<f64>) -> String {
    ms.map_or_else(|| "-".to_string(), |t| format!("{t:.4}"))
}

/// The table's header (two lines: names and a rule).
pub fn table_header() -> String {
    let head = format!(
        "{:<28} {:>11} {:<14} {:>10} {:>10} {:>8} {:>7} {:>7}  {}",
        "matrix",
        "nnz",
        "best schedule",
        "best ms",
        "alg1 ms",
        "speedup",
        "% copy",
        "% traf",
        "notes"
    );
    let rule = "-".repeat(head.len() + 8);
    format!("{head}\n{rule}")
}

/// One line per matrix: its best schedule against cuSPARSE ALG1 and the copy ceiling; `notes` lists
/// the kernels that failed their check or could not run.
pub fn table_row(r: &MatrixResult) -> String {
    let best = r.best_schedule();
    let best_ms = best.map(|b| b.1);
    let speedup = best_ms.and_then(|t| r.speedup(t));
    let pct = best_ms.and_then(|t| r.pct_of_copy(t));
    let traffic = best_ms.and_then(|t| r.pct_of_copy_by_traffic(t));
    let notes: Vec<String> = r
        .failures()
        .map(|m| format!("{}: {}", m.kernel, m.status()))
        .collect();
    let mut name = r.name.clone();
    if name.chars().count() > 28 {
        name = name.chars().take(27).collect::<String>() + "~";
    }
    format!(
        "{:<28} {:>11} {:<14} {:>10} {:>10} {:>8} {:>7} {:>7}  {}",
        name,
        r.nnz,
        best.map_or("-", |b| b.0),
        ms_text(best_ms),
        ms_text(r.alg1_ms()),
        speedup.map_or_else(|| "-".to_string(), |s| format!("{s:.2}x")),
        pct.map_or_else(|| "-".to_string(), |p| format!("{p:.0}%")),
        traffic.map_or_else(|| "-".to_string(), |p| format!("{p:.0}%")),
        notes.join("; ")
    )
    .trim_end()
    .to_string()
}

/// Speedups vs ALG1 of the best schedule of each matrix that has both, for matrices with at least
/// `min_nnz` nonzeros.
pub fn best_speedups(results: &[MatrixResult], min_nnz: usize) -> Vec<f64> {
    results
        .iter()
        .filter(|r| r.nnz >= min_nnz)
        .filter_map(|r| r.best_schedule().and_then(|(_, t)| r.speedup(t)))
        .collect()
}

/// Speedups vs ALG1 of one kernel over the matrices with at least `min_nnz` nonzeros.
pub fn kernel_speedups(results: &[MatrixResult], kernel: &str, min_nnz: usize) -> Vec<f64> {
    results
        .iter()
        .filter(|r| r.nnz >= min_nnz)
        .filter_map(|r| r.ms(kernel).and_then(|t| r.speedup(t)))
        .collect()
}

fn geomean_text(values: &[f64]) -> String {
    match geomean(values.iter().copied()) {
        Some(g) => format!("{g:.3}x over {}", values.len()),
        None => "-".to_string(),
    }
}

/// The closing summary: the geomean speedup of the best schedule vs cuSPARSE ALG1 over the set and
/// over the matrices with >= 1e6 nonzeros, then the same for each kernel; on the world set, then
/// auto against the best schedule and ALG1 per class and half ([`super::world::summary`]).
pub fn summary(results: &[MatrixResult]) -> String {
    let mut s = speedup_summary(results);
    s.push_str(&traffic_summary(results));
    s.push_str(&relabel_summary(results));
    let world: Vec<WorldRow> = results.iter().filter_map(WorldRow::from_spmv).collect();
    if !world.is_empty() {
        s.push('\n');
        s.push_str(&super::world::summary(&world, "matrices"));
    }
    s
}

/// One line per matrix with >= 1e6 nonzeros that has a traffic model: `x`'s sectors per nonzero,
/// whether `x` fits in L2, and the best schedule's and ALG1's share of the copy bandwidth when
/// charged the model's DRAM bytes, with the rate L2 serves the model's requests at.
pub fn traffic_summary(results: &[MatrixResult]) -> String {
    let rows: Vec<&MatrixResult> = results
        .iter()
        .filter(|r| r.traffic.is_some() && r.nnz >= LARGE_NNZ)
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\ntraffic model (check::spmv_traffic: stream + x's 32-byte sectors, DRAM through an LRU model of L2), matrices with >= 1e6 nonzeros:\n",
    );
    let _ = writeln!(
        s,
        "{:<28} {:>9} {:>8} {:>9} {:>9} {:>14} {:>9} {:>9} {:>14}",
        "matrix",
        "sect/nnz",
        "x in L2",
        "DRAM MB",
        "L2 MB",
        "best",
        "% copy",
        "L2 GB/s",
        "alg1 % copy"
    );
    for r in rows {
        let Some(t) = r.traffic else { continue };
        let best = r.best_schedule();
        let pct = |ms: Option<f64>| {
            ms.and_then(|ms| r.pct_of_copy_by_traffic(ms))
                .map_or_else(|| "-".to_string(), |p| format!("{p:.0}%"))
        };
        let _ = writeln!(
            s,
            "{:<28} {:>9.3} {:>8} {:>9.1} {:>9.1} {:>14} {:>9} {:>9} {:>14}",
            r.name.chars().take(28).collect::<String>(),
            t.sectors_per_nonzero(r.nnz),
            if t.x_dram_bytes <= t.x_touched_bytes + t.x_touched_bytes / 20 {
                "yes"
            } else {
                "no"
            },
            t.dram_bytes() as f64 / 1e6,
            t.l2_bytes_served() as f64 / 1e6,
            best.map_or("-", |b| b.0),
            pct(best.map(|b| b.1)),
            best.and_then(|b| r.l2_gb_per_s(b.1))
                .map_or_else(|| "-".to_string(), |g| format!("{g:.0}")),
            pct(r.alg1_ms()),
        );
    }
    s
}

/// For each matrix run as is and relabelled by degree (`<name>@deg`, `bench_spmv --relabel`): the
/// best schedule's and ALG1's time on both, the relabelling's host cost and its cost on the GPU
/// (`loops::ops::relabel`), and the products that repay each (where the relabelled best is
/// faster).
pub fn relabel_summary(results: &[MatrixResult]) -> String {
    let pairs: Vec<(&MatrixResult, &MatrixResult, f64)> = results
        .iter()
        .filter_map(|r| {
            let cost = r.relabel_ms?;
            let base = r.name.strip_suffix("@deg")?;
            let orig = results.iter().find(|o| o.name == base)?;
            Some((orig, r, cost))
        })
        .collect();
    if pairs.is_empty() {
        return String::new();
    }
    let mut s =
        String::from("\nrelabelled by in-degree (io::host::relabel_by_degree on the host, ops::relabel on the GPU):\n");
    let _ = writeln!(
        s,
        "{:<28} {:>22} {:>22} {:>8} {:>9} {:>9} {:>8} {:>10} {:>10} {:>9} {:>10}",
        "matrix",
        "best as is",
        "best relabelled",
        "ratio",
        "alg1",
        "alg1 rel",
        "ratio",
        "cost ms",
        "repaid by",
        "GPU ms",
        "repaid by"
    );
    let mut ratios = Vec::new();
    for (orig, rel, cost) in pairs {
        let (b0, b1) = (orig.best_schedule(), rel.best_schedule());
        let ratio = b0.zip(b1).map(|(a, b)| a.1 / b.1);
        ratios.extend(ratio);
        let alg = orig.alg1_ms().zip(rel.alg1_ms()).map(|(a, b)| a / b);
        let repaid = |cost: f64| {
            b0.zip(b1)
                .filter(|(a, b)| a.1 > b.1)
                .map_or("never".to_string(), |(a, b)| {
                    format!("{:.0}", (cost / (a.1 - b.1)).ceil())
                })
        };
        let best =
            |b: Option<(&str, f64)>| b.map_or("-".to_string(), |b| format!("{} {:.4}", b.0, b.1));
        let x = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}x"));
        let _ = writeln!(
            s,
            "{:<28} {:>22} {:>22} {:>8} {:>9} {:>9} {:>8} {:>10.0} {:>10} {:>9} {:>10}",
            orig.name.chars().take(28).collect::<String>(),
            best(b0),
            best(b1),
            x(ratio),
            ms_text(orig.alg1_ms()),
            ms_text(rel.alg1_ms()),
            x(alg),
            cost,
            repaid(cost),
            rel.relabel_device_ms
                .map_or("-".to_string(), |c| format!("{c:.1}")),
            rel.relabel_device_ms.map_or("-".to_string(), repaid),
        );
    }
    let _ = writeln!(
        s,
        "geomean best as is / best relabelled: {}",
        geomean_text(&ratios)
    );
    s
}

/// The geomean speedups of [`summary`].
fn speedup_summary(results: &[MatrixResult]) -> String {
    let mut s = String::new();
    if results.iter().all(|r| r.alg1_ms().is_none()) {
        s.push_str("geomean speedup vs cuSPARSE ALG1: no cuSPARSE ALG1 results, no speedups\n");
        return s;
    }
    let all = best_speedups(results, 0);
    let large = best_speedups(results, LARGE_NNZ);
    let _ = writeln!(
        s,
        "geomean speedup of the best schedule vs cuSPARSE ALG1: {} matrices; {} matrices with >= 1e6 nonzeros",
        geomean_text(&all),
        geomean_text(&large)
    );
    // A ratio per matrix, and its geomean line where any matrix has one.
    let mut ratio_line = |what: &str, ratio: &dyn Fn(&MatrixResult) -> Option<f64>| {
        let ratios: Vec<f64> = results.iter().filter_map(ratio).collect();
        if !ratios.is_empty() {
            let _ = writeln!(
                s,
                "{what}, geomean over {} matrices: {}",
                ratios.len(),
                geomean(ratios.iter().copied()).map_or("-".into(), |g| format!("{g:.3}"))
            );
        }
    };
    // `auto` against the best schedule of each matrix: 1.0 is a perfect choice.
    ratio_line("auto vs the best schedule (best ms / auto ms)", &|r| {
        Some(r.best_schedule()?.1 / r.ms(AUTO)?)
    });
    // The abstraction's cost: the generated merge_path against the same algorithm by hand.
    ratio_line(
        "merge_path (generated) vs merge-path by hand (generated ms / hand ms)",
        &|r| Some(r.ms("merge_path")? / r.ms(super::handwritten::NAME)?),
    );
    // The block starts kept per tile set: merge_path with them against the same kernel without.
    ratio_line(
        "merge_path with kept block starts vs searched ranges (kept ms / searched ms)",
        &|r| Some(r.ms("merge_path")? / r.ms(super::SEARCHED)?),
    );
    let _ = writeln!(
        s,
        "geomean speedup vs cuSPARSE ALG1 by kernel:\n  {:<16} {:>20} | {:>20}",
        "", "all", ">= 1e6 nonzeros"
    );
    for (k, _) in kernel_order(results) {
        if k == ALG1 {
            continue;
        }
        let _ = writeln!(
            s,
            "  {:<16} {:>20} | {:>20}",
            k,
            geomean_text(&kernel_speedups(results, &k, 0)),
            geomean_text(&kernel_speedups(results, &k, LARGE_NNZ))
        );
    }
    s
}
