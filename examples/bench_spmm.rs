//! The SpMM benchmark: the `spmm` op of `loops::ops` (and each of its two mappings forced, and
//! variants of its plan: `plan_variants`), every
//! schedule of the language's `spmm` kernel (`examples/kernels/spmm.rs`, the paper's Listing 4) and
//! cuSPARSE (`cusparseSpMM`, CSR ALG1/ALG2/ALG3, row-major B and C; the fastest of the three per
//! case is the baseline), for each k and matrix; `--op sddmm`: the `sddmm` op (hand-written CUDA)
//! and the language's SDDMM (`loops::ops::sddmm_lang`, `lang_<schedule>` lines) against
//! `cusparseSDDMM`. Every result is checked against an f64 CPU reference before it is timed
//! (outputs poisoned first; the reference covers a sample of rows: the first and last 64, the
//! longest, and an even stride, about `--check-rows` in all).
//!
//!     cargo run --release --example bench_spmm -- --quick                 # op vs cuSPARSE, f32
//!     cargo run --release --example bench_spmm -- --quick --f64 --k 8,32
//!     cargo run --release --example bench_spmm -- --corpus ../shared/data/matrices
//!     cargo run --release --example bench_spmm -- --op sddmm --quick
//!     cargo run --release --example bench_spmm -- --powerlaw --relabel --k 32 --quick
//!
//! Writes to `--out` (default `target/bench`): `<op>_<set>_<prec>.csv` (one line per matrix, k and
//! kernel), `<op>_summary_<set>_<prec>.txt`, `<op>_runtime_vs_nnz_<set>_<prec>.svg` and
//! `<op>_speedup_<set>_<prec>.svg` (against the best cuSPARSE algorithm of each case). Prints a
//! line per matrix and k (op, best cuSPARSE, speedup, the op's first call, the model's plan and the
//! measured one), then the geomean speedup of the op over the best cuSPARSE algorithm, overall and
//! per k, and the same for the op's first call. Exits non-zero if any result was wrong.

mod bench;
mod kernels;

use std::error::Error;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use loops::ops::spmm::{
    kept_plan, shape_of, spmm_candidates, spmm_plan, spmm_tuned, spmm_with, spmm_with_plan,
    SpmmMapping, SpmmPlan,
};
use loops::prelude::*;
use loops::tune::TuneCache;

use bench::corpus::{self, Entry, Spec};
use bench::cusparse::{Cusparse, Sddmm, SpMm, SpMmAlg, SDDMM_KERNEL};
use bench::dense_check::{sample_rows, DenseReference};
use bench::timing::{time_launches, Plan};
use bench::{geomean, Kind, MatrixResult, Measurement};

type BoxError = Box<dyn Error>;

/// The kernel name of the op (`auto`), timed after its first call (which measures its candidate
/// plans and keeps the winner with the matrix).
const OP: &str = "op";
/// The op's first call on a fresh upload of the matrix, measurement included (wall time to the
/// end of its result, kernels already compiled).
const OP_FIRST_CALL: &str = "op_first_call";
/// Fresh uploads the first call is timed on (the median counts).
const FIRST_CALL_REPS: usize = 3;
const OP_ROWS: &str = "op_rows";
/// The prefix of the `lanes` SpMM's lines (`lanes_warp`).
const LANES: &str = "lanes_";
const OP_SPLIT: &str = "op_split";
/// The hand-written SDDMM called directly (`loops::ops::sddmm::sddmm`, the op's kernel: the same
/// run's noise against the `op` line), under `--op sddmm`.
const SDDMM_CUDA: &str = "sddmm_cuda";
/// The language SDDMM as the op would run it (`loops::ops::sddmm_lang::sddmm`), under `--op sddmm`.
const SDDMM_LANG_OP: &str = "lang_op";
/// The prefix of the language SDDMM's lines (`lang_warp`), under `--op sddmm`.
const SDDMM_LANG: &str = "lang_";
/// The schedules of the language SDDMM timed under `--op sddmm`.
const SDDMM_LANGUAGE: &[&str] = &["warp", "group8", "group16", "lrb", "auto"];

