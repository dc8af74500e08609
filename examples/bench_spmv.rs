//! The SpMV benchmark: every schedule of the loops `spmv` kernel against cuSPARSE (`cusparseSpMV`,
//! CSR ALG1 and ALG2) and a device-to-device copy of the model's bytes (the ceiling), on each matrix
//! of a set, on one device in one run. Every result is checked against the f64 CPU reference before
//! it is timed (outputs poisoned first) and again after.
//!
//!     cargo run --release --example bench_spmv                                   # generated set
//!     cargo run --release --example bench_spmv -- --corpus ../shared/data/matrices
//!     cargo run --release --example bench_spmv -- --f64 --reps 200 --out target/bench
//!     cargo run --release --example bench_spmv -- --world --reps 50 --kernel-budget-ms 500
//!     cargo run --release --example bench_spmv -- --powerlaw --relabel --reversed --carveouts l1
//!
//! `--carveouts` times every schedule again under each L1 / shared-memory split asked of the
//! driver (`loops::launch::set_carveout`; `<schedule>@<split>` lines and a table of each split's
//! best); `--reversed` adds each relabelled matrix in reversed vertex order (`<matrix>@degrev`),
//! which separates the order rows are handed out in from the locality of `x` (issue 42;
//! `examples/bench/results/h200/roofline2/README.md`).
//!
//! Writes to `--out` (default `target/bench`), named by set and precision (`generated_f32`, or the
//! corpus folder's name): `spmv_<set>_<prec>.csv`, `runtime_vs_nnz_<..>.svg`,
//! `runtime_panels_<..>.svg`, `speedup_<..>.svg` and `summary_<..>.txt` (the table and the
//! geomeans; on the world set also auto against the best schedule per class and half), rewritten
//! after each matrix. Prints the table on stdout, progress on stderr. Exits
//! non-zero if any kernel's result is outside its error bound or any matrix could not be run.

use loops_bench as bench;
use loops_kernels as kernels;

use std::error::Error;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use loops::check;
use loops::launch::{set_carveout, Carveout};
use loops::prelude::*;

use bench::corpus::{self, Entry};
use bench::cusparse::{Alg, Cusparse, SpMv};
use bench::handwritten::{self, Handwritten};
use bench::timing::{measure_copy, time_launches, Plan};
use bench::{report, Kind, MatrixResult, Measurement, Reference, SEARCHED};
use kernels::spmv;

type BoxError = Box<dyn Error>;

#[derive(Parser)]
#[command(about = "SpMV: every loops schedule against cuSPARSE and the copy ceiling")]
struct Args {
    /// A folder of Matrix Market files (every .mtx and .mtx.gz in it). Without it (and without
    /// --world): the generated default set.
    #[arg(long, conflicts_with_all = ["world", "powerlaw"])]
    corpus: Option<PathBuf>,
    /// The large power-law set (issue 42: SNAP-like 4M, power-law 4M, R-MAT 22, Kronecker 21 and
    /// 22, with a banded and a grid control) instead of the default set.
    #[arg(long, conflicts_with = "world")]
    powerlaw: bool,
    /// The world set (`loops::io::generate::world_set`): generated classes that look like real
    /// matrices, each at several sizes and seeds; the summary adds auto against the best schedule
    /// per class, for the tuning half (even seeds) and the held-out half (odd seeds).
    #[arg(long)]
    world: bool,
    /// Seeds of the world set (0..this).
    #[arg(long, default_value_t = 4)]
    world_seeds: u64,
    /// Only these kernels (comma-separated: schedules such as `auto` and `work_oriented`,
    /// `merge_path_searched`, `handwritten_merge_path`, `cusparse_alg1`, `cusparse_alg2`); the copy
    /// always runs. Without it: all of them.
    #[arg(long, value_delimiter = ',')]
    kernels: Option<Vec<String>>,
    /// Host-side time one kernel's timing may take on one matrix before it gets fewer samples (at
    /// least 5).
    #[arg(long, default_value_t = 3000.0)]
    kernel_budget_ms: f64,
    /// Double precision instead of single.
    #[arg(long)]
    f64: bool,
    /// Timed samples per kernel (after a warm-up); the median is reported. At least 50 is the rule.
    #[arg(long, default_value_t = 100)]
    reps: usize,
    /// Where the CSV, the plots and the summary go.
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
    /// Seed of the generated matrices and of x.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    /// Matrices whose copy (of the model's bytes) takes less than this many ms per launch are also
    /// timed as a CUDA graph of back-to-back launches (batches of plain launches where a kernel
    /// cannot be captured), and that figure is reported: one event pair per launch, or plain
    /// launches with the host's overhead between them, overstate kernels of a few microseconds.
    #[arg(long, default_value_t = 0.05)]
    batch_below_ms: f64,
    /// Launches per batch (see --batch-below-ms).
    #[arg(long, default_value_t = 20)]
    batch: usize,
    /// Only the matrices whose name contains one of these (comma-separated).
    #[arg(long, value_delimiter = ',')]
    only: Option<Vec<String>>,
    /// Also run each square matrix relabelled by decreasing in-degree (`io::host::relabel_by_degree`,
    /// named `<matrix>@deg`), relabelled on the GPU too (`ops::relabel`, checked equal), and print
    /// both relabellings' costs and the products that repay them.
    #[arg(long)]
    relabel: bool,
    /// Also time every schedule under each of these L1 / shared-memory splits
    /// (`loops::launch::set_carveout`: `l1`, `shared`, `driver` or a percentage), named
    /// `<schedule>@<split>` in the CSV (ablation lines, not candidates for the best schedule), and
    /// print each split's best against the driver's choice per matrix.
    #[arg(long, value_delimiter = ',', value_parser = parse_carveout)]
    carveouts: Vec<Carveout>,
    /// With --relabel: also each relabelled copy with its vertex order reversed (`<matrix>@degrev`:
    /// the hub columns still packed together in `x`, now at its end, and the hub rows last), which
    /// tells the order rows are handed out in from the locality of `x`.
    #[arg(long, requires = "relabel")]
    reversed: bool,
}

