//! A GraphSAGE layer's aggregation fused in one kernel written in the language
//! (`examples/kernels/gnn.rs`: mean over the in-neighbours, bias, ReLU; the feature dimension a
//! `lanes` loop), run under every schedule it is stamped with and checked against an f64 CPU
//! reference (outputs poisoned first), then timed under `--schedules` against the unfused chain:
//! the `spmm` op of `loops::ops` on the row-normalised adjacency (values `1 / degree`; its plan
//! measured on the first call, which is not timed) followed by the bias-and-ReLU kernel.
//!
//!     cargo run --release --features gpu --example gnn -- --quick
//!     cargo run --release --features gpu --example gnn -- --f 16,64,256 --f64
//!
//! Prints a line per graph and width (the chain's time, the fastest fused schedule's, the ratio),
//! then geomean and worst ratio of each timed schedule and of the best per case; writes
//! `gnn_<prec>.csv` (graph, f, kernel, median ms) and `gnn_summary_<prec>.txt` to `--out`. Exits
//! non-zero if any result was wrong.

#[allow(unused_imports)]
use loops_bench as bench;
use loops_kernels as kernels;

use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use loops::prelude::*;
use sprs::CsMat;

use bench::geomean;
use bench::timing::{time_launches, Plan};

type BoxError = Box<dyn Error>;

/// One graph and width: its name, each timed fused schedule's ms, the chain's ms.
type Case = (String, Vec<(String, f64)>, f64);

/// The chain's kernel name: the `spmm` op, then `bias_relu`.
const CHAIN: &str = "chain_spmm_op+bias_relu";

#[derive(Parser)]
#[command(about = "the fused GraphSAGE aggregation against the op chain")]
struct Args {
    /// Feature widths.
    #[arg(long, value_delimiter = ',', default_values_t = vec![16usize, 32, 64, 128, 256])]
    f: Vec<usize>,
    /// Schedules of the fused kernel to time (every one is checked).
    #[arg(long, value_delimiter = ',', default_values_t = ["warp", "group8", "group16", "group64", "mean_group", "merge_path", "auto"].map(String::from).to_vec())]
    schedules: Vec<String>,
    /// Double precision instead of single.
    #[arg(long)]
    f64: bool,
    /// Smaller graphs, fewer samples.
    #[arg(long)]
    quick: bool,
    /// Timed samples per kernel (median reported).
    #[arg(long, default_value_t = 30)]
    reps: usize,
    /// Rows of each graph the CPU reference checks.
    #[arg(long, default_value_t = 3000)]
    check_rows: usize,
    #[arg(long, default_value = "target/bench/gnn")]
    out: PathBuf,
    #[arg(long, default_value_t = 2024)]
    seed: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let r = if args.f64 {
        run::<f64>(&args)
    } else {
        run::<f32>(&args)
    };
    match r {
        Ok(0) => ExitCode::SUCCESS,
        Ok(n) => {
            eprintln!("{n} wrong result(s)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {}", loops::error_chain(e.as_ref(), ": "));
            ExitCode::FAILURE
        }
    }
}

fn graphs<T: Float>(quick: bool, seed: u64) -> Vec<(String, CsMat<T>)> {
    use loops::io::generate as g;
    let n = if quick { 1 << 15 } else { 1 << 18 };
    vec![
        (format!("uniform_{n}_16"), g::uniform(n, n, 16, seed)),
        (
            format!("powerlaw_{n}_16"),
            g::power_law(n, n, 16.0, 2.0, false, seed + 1),
        ),
        (
            format!("rmat_{}", if quick { 15 } else { 18 }),
            g::rmat(if quick { 15 } else { 18 }, 16, seed + 2),
        ),
        ("grid2d_512".into(), g::grid2d(512, 512, seed + 3)),
    ]
}

/// The rows the reference checks: the first and last, the longest, and a stride.
fn sample(a: &CsMat<impl Float>, limit: usize) -> Vec<usize> {
    let rows = a.rows();
    if rows <= limit {
        return (0..rows).collect();
    }
    let mut r: Vec<usize> = (0..64.min(rows)).chain(rows - 64.min(rows)..rows).collect();
    if let Some(longest) = (0..rows).max_by_key(|&i| a.outer_view(i).map_or(0, |v| v.nnz())) {
        r.push(longest);
    }
    r.extend((0..rows).step_by(rows / limit.max(1)));
    r.sort_unstable();
    r.dedup();
    r
}