#[derive(Parser)]
#[command(about = "SpMM (and SDDMM): the loops op and schedules against cuSPARSE")]
struct Args {
    /// `spmm` or `sddmm`.
    #[arg(long, default_value = "spmm")]
    op: String,
    /// A folder of Matrix Market files instead of the generated set.
    #[arg(long, conflicts_with = "powerlaw")]
    corpus: Option<PathBuf>,
    /// The large power-law set of `bench_spmv --powerlaw` (issue 42: SNAP-like 4M, power-law 4M,
    /// R-MAT 22, Kronecker 21 and 22, a banded and a grid control) instead of the generated set;
    /// run it with `--k 32` (k = 128 does not fit B and C of Kronecker 22 twice).
    #[arg(long)]
    powerlaw: bool,
    /// Also count each case's traffic (`check::spmm_traffic`: the stream plus B's rows through an
    /// LRU model of L2), time a device copy of that many bytes, and print the share of the copy's
    /// bandwidth the op and the best cuSPARSE algorithm reach (on by default with --powerlaw).
    #[arg(long)]
    traffic: bool,
    /// Also run each square matrix relabelled by decreasing in-degree on the GPU
    /// (`ops::relabel`, named `<matrix>@deg`; checked against the host's in `tests/gpu_relabel.rs`
    /// and `bench_spmv --relabel`), and print the relabelling's cost and the products that repay
    /// it.
    #[arg(long)]
    relabel: bool,
    /// The dense widths.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1usize, 4, 8, 16, 32, 64, 128])]
    k: Vec<usize>,
    /// Double precision instead of single.
    #[arg(long)]
    f64: bool,
    /// Few samples, the op and cuSPARSE only (no schedules, no forced mappings, no variants).
    #[arg(long)]
    quick: bool,
    /// Also time variants of the op's plan (half the lanes over k with twice the vectors each,
    /// twice or half the lanes over nonzeros, half the vector width): on by default without
    /// --quick.
    #[arg(long)]
    variants: bool,
    /// Only these schedules of the language's kernel (comma-separated); `none` for none. Default:
    /// all of them (none under --quick).
    #[arg(long, value_delimiter = ',')]
    schedules: Option<Vec<String>>,
    /// Schedules of the language's `lanes` SpMM (`spmm::lanes`, the columns a `lanes` loop) to
    /// time, comma-separated (`lanes_<schedule>` lines); `all` for every one. Default: none.
    /// Under `--op sddmm`: the language SDDMM's (`lang_<schedule>` lines; default `warp, group8,
    /// group16, lrb, auto`).
    #[arg(long, value_delimiter = ',')]
    lanes: Option<Vec<String>>,
    /// Timed samples per kernel (median reported); 20 under --quick.
    #[arg(long)]
    reps: Option<usize>,
    /// Host time one kernel's timing may take on one case before it gets fewer samples.
    #[arg(long, default_value_t = 2000.0)]
    kernel_budget_ms: f64,
    /// Rows of each matrix the CPU reference checks (about; all rows of smaller matrices).
    #[arg(long, default_value_t = 4000)]
    check_rows: usize,
    /// Only the matrices whose name contains one of these (comma-separated).
    #[arg(long, value_delimiter = ',')]
    only: Option<Vec<String>>,
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
    #[arg(long, default_value_t = 2024)]
    seed: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let outcome = if args.f64 {
        run::<f64>(&args)
    } else {
        run::<f32>(&args)
    };
    match outcome {
        Ok(0) => ExitCode::SUCCESS,
        Ok(n) => {
            eprintln!("{n} failure(s): see the status column of the CSV");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {}", chain(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}

fn chain(e: &dyn Error) -> String {
    loops::error_chain(e, ": ")
}

/// The generated set: shapes of the SpMV set at sizes where k = 128 still fits and runs quickly
/// (B and C of a million rows at k = 128 are 0.5 GB each in f32).
fn generated_set() -> Vec<Entry> {
    let e = |name: &str, spec| Entry {
        name: name.to_string(),
        spec,
    };
    vec![
        e(
            "uniform_20K_8",
            Spec::Uniform {
                rows: 20_000,
                cols: 20_000,
                per_row: 8,
            },
        ),
        e("arrow_500K", Spec::Arrow { n: 500_000 }),
        e(
            "grid2d_1024",
            Spec::Grid {
                width: 1024,
                height: 1024,
            },
        ),
        e(
            "uniform_1M_16",
            Spec::Uniform {
                rows: 1 << 20,
                cols: 1 << 20,
                per_row: 16,
            },
        ),
        e(
            "powerlaw_random_1M",
            Spec::PowerLaw {
                rows: 1 << 20,
                mean: 16.0,
                exponent: 2.0,
                contiguous: false,
            },
        ),
        e(
            "rmat_20",
            Spec::Rmat {
                scale: 20,
                edge_factor: 16,
            },
        ),
        e(
            "powerlaw_contig_1M",
            Spec::PowerLaw {
                rows: 1 << 20,
                mean: 16.0,
                exponent: 2.0,
                contiguous: true,
            },
        ),
        e(
            "banded_2M_16",
            Spec::Banded {
                rows: 2_000_000,
                bandwidth: 16,
            },
        ),
    ]
}

fn run<T: Float>(args: &Args) -> Result<usize, BoxError> {
    let sddmm = match args.op.as_str() {
        "spmm" => false,
        "sddmm" => true,
        other => return Err(format!("--op {other}: spmm or sddmm").into()),
    };
    if args.k.contains(&0) {
        return Err("--k: every k must be at least 1".into());
    }
    let mut entries = match &args.corpus {
        Some(dir) => corpus::from_dir(dir)?,
        None if args.powerlaw => corpus::powerlaw_set(),
        None => generated_set(),
    };
    if let Some(only) = &args.only {
        entries.retain(|e| only.iter().any(|o| e.name.contains(o.as_str())));
    }
    if args.relabel {
        entries = entries
            .into_iter()
            .flat_map(|e| {
                let copy = Entry {
                    name: format!("{}{RELABELLED}", e.name),
                    spec: e.spec.clone(),
                };
                [e, copy]
            })
            .collect();
    }
    if entries.is_empty() {
        return Err("no matrices".into());
    }
    let set = if args.powerlaw {
        "powerlaw".to_string()
    } else {
        corpus::set_name(args.corpus.as_deref())
    };
    let traffic = !sddmm && (args.traffic || args.powerlaw);
    let schedules: Vec<&'static str> = if sddmm {
        Vec::new()
    } else {
        match &args.schedules {
            Some(list) => kernels::spmm::SCHEDULES
                .iter()
                .copied()
                .filter(|s| list.iter().any(|l| l == s))
                .collect(),
            None if args.quick => Vec::new(),
            None => kernels::spmm::SCHEDULES.to_vec(),
        }
    };
    let lanes: Vec<&'static str> = match (&args.lanes, sddmm) {
        (Some(list), false) => kernels::spmm::lanes::SCHEDULES
            .iter()
            .copied()
            .filter(|s| list.iter().any(|l| l == s || l == "all"))
            .collect(),
        // Under `--op sddmm`: the language SDDMM's schedules timed (default all of
        // `SDDMM_LANGUAGE`).
        (Some(list), true) => SDDMM_LANGUAGE
            .iter()
            .copied()
            .filter(|s| list.iter().any(|l| l == s || l == "all"))
            .collect(),
        (None, true) => SDDMM_LANGUAGE.to_vec(),
        (None, false) => Vec::new(),
    };
    let variants = !sddmm && (args.variants || !args.quick);
    let gpu = Gpu::new(0)?;
    std::fs::create_dir_all(&args.out)?;
    let cusparse = match Cusparse::new(&gpu) {
        Ok(cs) => Some(cs),
        Err(e) => {
            eprintln!("{e}; carrying on without cuSPARSE (no speedups)");
            None
        }
    };
    let plan = Plan {
        reps: args
            .reps
            .unwrap_or(if args.quick { 20 } else { 100 })
            .max(1),
        warmup: if args.quick { 3 } else { 10 },
        batch: 20,
        budget_ms: args.kernel_budget_ms,
    };
    let what = if sddmm { "sddmm" } else { "spmm" };
    let mut head = String::new();
    let _ = writeln!(
        head,
        "device   {} (sm_{}{})",
        gpu.name(),
        gpu.compute_capability().0,
        gpu.compute_capability().1
    );
    let _ = writeln!(
        head,
        "cuSPARSE {}",
        cusparse
            .as_ref()
            .map_or("unavailable".into(), |c| c.version())
    );
    let _ = writeln!(
        head,
        "op       {what}, {} values, set {set} ({} matrices), k {:?}",
        T::RUST_NAME,
        entries.len(),
        args.k
    );
    let _ = writeln!(head, "timing   CUDA events after {} warm-up launches, median of {} (CUDA graphs of 20 launches under 1 ms)", plan.warmup, plan.reps);
    let _ = writeln!(
        head,
        "check    f64 CPU reference over about {} rows per matrix, outputs poisoned (NaN) first",
        args.check_rows
    );
    let _ = writeln!(
        head,
        "kernels  {}",
        kernel_list(sddmm, args.quick, variants, &schedules, &lanes).join(", ")
    );
    print!("{head}");
    let mut log = head.clone();
    let line = format!(
        "{:<22} {:>4} {:>10} {:>10} {:>18} {:>8} {:>10}  {}",
        "matrix",
        "k",
        "op ms",
        "best cs ms",
        "best cuSPARSE",
        "speedup",
        "1st call",
        "op's plan: model -> measured"
    );
    println!("{line}");
    let _ = writeln!(log, "{line}");

    // The reference, the op, then cuSPARSE's one or three, the schedules and the mappings.
    let steps_per_k = 2 + if sddmm {
        3 + lanes.len()
    } else {
        4 + schedules.len()
            + lanes.len()
            + if args.quick { 0 } else { 2 }
            + if variants { VARIANTS } else { 0 }
    };
    let pb = ProgressBar::new((entries.len() * args.k.len() * steps_per_k) as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} {wide_msg}",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.enable_steady_tick(Duration::from_millis(250));

    let mut results: Vec<(usize, MatrixResult)> = Vec::new();
    // The GPU relabelling's cost of each `@deg` matrix, in ms.
    let mut relabelled: Vec<(String, f64)> = Vec::new();
    let mut kept: Option<(String, sprs::CsMat<T>)> = None;
    let mut broken = 0;
    let began = Instant::now();
    for entry in &entries {
        pb.set_message(format!("{}: building", entry.name));
        // Under --relabel a matrix is kept for its `@deg` copy, which comes next: built once.
        let loaded = match kept.take() {
            Some((name, a)) if format!("{name}{RELABELLED}") == entry.name => Ok(a),
            _ => entry.load::<T>(args.seed),
        };
        let a = match loaded {
            Ok(a) => a,
            Err(e) => {
                broken += 1;
                pb.suspend(|| println!("{:<22} could not be read: {e}", entry.name));
                continue;
            }
        };
        if args.relabel && !entry.name.ends_with(RELABELLED) {
            kept = Some((entry.name.clone(), a.clone()));
        }
        let (a, da) = if entry.name.ends_with(RELABELLED) {
            pb.set_message(format!("{}: relabelling on the GPU", entry.name));
            let original = gpu.upload_csr(&a)?;
            drop(a);
            match bench::relabel::relabel_timed(&gpu, &original) {
                Ok((b, _, ms)) => {
                    let line = format!(
                        "{:<22} relabelled on the GPU in {ms:.1} ms (median of {})",
                        entry.name,
                        bench::relabel::TIMED_CALLS
                    );
                    pb.suspend(|| println!("{line}"));
                    let _ = writeln!(log, "{line}");
                    relabelled.push((entry.name.clone(), ms));
                    (gpu.download_csr(&b)?, b)
                }
                Err(e) => {
                    broken += 1;
                    pb.suspend(|| println!("{:<22} could not be relabelled: {e}", entry.name));
                    continue;
                }
            }
        } else {
            let da = gpu.upload_csr(&a)?;
            (a, da)
        };
        let rows = sample_rows(&a, Some(args.check_rows));
        for &k in &args.k {
            let on = Case {
                gpu: &gpu,
                name: &entry.name,
                a: &a,
                da: &da,
                k,
                rows: &rows,
                plan: &plan,
                pb: &pb,
                seed: args.seed,
            };
            let r = if sddmm {
                on.sddmm(cusparse.as_ref(), &lanes)
            } else {
                on.spmm(cusparse.as_ref(), &schedules, &lanes, args.quick, variants)
            };
            let r = match r {
                Ok(mut r) if traffic => {
                    let line = traffic_of(&gpu, &a, k, &plan, &mut r);
                    pb.suspend(|| println!("{line}"));
                    let _ = writeln!(log, "{line}");
                    Ok(r)
                }
                r => r,
            };
            match r {
                Ok(r) => {
                    let plan = if sddmm {
                        String::new()
                    } else if k == 1 {
                        "spmv (auto)".to_string()
                    } else {
                        let model = spmm_plan(shape_of(&gpu, &da, k), SpmmMapping::Auto);
                        format!(
                            "{} -> {} ({} candidates)",
                            model.label(),
                            kept_plan(&da, k).map_or("-".into(), |p| p.label()),
                            spmm_candidates(shape_of(&gpu, &da, k)).len()
                        )
                    };
                    let row = table_row(&r, k, &plan);
                    pb.suspend(|| println!("{row}"));
                    let _ = writeln!(log, "{row}");
                    results.push((k, r));
                }
                Err(e) => {
                    broken += 1;
                    let row = format!(
                        "{:<22} {k:>4} could not be run: {}",
                        entry.name,
                        chain(e.as_ref())
                    );
                    pb.suspend(|| println!("{row}"));
                    let _ = writeln!(log, "{row}");
                }
            }
            let summary = summary(&results, &args.k);
            if let Err(e) = write_outputs(
                &args.out,
                what,
                &set,
                T::RUST_NAME,
                &results,
                &log,
                &summary,
            ) {
                pb.suspend(|| eprintln!("writing to {}: {e}", args.out.display()));
            }
        }
        pb.suspend(|| {
            eprintln!(
                "{} done, {:.0} s in all",
                entry.name,
                began.elapsed().as_secs_f64()
            )
        });
    }
    pb.finish_and_clear();
    let mut summary = summary(&results, &args.k);
    summary.push_str(&relabel_summary(&results, &relabelled));
    println!("\n{summary}");
    if !relabelled.is_empty() {
        let _ = write_outputs(
            &args.out,
            what,
            &set,
            T::RUST_NAME,
            &results,
            &log,
            &summary,
        );
    }
    let bad: usize = results.iter().map(|(_, r)| r.failures().count()).sum();
    Ok(bad + broken)
}

/// The suffix of a relabelled copy's name (as `bench_spmv --relabel`'s).
const RELABELLED: &str = "@deg";

/// For each matrix and k run as is and relabelled (`--relabel`): the op's, the best cuSPARSE
/// algorithm's and ALG1's times on both, the relabelling's GPU cost, and the products that repay
/// it (where the op is faster relabelled).
fn relabel_summary(results: &[(usize, MatrixResult)], costs: &[(String, f64)]) -> String {
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
fn traffic_of<T: Float>(
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
const VARIANTS: usize = 4;

/// Variants of the op's chosen plan at `k` (None where one does not apply): `op_tile_x2` (half
/// the lanes over k, twice the vectors each), `op_nz_x2` and `op_nz_half` (twice, half the lanes
/// over nonzeros), `op_vector_half` (half the vector width, the lost width made up by lanes or
/// tile vectors).
fn plan_variants(p: SpmmPlan, k: usize) -> [(&'static str, Option<SpmmPlan>); VARIANTS] {
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

fn kernel_list(
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

fn table_row(r: &MatrixResult, k: usize, plan: &str) -> String {
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

fn summary(results: &[(usize, MatrixResult)], ks: &[usize]) -> String {
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

fn write_outputs(
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

/// One matrix at one k: the operands, the reference's rows, how to time.
struct Case<'a, T: Float> {
    gpu: &'a Gpu,
    name: &'a str,
    a: &'a sprs::CsMat<T>,
    da: &'a DeviceCsr<T>,
    k: usize,
    rows: &'a [usize],
    plan: &'a Plan,
    pb: &'a ProgressBar,
    seed: u64,
}

impl<T: Float> Case<'_, T> {
    fn result(&self) -> MatrixResult {
        MatrixResult::new::<T>(
            &format!("{} k={}", self.name, self.k),
            self.a.rows(),
            self.a.cols(),
            self.a.nnz(),
        )
    }

    /// Checks one kernel (poisoned output, one launch, against the reference), then times it and
    /// checks the last timed launch's output again.
    fn measure(
        &self,
        kernel: &str,
        kind: Kind,
        reference: &DenseReference,
        poison: &mut dyn FnMut() -> Result<(), BoxError>,
        launch: &mut dyn FnMut() -> Result<(), BoxError>,
        output: &mut dyn FnMut() -> Result<Vec<T>, BoxError>,
    ) -> Measurement {
        self.pb
            .set_message(format!("{} k={}: {kernel}", self.name, self.k));
        let gpu = self.gpu;
        let mut go = || -> Result<Measurement, BoxError> {
            poison()?;
            launch()?;
            gpu.synchronize()?;
            let check = reference.check(&output()?);
            if !check.passed() {
                return Ok(Measurement::failed(kernel, kind, check.to_string()));
            }
            let (median, per_launch, timing) = time_launches(gpu, self.plan, true, launch)?;
            let check = reference.check(&output()?);
            if !check.passed() {
                return Ok(Measurement::failed(
                    kernel,
                    kind,
                    format!("after timing: {check}"),
                ));
            }
            Ok(Measurement {
                kernel: kernel.to_string(),
                kind,
                median_ms: Some(median),
                per_launch_ms: Some(per_launch),
                timing,
                failure: None,
            })
        };
        let m = go().unwrap_or_else(|e| Measurement::failed(kernel, kind, chain(e.as_ref())));
        self.pb.inc(1);
        m
    }

    /// The op's first call on [`FIRST_CALL_REPS`] fresh uploads of the matrix (uploads not
    /// timed): host wall time from the call to its result on the device, the measurement of the
    /// candidate plans included (in this process's memory only: nothing read from or written to
    /// the tuning cache on disk), kernels already compiled by the `op` line. k = 1 runs the
    /// language's `spmv` (`auto`), whose first call on a matrix measures its own candidates (and
    /// may read a winner from the tuning cache on disk: run with `LOOPS_CACHE=off` for a cold
    /// figure). Checked on the first upload.
    fn first_call(
        &self,
        db: &DeviceBuffer<T>,
        c: &mut DeviceBuffer<T>,
        reference: &DenseReference,
    ) -> Measurement {
        self.pb
            .set_message(format!("{} k={}: {OP_FIRST_CALL}", self.name, self.k));
        let (gpu, k) = (self.gpu, self.k);
        let mut go = || -> Result<Measurement, BoxError> {
            let mut ms = Vec::new();
            for rep in 0..FIRST_CALL_REPS {
                let fresh = gpu.upload_csr(self.a)?;
                gpu.fill(c, T::POISON)?;
                gpu.synchronize()?;
                let started = Instant::now();
                if k == 1 {
                    fresh.spmm(gpu, db, k, c)?;
                } else {
                    spmm_tuned(gpu, &fresh, db, k, c, &TuneCache::not_persisted())?;
                }
                gpu.synchronize()?;
                ms.push(started.elapsed().as_secs_f64() * 1e3);
                if rep == 0 {
                    let check = reference.check(&gpu.download(c)?);
                    if !check.passed() {
                        return Ok(Measurement::failed(
                            OP_FIRST_CALL,
                            Kind::Ablation,
                            check.to_string(),
                        ));
                    }
                }
            }
            ms.sort_by(f64::total_cmp);
            let median = ms[ms.len() / 2];
            Ok(Measurement {
                kernel: OP_FIRST_CALL.to_string(),
                kind: Kind::Ablation,
                median_ms: Some(median),
                per_launch_ms: Some(median),
                timing: bench::Timing::PerLaunch {
                    samples: FIRST_CALL_REPS,
                },
                failure: None,
            })
        };
        let m = go().unwrap_or_else(|e| {
            Measurement::failed(OP_FIRST_CALL, Kind::Ablation, chain(e.as_ref()))
        });
        self.pb.inc(1);
        m
    }

    fn spmm(
        &self,
        cusparse: Option<&Cusparse>,
        schedules: &[&'static str],
        lanes: &[&'static str],
        quick: bool,
        variants: bool,
    ) -> Result<MatrixResult, BoxError> {
        let (gpu, k) = (self.gpu, self.k);
        self.pb
            .set_message(format!("{} k={k}: B and the reference", self.name));
        let b: Vec<T> =
            loops::io::generate::random_vector(self.a.cols() * k, self.seed ^ (k as u64) << 32);
        let reference = DenseReference::spmm(self.a, &b, k, self.rows);
        self.pb.inc(1);
        let db = gpu.upload(&b)?;
        drop(b);
        let mut result = self.result();
        let c = std::cell::RefCell::new(gpu.zeros::<T>(self.a.rows() * k)?);
        let poison =
            &mut || -> Result<(), BoxError> { Ok(gpu.fill(&mut c.borrow_mut(), T::POISON)?) };
        let output = &mut || -> Result<Vec<T>, BoxError> { Ok(gpu.download(&c.borrow())?) };
        result.kernels.push(self.measure(
            OP,
            Kind::Schedule,
            &reference,
            poison,
            &mut || Ok(self.da.spmm(gpu, &db, k, &mut c.borrow_mut())?),
            output,
        ));
        result
            .kernels
            .push(self.first_call(&db, &mut c.borrow_mut(), &reference));
        if !quick {
            for (name, mapping) in [(OP_ROWS, SpmmMapping::Rows), (OP_SPLIT, SpmmMapping::Split)] {
                let m = self.measure(
                    name,
                    Kind::Ablation,
                    &reference,
                    poison,
                    &mut || {
                        spmm_with(gpu, self.da, &db, k, &mut c.borrow_mut(), mapping)?;
                        Ok(())
                    },
                    output,
                );
                result.kernels.push(m);
            }
        }
        if variants {
            let chosen = spmm_plan(shape_of(gpu, self.da, k), SpmmMapping::Auto);
            for (name, plan) in plan_variants(chosen, k) {
                let m = match plan {
                    Some(plan) => self.measure(
                        name,
                        Kind::Ablation,
                        &reference,
                        poison,
                        &mut || {
                            Ok(spmm_with_plan(
                                gpu,
                                self.da,
                                &db,
                                k,
                                &mut c.borrow_mut(),
                                plan,
                            )?)
                        },
                        output,
                    ),
                    None => {
                        self.pb.inc(1);
                        continue;
                    }
                };
                result.kernels.push(m);
            }
        }
        for &s in schedules {
            let name = format!("schedule_{s}");
            let m = self.measure(
                &name,
                Kind::Handwritten,
                &reference,
                poison,
                &mut || {
                    Ok(kernels::spmm::launch(
                        s,
                        gpu,
                        self.da,
                        &db,
                        &mut c.borrow_mut(),
                        k,
                    )?)
                },
                output,
            );
            result.kernels.push(m);
        }
        for &s in lanes {
            let name = format!("{LANES}{s}");
            let m = self.measure(
                &name,
                Kind::Handwritten,
                &reference,
                poison,
                &mut || {
                    Ok(kernels::spmm::lanes::launch(
                        s,
                        gpu,
                        self.da,
                        &db,
                        &mut c.borrow_mut(),
                        k,
                    )?)
                },
                output,
            );
            result.kernels.push(m);
        }
        drop(c);
        for alg in SpMmAlg::ALL {
            let name = alg.kernel_name();
            let Some(cs) = cusparse else {
                self.pb.inc(1);
                continue;
            };
            let m = match SpMm::new(cs, gpu, self.da, &db, k, alg) {
                Ok(plan) => {
                    let plan = std::cell::RefCell::new(plan);
                    self.measure(
                        name,
                        Kind::Cusparse,
                        &reference,
                        &mut || Ok(plan.borrow_mut().fill_c(gpu, T::POISON)?),
                        &mut || Ok(plan.borrow_mut().run()?),
                        &mut || Ok(gpu.download(plan.borrow().c())?),
                    )
                }
                Err(e) => {
                    self.pb.inc(1);
                    Measurement::failed(name, Kind::Cusparse, e.to_string())
                }
            };
            result.kernels.push(m);
        }
        // A cuSPARSE algorithm that does not take this case is not a failure of ours.
        let any_cusparse = result
            .kernels
            .iter()
            .any(|m| m.kind == Kind::Cusparse && m.failure.is_none());
        if any_cusparse {
            result
                .kernels
                .retain(|m| m.kind != Kind::Cusparse || m.failure.is_none());
        }
        Ok(result)
    }

    fn sddmm(
        &self,
        cusparse: Option<&Cusparse>,
        sddmm_language: &[&'static str],
    ) -> Result<MatrixResult, BoxError> {
        let (gpu, k) = (self.gpu, self.k);
        self.pb
            .set_message(format!("{} k={k}: x, y and the reference", self.name));
        let x: Vec<T> =
            loops::io::generate::random_vector(self.a.rows() * k, self.seed ^ (k as u64) << 32);
        let y: Vec<T> =
            loops::io::generate::random_vector(self.a.cols() * k, self.seed ^ (k as u64) << 40);
        let reference = DenseReference::sddmm(self.a, &x, &y, k, self.rows);
        self.pb.inc(1);
        let dx = gpu.upload(&x)?;
        let dy = gpu.upload(&y)?;
        drop((x, y));
        let mut result = self.result();
        let out = std::cell::RefCell::new(gpu.zeros::<T>(self.a.nnz())?);
        let m = self.measure(
            OP,
            Kind::Schedule,
            &reference,
            &mut || Ok(gpu.fill(&mut out.borrow_mut(), T::POISON)?),
            &mut || Ok(self.da.sddmm(gpu, &dx, &dy, k, &mut out.borrow_mut())?),
            &mut || Ok(gpu.download(&out.borrow())?),
        );
        result.kernels.push(m);
        // The language's SDDMM (`loops::ops::sddmm`, a `lanes` loop in the atom loop) under the
        // schedules that spread `k` over lanes, and the hand-written CUDA it is measured against.
        let cuda = self.measure(
            SDDMM_CUDA,
            Kind::Schedule,
            &reference,
            &mut || Ok(gpu.fill(&mut out.borrow_mut(), T::POISON)?),
            &mut || {
                Ok(loops::ops::sddmm::sddmm(
                    gpu,
                    self.da,
                    &dx,
                    &dy,
                    k,
                    &mut out.borrow_mut(),
                )?)
            },
            &mut || Ok(gpu.download(&out.borrow())?),
        );
        result.kernels.push(cuda);
        // The language's SDDMM as the op would run it (`sddmm_lang::sddmm`: `auto`, or `lrb`
        // where a row is long).
        let lang = self.measure(
            SDDMM_LANG_OP,
            Kind::Schedule,
            &reference,
            &mut || Ok(gpu.fill(&mut out.borrow_mut(), T::POISON)?),
            &mut || {
                Ok(loops::ops::sddmm_lang::sddmm(
                    gpu,
                    self.da,
                    &dx,
                    &dy,
                    k,
                    &mut out.borrow_mut(),
                )?)
            },
            &mut || Ok(gpu.download(&out.borrow())?),
        );
        result.kernels.push(lang);
        for &s in sddmm_language {
            let m = self.measure(
                &format!("{SDDMM_LANG}{s}"),
                Kind::Schedule,
                &reference,
                &mut || Ok(gpu.fill(&mut out.borrow_mut(), T::POISON)?),
                &mut || {
                    Ok(loops::ops::sddmm_lang::dot::launch(
                        s,
                        gpu,
                        self.da,
                        &dx,
                        &dy,
                        k,
                        &mut out.borrow_mut(),
                    )?)
                },
                &mut || Ok(gpu.download(&out.borrow())?),
            );
            result.kernels.push(m);
        }
        drop(out);
        let Some(cs) = cusparse else {
            self.pb.inc(1);
            return Ok(result);
        };
        let m = match Sddmm::new(cs, gpu, self.da, &dx, &dy, k) {
            Ok(plan) => {
                let plan = std::cell::RefCell::new(plan);
                self.measure(
                    SDDMM_KERNEL,
                    Kind::Cusparse,
                    &reference,
                    &mut || Ok(plan.borrow_mut().fill_out(gpu, T::POISON)?),
                    &mut || Ok(plan.borrow_mut().run()?),
                    &mut || Ok(gpu.download(plan.borrow().out())?),
                )
            }
            Err(e) => {
                self.pb.inc(1);
                Measurement::failed(SDDMM_KERNEL, Kind::Cusparse, e.to_string())
            }
        };
        result.kernels.push(m);
        Ok(result)
    }
}