/// The suffix of a relabelled copy in reversed order (`--reversed`).
const REVERSED: &str = "@degrev";

/// `a` (square) with its vertex order reversed: row and column `v` become `n - 1 - v` (columns
/// stay sorted within each row).
fn reverse_order<T: Float>(a: &sprs::CsMat<T>) -> sprs::CsMat<T> {
    let n = a.rows();
    let offsets = a.indptr().to_proper().to_vec();
    let (mut indptr, mut indices, mut data) = (
        Vec::with_capacity(n + 1),
        Vec::with_capacity(a.nnz()),
        Vec::with_capacity(a.nnz()),
    );
    indptr.push(0);
    for old in (0..n).rev() {
        for k in (offsets[old]..offsets[old + 1]).rev() {
            indices.push(n - 1 - a.indices()[k]);
            data.push(a.data()[k]);
        }
        indptr.push(indices.len());
    }
    sprs::CsMat::new((n, n), indptr, indices, data)
}

fn parse_carveout(text: &str) -> Result<Carveout, String> {
    Carveout::parse(text)
        .ok_or_else(|| format!("`{text}`: a split is `l1`, `shared`, `driver` or 0..=100"))
}

/// The suffix of a relabelled copy's name.
const RELABELLED: &str = "@deg";

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
            eprintln!("{n} failure(s): see the notes column and the CSV's status column");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {}", chain(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}

/// An error and its sources on one line.
fn chain(e: &dyn Error) -> String {
    loops::error_chain(e, ": ")
}