/// `out[v, j] = max(mean over v's neighbours of h[u, j] + bias[j], 0)` on the sampled rows, with
/// each output's error bound in `T`.
struct Reference {
    rows: Vec<usize>,
    want: Vec<f64>,
    bound: Vec<f64>,
    f: usize,
}

impl Reference {
    fn new<T: Float>(a: &CsMat<T>, h: &[T], bias: &[T], f: usize, rows: Vec<usize>) -> Self {
        let u = T::UNIT_ROUNDOFF;
        let (mut want, mut bound) = (Vec::new(), Vec::new());
        for &r in &rows {
            let row = a.outer_view(r).expect("a row");
            let d = row.nnz();
            for j in 0..f {
                let (mut s, mut scale) = (0.0f64, 0.0f64);
                for (c, _) in row.iter() {
                    let x = h[c * f + j].to_f64();
                    s += x;
                    scale += x.abs();
                }
                let mean = if d > 0 { s / d as f64 } else { 0.0 };
                let b = bias[j].to_f64();
                want.push((mean + b).max(0.0));
                let sum_bound = loops::io::host::expected_error_bound::<T>(d, scale);
                let d = d.max(1) as f64;
                bound.push(sum_bound / d + 4.0 * u * (mean.abs() + b.abs() + scale / d));
            }
        }
        Reference {
            rows,
            want,
            bound,
            f,
        }
    }

    fn check<T: Float>(&self, got: &[T]) -> Result<(), String> {
        let mut i = 0;
        for &r in &self.rows {
            for j in 0..self.f {
                let g = got[r * self.f + j].to_f64();
                let (w, b) = (self.want[i], self.bound[i]);
                if !((g - w).abs() <= b || g == w) {
                    return Err(format!(
                        "row {r} feature {j}: got {g}, want {w} (bound {b:.3e})"
                    ));
                }
                i += 1;
            }
        }
        Ok(())
    }
}

