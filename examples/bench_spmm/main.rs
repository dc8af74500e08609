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

use loops_bench as bench;
use loops_kernels as kernels;

mod case;
mod report;

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
use case::Case;
use report::{
    kernel_list, plan_variants, relabel_summary, summary, table_row, traffic_of, write_outputs,
    RELABELLED, VARIANTS,
};

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
/// The `sddmm` op timed again after `lang_op` (op, cuda, lang, op again: an A/B/A order, so that
/// a drift during a case shows as `op` against `op_after`), under `--op sddmm`.
const SDDMM_OP_AFTER: &str = "op_after";
/// The prefix of the language SDDMM's lines (`lang_warp`), under `--op sddmm`.
const SDDMM_LANG: &str = "lang_";
/// The schedules of the language SDDMM timed under `--op sddmm`.
const SDDMM_LANGUAGE: &[&str] = &["warp", "group8", "group16", "lrb", "auto", "flat", "flat16"];
/// `auto`'s candidates `flat` and `flat16` launched alone (`Gpu::run_variant`), the `lang_flat`
/// and `lang_flat16` lines.
const SDDMM_FLAT: &str = "flat";

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