/// Runs the whole set; returns the number of failures (kernels outside their bound or not run,
/// matrices that could not be built or read).
fn run<T: Float>(args: &Args) -> Result<usize, BoxError> {
    let mut entries = match &args.corpus {
        Some(dir) => corpus::from_dir(dir)
            .map_err(|e| format!("reading the corpus folder {}: {e}", dir.display()))?,
        None if args.world => corpus::world_set(args.world_seeds),
        None if args.powerlaw => corpus::powerlaw_set(),
        None => corpus::default_set(),
    };
    if let Some(only) = &args.only {
        entries.retain(|e| only.iter().any(|o| e.name.contains(o.as_str())));
    }
    if args.relabel {
        entries = entries
            .into_iter()
            .flat_map(|e| {
                let copy = |suffix: &str| Entry {
                    name: format!("{}{suffix}", e.name),
                    spec: e.spec.clone(),
                };
                let (deg, rev) = (copy(RELABELLED), copy(REVERSED));
                std::iter::once(e)
                    .chain(std::iter::once(deg))
                    .chain(args.reversed.then_some(rev))
            })
            .collect();
    }
    if entries.is_empty() {
        return Err("no matrices to run (an empty corpus folder, or --only matched none)".into());
    }
    let set = if args.world {
        "world".to_string()
    } else if args.powerlaw {
        "powerlaw".to_string()
    } else {
        corpus::set_name(args.corpus.as_deref())
    };
    let precision = T::RUST_NAME;

    let gpu = Gpu::new(0)?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("creating the output folder {}: {e}", args.out.display()))?;
    let cusparse = match Cusparse::new(&gpu) {
        Ok(cs) => Some(cs),
        Err(e) => {
            eprintln!("{e}; carrying on without the cuSPARSE lines (no speedups)");
            None
        }
    };

    let plan = Plan {
        reps: args.reps.max(1),
        warmup: 10,
        batch: args.batch.max(1),
        budget_ms: args.kernel_budget_ms,
    };
    if args.reps < 50 {
        eprintln!(
            "note: --reps {} is below the 50 samples the medians are meant to have",
            args.reps
        );
    }
    let head = header::<T>(&gpu, cusparse.as_ref(), &set, entries.len(), args, &plan);
    print!("{head}\n{}\n", report::table_header());
    let mut log = format!("{head}\n{}\n", report::table_header());

    let steps = 3 + spmv::SCHEDULES.len() + if cusparse.is_some() { 2 } else { 0 };
    let pb = ProgressBar::new((entries.len() * steps) as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} {wide_msg}",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.enable_steady_tick(Duration::from_millis(250));

    let mut results: Vec<MatrixResult> = Vec::new();
    let mut broken = 0usize;
    let mut first_launches: Option<Vec<(&str, Duration)>> = None;
    let began = Instant::now();
    for (done, entry) in entries.iter().enumerate() {
        let started = pb.position();
        match bench_matrix::<T>(
            &gpu,
            cusparse.as_ref(),
            entry,
            args,
            &plan,
            &pb,
            &mut first_launches,
        ) {
            Ok(r) => {
                let row = report::table_row(&r);
                pb.suspend(|| {
                    println!("{row}");
                    let _ = std::io::stdout().flush();
                });
                let _ = writeln!(log, "{row}");
                results.push(r);
            }
            Err(e) => {
                broken += 1;
                let row = format!("{:<28} could not be run: {}", entry.name, chain(e.as_ref()));
                pb.suspend(|| println!("{row}"));
                let _ = writeln!(log, "{row}");
            }
        }
        pb.set_position(started + steps as u64);
        pb.suspend(|| {
            eprintln!(
                "[{}/{}] {} done, {:.0} s in all",
                done + 1,
                entries.len(),
                entry.name,
                began.elapsed().as_secs_f64()
            )
        });
        let mut summary = report::summary(&results);
        if !args.carveouts.is_empty() {
            summary.push_str(&carveout_summary(&results, &args.carveouts));
        }
        if let Err(e) = write_outputs(&args.out, &set, precision, &results, &log, &summary) {
            pb.suspend(|| eprintln!("writing the results to {}: {e}", args.out.display()));
            broken += 1;
        }
    }
    pb.finish_and_clear();

    let mut summary = report::summary(&results);
    if !args.carveouts.is_empty() {
        summary.push_str(&carveout_summary(&results, &args.carveouts));
    }
    println!("\n{summary}");
    let paths = output_paths(&args.out, &set, precision);
    println!(
        "wrote    {}",
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join("\n         ")
    );
    let bad: usize = results.iter().map(|r| r.failures().count()).sum();
    Ok(bad + broken)
}