fn run<T: Float>(args: &Args) -> Result<usize, BoxError> {
    let gpu = Gpu::new(0)?;
    std::fs::create_dir_all(&args.out)?;
    let plan = Plan {
        reps: if args.quick { 10 } else { args.reps },
        warmup: 3,
        batch: 20,
        budget_ms: 1500.0,
    };
    let timed: Vec<&str> = kernels::gnn::SCHEDULES
        .iter()
        .copied()
        .filter(|s| args.schedules.iter().any(|t| t == s))
        .collect();
    let mut log = format!(
        "device {} | {} | fused: sage_mean (one kernel, lanes over the features) | chain: the spmm op on A/deg, then bias_relu (warp)\n",
        gpu.name(),
        T::RUST_NAME
    );
    let _ = writeln!(
        log,
        "checked under {:?}; timed (CUDA events, median of {}) under {timed:?}",
        kernels::gnn::SCHEDULES,
        plan.reps
    );
    print!("{log}");
    let mut csv = String::from("graph,vertices,edges,precision,f,kernel,median_ms,status\n");
    let mut cases: Vec<Case> = Vec::new();
    let mut wrong = 0;
    for (name, a) in graphs::<T>(args.quick, args.seed) {
        let da = gpu.upload_csr(&a)?;
        // The row-normalised adjacency the chain's SpMM multiplies by.
        let mut norm = a.clone();
        for mut row in norm.outer_iterator_mut() {
            let d = row.nnz().max(1) as f64;
            for (_, v) in row.iter_mut() {
                *v = T::from_f64(1.0 / d);
            }
        }
        let dnorm = gpu.upload_csr(&norm)?;
        for &f in &args.f {
            let h: Vec<T> =
                loops::io::generate::random_vector(a.cols() * f, args.seed ^ (f as u64) << 20);
            let bias: Vec<T> = loops::io::generate::random_vector(f, args.seed ^ 0xb1a5 ^ f as u64);
            let reference = Reference::new(&a, &h, &bias, f, sample(&a, args.check_rows));
            let (dh, dbias) = (gpu.upload(&h)?, gpu.upload(&bias)?);
            drop(h);
            let mut out = gpu.zeros::<T>(a.rows() * f)?;
            let offsets: Vec<usize> = (0..=a.rows()).map(|i| i * f).collect();
            let rows = gpu.upload_offsets(&offsets)?;
            let mut times: Vec<(String, f64)> = Vec::new();
            let mut line = |kernel: &str, ms: Option<f64>, status: &str| {
                let _ = writeln!(
                    csv,
                    "{name},{},{},{},{f},{kernel},{},{status}",
                    a.rows(),
                    a.nnz(),
                    T::RUST_NAME,
                    ms.map_or(String::new(), |t| format!("{t:.6}"))
                );
            };
            // The chain: checked, then timed (its first call measured the op's plans).
            gpu.fill(&mut out, T::POISON)?;
            let chain = |out: &mut DeviceBuffer<T>| -> Result<(), BoxError> {
                dnorm.spmm(&gpu, &dh, f, out)?;
                kernels::gnn::epilogue::launch("warp", &gpu, &rows, &dbias, out, f)?;
                Ok(())
            };
            chain(&mut out)?;
            let chain_ms = match reference.check(&gpu.download(&out)?) {
                Ok(()) => {
                    let (ms, _, _) = time_launches(&gpu, &plan, true, &mut || chain(&mut out))?;
                    line(CHAIN, Some(ms), "ok");
                    Some(ms)
                }
                Err(e) => {
                    wrong += 1;
                    println!("{name} f={f} {CHAIN}: WRONG {e}");
                    line(CHAIN, None, "wrong");
                    None
                }
            };
            for s in kernels::gnn::SCHEDULES {
                gpu.fill(&mut out, T::POISON)?;
                let fused = |out: &mut DeviceBuffer<T>| -> Result<(), BoxError> {
                    Ok(kernels::gnn::launch(s, &gpu, &da, &dh, &dbias, out, f)?)
                };
                fused(&mut out)?;
                if let Err(e) = reference.check(&gpu.download(&out)?) {
                    wrong += 1;
                    println!("{name} f={f} fused {s}: WRONG {e}");
                    line(&format!("fused_{s}"), None, "wrong");
                    continue;
                }
                if !timed.contains(s) {
                    line(&format!("fused_{s}"), None, "ok (not timed)");
                    continue;
                }
                let (ms, _, _) = time_launches(&gpu, &plan, true, &mut || fused(&mut out))?;
                line(&format!("fused_{s}"), Some(ms), "ok");
                times.push((s.to_string(), ms));
            }
            let best = times.iter().min_by(|a, b| a.1.total_cmp(&b.1)).cloned();
            let row = format!(
                "{name:<18} f={f:<4} chain {:>9} ms  best fused {:>9} ms ({})  chain/fused {}",
                chain_ms.map_or("-".into(), |t| format!("{t:.4}")),
                best.as_ref().map_or("-".into(), |b| format!("{:.4}", b.1)),
                best.as_ref().map_or("-", |b| b.0.as_str()),
                match (chain_ms, &best) {
                    (Some(c), Some(b)) => format!("{:.2}x", c / b.1),
                    _ => "-".into(),
                }
            );
            println!("{row}");
            let _ = writeln!(log, "{row}");
            if let Some(c) = chain_ms {
                cases.push((format!("{name} f={f}"), times, c));
            }
        }
    }
    let mut summary =
        String::from("fused over the chain (the chain's time over the fused kernel's):\n");
    let mut report = |what: &str, ratios: Vec<(f64, String)>| {
        let worst = ratios.iter().min_by(|a, b| a.0.total_cmp(&b.0));
        let _ = writeln!(
            summary,
            "  {what:<22} geomean {} over {} cases, worst {}",
            geomean(ratios.iter().map(|r| r.0)).map_or("-".into(), |g| format!("{g:.3}x")),
            ratios.len(),
            worst.map_or("-".into(), |w| format!("{:.2}x ({})", w.0, w.1))
        );
    };
    report(
        "best per case",
        cases
            .iter()
            .filter_map(|(c, t, chain)| {
                let b = t.iter().map(|x| x.1).min_by(|a, b| a.total_cmp(b))?;
                Some((chain / b, c.clone()))
            })
            .collect(),
    );
    for s in &timed {
        report(
            &format!("fused_{s}"),
            cases
                .iter()
                .filter_map(|(c, t, chain)| {
                    let ms = t.iter().find(|x| x.0 == *s)?.1;
                    Some((chain / ms, c.clone()))
                })
                .collect(),
        );
    }
    println!("\n{summary}");
    let _ = write!(log, "\n{summary}");
    std::fs::write(args.out.join(format!("gnn_{}.csv", T::RUST_NAME)), csv)?;
    std::fs::write(
        args.out.join(format!("gnn_summary_{}.txt", T::RUST_NAME)),
        log,
    )?;
    Ok(wrong)
}