/// The lines above the table: device, cuSPARSE, set, timing method, byte model, output folder.
fn header<T: Float>(
    gpu: &Gpu,
    cusparse: Option<&Cusparse>,
    set: &str,
    matrices: usize,
    args: &Args,
    plan: &Plan,
) -> String {
    let mut head = String::new();
    let _ = writeln!(
        head,
        "device   {} (sm_{}{}, CUDA driver {}.{})",
        gpu.name(),
        gpu.compute_capability().0,
        gpu.compute_capability().1,
        gpu.driver_version() / 1000,
        (gpu.driver_version() % 1000) / 10
    );
    let _ = writeln!(
        head,
        "cuSPARSE {}",
        cusparse.map_or("unavailable".to_string(), |c| c.version())
    );
    let _ = writeln!(
        head,
        "set      {set} ({} matrices), {} values, 32-bit indices, seed {}{}",
        matrices,
        T::RUST_NAME,
        args.seed,
        if args.world {
            " (of x: each world matrix has its own seed, even = tuning half, odd = held out)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        head,
        "timing   CUDA events after {} warm-up launches, median of {} per-launch event pairs; matrices whose copy takes < {} ms: median of {} replays of a CUDA graph of {} launches (batches of plain launches where capture fails: the CSV's timing column), divided",
        plan.warmup, plan.reps, args.batch_below_ms, plan.reps, plan.batch
    );
    let _ = writeln!(
        head,
        "budget   {} ms of samples per kernel and matrix (at least 5); kernels over 1 ms per launch are not batched",
        plan.budget_ms
    );
    let _ = writeln!(
        head,
        "bytes    model: check::spmv_bytes (f32, square: 8 nnz + 12 rows); copy: cuMemcpyDtoD of half of it (reads + writes = the model)"
    );
    let _ = writeln!(
        head,
        "traffic  % traf: the best schedule's share of the copy's bandwidth charged check::spmv_traffic's DRAM bytes (stream + x's sectors through an LRU model of the {} MB L2)",
        gpu.limits().l2_bytes >> 20
    );
    let _ = writeln!(head, "output   {}", args.out.display());
    if let Some(kernels) = &args.kernels {
        let _ = writeln!(head, "kernels  only {} (--kernels)", kernels.join(", "));
    }
    head
}

/// The files a run writes: CSV, three plots, the summary.
fn output_paths(out: &Path, set: &str, precision: &str) -> [PathBuf; 5] {
    let tag = format!("{set}_{precision}");
    [
        out.join(format!("spmv_{tag}.csv")),
        out.join(format!("runtime_vs_nnz_{tag}.svg")),
        out.join(format!("runtime_panels_{tag}.svg")),
        out.join(format!("speedup_{tag}.svg")),
        out.join(format!("summary_{tag}.txt")),
    ]
}

fn write_outputs(
    out: &Path,
    set: &str,
    precision: &str,
    results: &[MatrixResult],
    log: &str,
    summary: &str,
) -> std::io::Result<()> {
    let [csv, runtime, panels, speedup, text] = output_paths(out, set, precision);
    bench::csv::write(
        std::io::BufWriter::new(std::fs::File::create(csv)?),
        results,
    )?;
    let what = format!("SpMV, {set} set, {precision}");
    std::fs::write(
        runtime,
        bench::plot::runtime_vs_nnz(results, &format!("Runtime vs nonzeros ({what})")),
    )?;
    std::fs::write(
        panels,
        bench::plot::runtime_panels(
            results,
            &format!("Each schedule vs cuSPARSE ALG1 and the copy ceiling ({what})"),
        ),
    )?;
    std::fs::write(
        speedup,
        bench::plot::speedup(results, &format!("Speedup over cuSPARSE CSR ALG1 ({what})")),
    )?;
    std::fs::write(text, format!("{log}\n{summary}"))?;
    Ok(())
}

/// Something the benchmark runs: fill its output, launch it, read its output back.
trait Subject<T: Float> {
    fn poison(&mut self, gpu: &Gpu) -> Result<(), BoxError>;
    fn launch(&mut self, gpu: &Gpu) -> Result<(), BoxError>;
    fn output(&self, gpu: &Gpu) -> Result<Vec<T>, BoxError>;
}

/// A schedule of the loops `spmv` kernel.
struct Schedule<'a, T: Float> {
    schedule: &'static str,
    a: &'a DeviceCsr<T>,
    x: &'a DeviceBuffer<T>,
    y: &'a mut DeviceBuffer<T>,
    /// Launch `merge_path` without the block starts kept with the matrix: its blocks search for
    /// their ranges (the control for keeping them, [`SEARCHED`]).
    searched: bool,
}

impl<T: Float> Subject<T> for Schedule<'_, T> {
    fn poison(&mut self, gpu: &Gpu) -> Result<(), BoxError> {
        Ok(gpu.fill(self.y, T::POISON)?)
    }
    fn launch(&mut self, gpu: &Gpu) -> Result<(), BoxError> {
        if !self.searched {
            return Ok(spmv::launch(self.schedule, gpu, self.a, self.x, self.y)?);
        }
        // As the wrapper launches it, less `args.block_ranges(..).preprocessed(..)`.
        use kernels::spmv::merge_path::spmv as generated;
        let mut args = loops::__private::KernelArgs::new();
        args.csr(self.a).slice(self.x).slice_mut(self.y);
        let call = loops::__private::Call::new("a", self.a, cfg!(debug_assertions));
        Ok(gpu.run_variant(&generated::KERNEL, 0, T::RUST_NAME, call, args, true)?)
    }
    fn output(&self, gpu: &Gpu) -> Result<Vec<T>, BoxError> {
        Ok(gpu.download(self.y)?)
    }
}

impl<T: Float> Subject<T> for Handwritten<'_, T> {
    fn poison(&mut self, gpu: &Gpu) -> Result<(), BoxError> {
        self.fill_y(gpu, T::POISON)
    }
    fn launch(&mut self, gpu: &Gpu) -> Result<(), BoxError> {
        Handwritten::launch(self, gpu)
    }
    fn output(&self, gpu: &Gpu) -> Result<Vec<T>, BoxError> {
        Ok(gpu.download(self.y())?)
    }
}

impl<T: Float> Subject<T> for SpMv<'_, T> {
    fn poison(&mut self, gpu: &Gpu) -> Result<(), BoxError> {
        Ok(self.fill_y(gpu, T::POISON)?)
    }
    fn launch(&mut self, _gpu: &Gpu) -> Result<(), BoxError> {
        Ok(self.run()?)
    }
    fn output(&self, gpu: &Gpu) -> Result<Vec<T>, BoxError> {
        Ok(gpu.download(self.y())?)
    }
}

/// Checks one kernel (poisoned output, one launch, against the reference), times it, checks the
/// output of the last timed launch again. Failures become a failed [`Measurement`], not an error.
/// Also returns the first launch's wall time (NVRTC compile + load on a kernel's first use).
fn measure<T: Float>(
    gpu: &Gpu,
    kernel: &str,
    kind: Kind,
    subject: &mut dyn Subject<T>,
    reference: &Reference,
    plan: &Plan,
    batch: bool,
) -> (Measurement, Duration) {
    let mut first = Duration::ZERO;
    let mut checked = || -> Result<Option<String>, BoxError> {
        subject.poison(gpu)?;
        let t = Instant::now();
        subject.launch(gpu)?;
        gpu.synchronize()?;
        first = t.elapsed();
        let check = reference.check(&subject.output(gpu)?);
        Ok((!check.passed()).then(|| check.to_string()))
    };
    match checked() {
        Err(e) => return (Measurement::failed(kernel, kind, chain(e.as_ref())), first),
        Ok(Some(bad)) => return (Measurement::failed(kernel, kind, bad), first),
        Ok(None) => {}
    }
    let timed = time_launches(gpu, plan, batch, &mut || subject.launch(gpu)).and_then(|t| {
        let check = reference.check(&subject.output(gpu)?);
        if check.passed() {
            Ok(t)
        } else {
            Err(format!("after timing: {check}").into())
        }
    });
    let m = match timed {
        Ok((median, per_launch, timing)) => Measurement {
            kernel: kernel.to_string(),
            kind,
            median_ms: Some(median),
            per_launch_ms: Some(per_launch),
            timing,
            failure: None,
        },
        Err(e) => Measurement::failed(kernel, kind, chain(e.as_ref())),
    };
    (m, first)
}

/// Builds or reads one matrix, runs every kernel on it.
#[allow(clippy::too_many_arguments)]
fn bench_matrix<T: Float>(
    gpu: &Gpu,
    cusparse: Option<&Cusparse>,
    entry: &Entry,
    args: &Args,
    plan: &Plan,
    pb: &ProgressBar,
    first_launches: &mut Option<Vec<(&'static str, Duration)>>,
) -> Result<MatrixResult, BoxError> {
    let name = entry.name.as_str();
    let Uploaded {
        mut result,
        a,
        x,
        reference,
    } = upload_matrix::<T>(gpu, entry, args.seed, pb, args.relabel, args.reversed)?;

    // The ceiling first: its time decides how the small matrices are timed.
    pb.set_message(format!("{name}: copy"));
    let (copy, batch) = measure_copy(gpu, plan, result.bytes, args.batch_below_ms)?;
    result.kernels.push(copy);
    pb.inc(1);

    let on = OnMatrix {
        gpu,
        name,
        a: &a,
        x: &x,
        reference: &reference,
        plan,
        batch,
        pb,
        kernels: args.kernels.as_deref(),
        carveouts: &args.carveouts,
    };
    let mut y = gpu.zeros::<T>(result.rows)?;
    let firsts = on.measure_schedules(&mut y, &mut result.kernels);
    on.measure_controls(&mut y, &mut result.kernels);
    drop(y);
    if first_launches.is_none() {
        let text: Vec<String> = firsts
            .iter()
            .map(|(s, d)| format!("{s} {:.0} ms", d.as_secs_f64() * 1e3))
            .collect();
        pb.suspend(|| eprintln!("first launches (NVRTC compile + load): {}", text.join(", ")));
        *first_launches = Some(firsts);
    }
    if let Some(cs) = cusparse {
        on.measure_cusparse(cs, &mut result.kernels);
    }
    Ok(result)
}

thread_local! {
    /// The last matrix built, kept for its relabelled copy (`--relabel`): `(name, CsMat<T>)`.
    static KEPT: std::cell::RefCell<Option<Box<dyn std::any::Any>>> =
        const { std::cell::RefCell::new(None) };
}

/// One matrix on the device with its CPU reference, and its result with no kernel yet.
struct Uploaded<T: Float> {
    result: MatrixResult,
    a: DeviceCsr<T>,
    x: DeviceBuffer<T>,
    reference: Reference,
}

/// Builds or reads the matrix, draws `x`, computes the reference and uploads both, saying how long
/// each took. The host copies are freed on return, before the kernels allocate.
fn upload_matrix<T: Float>(
    gpu: &Gpu,
    entry: &Entry,
    seed: u64,
    pb: &ProgressBar,
    relabel: bool,
    reversed: bool,
) -> Result<Uploaded<T>, BoxError> {
    let name = entry.name.as_str();
    pb.set_message(format!("{name}: building {}", entry.spec));
    let t = Instant::now();
    // Under --relabel a matrix is kept for its `@deg` copy, which comes next: built once (and the
    // relabelled one for its `@degrev` copy under --reversed, which comes after it). The key is
    // the name of the copy it is kept for.
    let kept = KEPT.with(|k| k.borrow_mut().take());
    let (mut a, from_kept) = match kept.and_then(|k| k.downcast::<(String, sprs::CsMat<T>)>().ok())
    {
        Some(k) if k.0 == name => (k.1, true),
        _ => (entry.load::<T>(seed)?, false),
    };
    if name.ends_with(REVERSED) {
        // `a` is the relabelled copy kept by `@deg` (or, without it, the matrix as built: then
        // relabelled here first).
        if !from_kept {
            a = loops::io::host::relabel_by_degree(&a, loops::io::host::Degree::In)
                .ok_or_else(|| format!("{name}: only a square matrix can be relabelled"))?
                .0;
        }
        a = reverse_order(&a);
    } else if relabel && !name.ends_with(RELABELLED) {
        let copy: Box<dyn std::any::Any> = Box::new((format!("{name}{RELABELLED}"), a.clone()));
        KEPT.with(|k| *k.borrow_mut() = Some(copy));
    }
    let built = t.elapsed();
    let mut relabel_ms = None;
    let mut relabel_device_ms = None;
    if name.ends_with(RELABELLED) {
        pb.set_message(format!("{name}: relabelling on the GPU"));
        let original = gpu.upload_csr(&a)?;
        let (on_device, _, device_ms) = bench::relabel::relabel_timed(gpu, &original)?;
        drop(original);
        relabel_device_ms = Some(device_ms);
        pb.set_message(format!("{name}: relabelling on the host"));
        let t = Instant::now();
        let (b, _) = loops::io::host::relabel_by_degree(&a, loops::io::host::Degree::In)
            .ok_or_else(|| format!("{name}: only a square matrix can be relabelled"))?;
        relabel_ms = Some(t.elapsed().as_secs_f64() * 1e3);
        if gpu.download_csr(&on_device)? != b {
            return Err(format!(
                "{name}: the GPU's relabelling (ops::relabel) differs from the host's"
            )
            .into());
        }
        drop(on_device);
        pb.suspend(|| {
            eprintln!(
                "{name}: relabelled on the GPU in {device_ms:.1} ms (median of {}; equal to the \
                 host's, {:.0} ms)",
                bench::relabel::TIMED_CALLS,
                relabel_ms.unwrap_or(0.0)
            )
        });
        if reversed {
            let base = name.strip_suffix(RELABELLED).unwrap_or(name);
            let copy: Box<dyn std::any::Any> = Box::new((format!("{base}{REVERSED}"), b.clone()));
            KEPT.with(|k| *k.borrow_mut() = Some(copy));
        }
        a = b;
    }
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed ^ 0x5eed);
    pb.set_message(format!("{name}: CPU reference"));
    let t = Instant::now();
    let reference = Reference::new(&a, &x);
    let referenced = t.elapsed();
    pb.set_message(format!("{name}: upload"));
    let t = Instant::now();
    let da = gpu.upload_csr(&a)?;
    let dx = gpu.upload(&x)?;
    gpu.synchronize()?;
    let uploaded = t.elapsed();
    let mut result = MatrixResult::new::<T>(name, a.rows(), a.cols(), a.nnz());
    result.world = entry.world_tag();
    result.relabel_ms = relabel_ms;
    result.relabel_device_ms = relabel_device_ms;
    let t = Instant::now();
    result.traffic = Some(check::spmv_traffic::<T>(
        &a.indptr().to_proper(),
        a.indices(),
        a.cols(),
        gpu.limits().l2_bytes,
    ));
    let modelled = t.elapsed();
    pb.suspend(|| {
        eprintln!(
            "{name}: {} x {}, {} nonzeros; {} in {built:.2?}, CPU reference {referenced:.2?}, upload {uploaded:.2?}, traffic model {modelled:.2?}",
            a.rows(),
            a.cols(),
            a.nnz(),
            if matches!(entry.spec, corpus::Spec::File(_)) { "read" } else { "generated" },
        )
    });
    Ok(Uploaded {
        result,
        a: da,
        x: dx,
        reference,
    })
}

/// What every kernel on one matrix is measured with: the uploaded operands, the reference, how to
/// time, and the progress bar that says which kernel runs and counts each.
struct OnMatrix<'a, T: Float> {
    gpu: &'a Gpu,
    name: &'a str,
    a: &'a DeviceCsr<T>,
    x: &'a DeviceBuffer<T>,
    reference: &'a Reference,
    plan: &'a Plan,
    batch: bool,
    pb: &'a ProgressBar,
    /// `--kernels`: only these run.
    kernels: Option<&'a [String]>,
    /// `--carveouts`: the splits each schedule is timed under again.
    carveouts: &'a [Carveout],
}

impl<T: Float> OnMatrix<'_, T> {
    /// Whether `--kernels` leaves this kernel in.
    fn wants(&self, kernel: &str) -> bool {
        self.kernels.is_none_or(|k| k.iter().any(|k| k == kernel))
    }

    /// [`measure`] on this matrix.
    fn measure(
        &self,
        kernel: &str,
        kind: Kind,
        subject: &mut dyn Subject<T>,
    ) -> (Measurement, Duration) {
        let (gpu, reference, plan) = (self.gpu, self.reference, self.plan);
        measure(gpu, kernel, kind, subject, reference, plan, self.batch)
    }

    /// Every schedule of the loops `spmv` kernel, writing `y`; returns each one's first launch
    /// time (NVRTC compile + load on its first use in the process).
    fn measure_schedules(
        &self,
        y: &mut DeviceBuffer<T>,
        out: &mut Vec<Measurement>,
    ) -> Vec<(&'static str, Duration)> {
        let mut firsts = Vec::new();
        for &schedule in spmv::SCHEDULES {
            if !self.wants(schedule) {
                self.pb.inc(1);
                continue;
            }
            self.pb.set_message(format!("{}: {schedule}", self.name));
            let mut subject = Schedule {
                schedule,
                a: self.a,
                x: self.x,
                y: &mut *y,
                searched: false,
            };
            let (m, first) = self.measure(schedule, Kind::Schedule, &mut subject);
            firsts.push((schedule, first));
            out.push(m);
            for &split in self.carveouts {
                let name = format!("{schedule}@{}", split.name());
                self.pb.set_message(format!("{}: {name}", self.name));
                set_carveout(Some(split));
                out.push(self.measure(&name, Kind::Ablation, &mut subject).0);
                set_carveout(Some(Carveout::Driver));
            }
            self.pb.inc(1);
        }
        firsts
    }

    /// The controls, writing `y`: `merge_path` without the block starts kept with the matrix, and
    /// merge-path SpMV written by hand (the abstraction's cost).
    fn measure_controls(&self, y: &mut DeviceBuffer<T>, out: &mut Vec<Measurement>) {
        if self.wants(SEARCHED) {
            self.pb.set_message(format!("{}: {SEARCHED}", self.name));
            let mut searched = Schedule {
                schedule: "merge_path",
                a: self.a,
                x: self.x,
                y: &mut *y,
                searched: true,
            };
            out.push(self.measure(SEARCHED, Kind::Ablation, &mut searched).0);
        }
        self.pb.inc(1);
        if self.wants(handwritten::NAME) {
            self.pb
                .set_message(format!("{}: {}", self.name, handwritten::NAME));
            let m = match Handwritten::new(self.gpu, self.a, self.x, y) {
                Ok(mut hw) => {
                    self.measure(handwritten::NAME, Kind::Handwritten, &mut hw)
                        .0
                }
                Err(e) => {
                    Measurement::failed(handwritten::NAME, Kind::Handwritten, chain(e.as_ref()))
                }
            };
            out.push(m);
        }
        self.pb.inc(1);
    }

    /// cuSPARSE ALG1 and ALG2, each with its own output; a failed preprocessing is said and the
    /// SpMV timed without it.
    fn measure_cusparse(&self, cs: &Cusparse, out: &mut Vec<Measurement>) {
        let name = self.name;
        for alg in [Alg::CsrAlg1, Alg::CsrAlg2] {
            let kernel = alg.kernel_name();
            if !self.wants(kernel) {
                self.pb.inc(1);
                continue;
            }
            self.pb.set_message(format!("{name}: {kernel}"));
            let m = match SpMv::new(cs, self.gpu, self.a, self.x, alg) {
                Ok(mut spmv) => {
                    if let Some(e) = spmv.preprocess_error() {
                        self.pb
                            .suspend(|| eprintln!("{name}: {kernel}: {e}; timed without it"));
                    }
                    self.measure(kernel, Kind::Cusparse, &mut spmv).0
                }
                Err(e) => Measurement::failed(kernel, Kind::Cusparse, chain(&e)),
            };
            out.push(m);
            self.pb.inc(1);
        }
    }
}

/// Under `--carveouts`: per matrix, the best schedule under each split against the best under the
/// driver's choice and against cuSPARSE ALG1, and the geomeans over the matrices.
/// `auto` under a split, left out of its best (as `auto` is of the driver's).
const AUTO_PREFIX: &str = "auto@";

fn carveout_summary(results: &[MatrixResult], splits: &[Carveout]) -> String {
    let mut text = String::from(
        "\nL1 / shared split (--carveouts; loops::launch::set_carveout): best schedule under each split\n",
    );
    let _ = write!(text, "{:<28} {:>22}", "matrix", "driver best ms");
    for split in splits {
        let _ = write!(
            text,
            " {:>30}",
            format!("{} best ms (x driver, x alg1)", split.name())
        );
    }
    text.push('\n');
    let mut ratios = vec![Vec::new(); splits.len()];
    for r in results {
        let Some((best, best_ms)) = r.best_schedule() else {
            continue;
        };
        let _ = write!(
            text,
            "{:<28} {:>22}",
            r.name,
            format!("{best} {best_ms:.4}")
        );
        for (i, split) in splits.iter().enumerate() {
            let suffix = format!("@{}", split.name());
            let under = r
                .kernels
                .iter()
                .filter(|m| m.kernel.ends_with(&suffix) && !m.kernel.starts_with(AUTO_PREFIX))
                .filter_map(|m| Some((m.kernel.trim_end_matches(&suffix), m.median_ms?)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            let cell = match under {
                Some((k, ms)) => {
                    ratios[i].push(best_ms / ms);
                    let alg1 = r.speedup(ms).map_or("-".to_string(), |s| format!("{s:.2}"));
                    format!("{k} {ms:.4} ({:.2}, {alg1})", best_ms / ms)
                }
                None => "-".to_string(),
            };
            let _ = write!(text, " {cell:>30}");
        }
        text.push('\n');
    }
    for (split, r) in splits.iter().zip(&ratios) {
        if let Some(g) = bench::geomean(r.iter().copied()) {
            let _ = writeln!(
                text,
                "geomean driver best / {} best: {g:.3} over {} matrices",
                split.name(),
                r.len()
            );
        }
    }
    text
}
