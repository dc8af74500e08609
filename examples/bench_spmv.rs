//! The SpMV benchmark: every schedule of the loops `spmv` kernel against cuSPARSE (`cusparseSpMV`,
//! CSR ALG1 and ALG2) and a device-to-device copy of the model's bytes (the ceiling), on each matrix
//! of a set, on one device in one run. Every result is checked against the f64 CPU reference before
//! it is timed (outputs poisoned first) and again after.
//!
//!     cargo run --release --example bench_spmv                                   # generated set
//!     cargo run --release --example bench_spmv -- --corpus ../shared/data/matrices
//!     cargo run --release --example bench_spmv -- --f64 --reps 200 --out target/bench
//!
//! Writes to `--out` (default `target/bench`), named by set and precision (`generated_f32`, or the
//! corpus folder's name): `spmv_<set>_<prec>.csv`, `runtime_vs_nnz_<..>.svg`,
//! `runtime_panels_<..>.svg`, `speedup_<..>.svg` and `summary_<..>.txt` (the table and the
//! geomeans), rewritten after each matrix. Prints the table on stdout, progress on stderr. Exits
//! non-zero if any kernel's result is outside its error bound or any matrix could not be run.

mod bench;
mod kernels;

use std::error::Error;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::CudaGraph;
use indicatif::{ProgressBar, ProgressStyle};
use loops::prelude::*;
use loops::runtime::verify;

use bench::corpus::{self, Entry};
use bench::cusparse::{Alg, Cusparse, SpMv};
use bench::handwritten::{self, Handwritten};
use bench::{report, Kind, MatrixResult, Measurement, Reference, Timing, COPY, SEARCHED};
use kernels::spmv;

type BoxError = Box<dyn Error>;

#[derive(Parser)]
#[command(about = "SpMV: every loops schedule against cuSPARSE and the copy ceiling")]
struct Args {
    /// A folder of Matrix Market files (every .mtx and .mtx.gz in it). Without it: the generated
    /// default set.
    #[arg(long)]
    corpus: Option<PathBuf>,
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
    /// Only the matrices whose name contains this.
    #[arg(long)]
    only: Option<String>,
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
    loops::runtime::error::error_chain(e, ": ")
}

/// Host-side time one kernel's timing may take on one matrix before it gets fewer samples.
const KERNEL_BUDGET_MS: f64 = 3000.0;
/// The fewest samples a kernel's median is taken over.
const MIN_REPS: usize = 5;

/// Timing parameters.
struct Plan {
    reps: usize,
    warmup: usize,
    batch: usize,
}

/// Runs the whole set; returns the number of failures (kernels outside their bound or not run,
/// matrices that could not be built or read).
fn run<T: Float>(args: &Args) -> Result<usize, BoxError> {
    let mut entries = match &args.corpus {
        Some(dir) => corpus::from_dir(dir)
            .map_err(|e| format!("reading the corpus folder {}: {e}", dir.display()))?,
        None => corpus::default_set(),
    };
    if let Some(only) = &args.only {
        entries.retain(|e| e.name.contains(only.as_str()));
    }
    if entries.is_empty() {
        return Err("no matrices to run (an empty corpus folder, or --only matched none)".into());
    }
    let set = corpus::set_name(args.corpus.as_deref());
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
    };
    if args.reps < 50 {
        eprintln!(
            "note: --reps {} is below the 50 samples the medians are meant to have",
            args.reps
        );
    }
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
        cusparse
            .as_ref()
            .map_or("unavailable".to_string(), |c| c.version())
    );
    let _ = writeln!(
        head,
        "set      {set} ({} matrices), {precision} values, 32-bit indices, seed {}",
        entries.len(),
        args.seed
    );
    let _ = writeln!(
        head,
        "timing   CUDA events after {} warm-up launches, median of {} per-launch event pairs; matrices whose copy takes < {} ms: median of {} replays of a CUDA graph of {} launches (batches of plain launches where capture fails: the CSV's timing column), divided",
        plan.warmup, plan.reps, args.batch_below_ms, plan.reps, plan.batch
    );
    let _ = writeln!(
        head,
        "bytes    model: verify::spmv_bytes (f32, square: 8 nnz + 12 rows); copy: cuMemcpyDtoD of half of it (reads + writes = the model)"
    );
    let _ = writeln!(head, "output   {}", args.out.display());
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
    for entry in &entries {
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
        let summary = report::summary(&results);
        if let Err(e) = write_outputs(&args.out, &set, precision, &results, &log, &summary) {
            pb.suspend(|| eprintln!("writing the results to {}: {e}", args.out.display()));
            broken += 1;
        }
    }
    pb.finish_and_clear();

    let summary = report::summary(&results);
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

/// The copy ceiling: `cuMemcpyDtoDAsync` of `bytes` from one buffer to another.
struct Copy {
    src: DeviceBuffer<u64>,
    dst: DeviceBuffer<u64>,
    bytes: usize,
}

impl Copy {
    fn new(gpu: &Gpu, bytes: usize) -> Result<Copy, BoxError> {
        gpu.stream().context().bind_to_thread()?;
        let words = bytes.div_ceil(8);
        Ok(Copy {
            src: gpu.zeros::<u64>(words)?,
            dst: gpu.zeros::<u64>(words)?,
            bytes: words * 8,
        })
    }

    fn launch(&self, gpu: &Gpu) -> Result<(), BoxError> {
        if self.bytes == 0 {
            return Ok(());
        }
        // SAFETY: both are live allocations of `bytes` bytes made on this stream (stream order
        // covers their use); the stream's context is current on this thread (bound in `new`; the
        // benchmark launches from one thread).
        unsafe {
            cudarc::driver::sys::cuMemcpyDtoDAsync_v2(
                self.dst.device_ptr(),
                self.src.device_ptr(),
                self.bytes,
                gpu.stream().cu_stream(),
            )
        }
        .result()
        .map_err(|e| format!("cuMemcpyDtoDAsync of {} bytes: {e}", self.bytes))?;
        Ok(())
    }
}

/// Medians of `plan.reps` per-launch event pairs and, with `batch`, of `plan.reps` batches:
/// (reported ms, per-launch ms, how).
fn time_launches(
    gpu: &Gpu,
    plan: &Plan,
    batch: bool,
    launch: &mut dyn FnMut() -> Result<(), BoxError>,
) -> Result<(f64, f64, Timing), BoxError> {
    let timer = gpu.timer()?;
    // A kernel that is pathological on this matrix (one thread walking a million-entry row) gets
    // fewer samples: all of them would take minutes. The samples taken are reported.
    timer.start()?;
    launch()?;
    timer.stop()?;
    let first = timer.elapsed_ms()? as f64;
    let reps = if first * (plan.warmup + plan.reps) as f64 > KERNEL_BUDGET_MS {
        ((KERNEL_BUDGET_MS / first.max(1e-3)) as usize).clamp(MIN_REPS, plan.reps)
    } else {
        plan.reps
    };
    let warmup = if reps < plan.reps { 0 } else { plan.warmup };
    for _ in 0..warmup {
        launch()?;
    }
    let plan = &Plan {
        reps,
        warmup,
        batch: plan.batch,
    };
    let mut times = Vec::with_capacity(plan.reps);
    for _ in 0..plan.reps {
        timer.start()?;
        launch()?;
        timer.stop()?;
        times.push(timer.elapsed_ms()?);
    }
    let per_launch = verify::median(&mut times) as f64;
    if !batch {
        let how = Timing::PerLaunch { samples: plan.reps };
        return Ok((per_launch, per_launch, how));
    }
    times.clear();
    // A CUDA graph of `batch` launches, replayed: the kernels' own time, without the host's launch
    // overhead between them (a few microseconds, as long as these kernels). Where a launch cannot
    // be captured, batches of plain launches (host overhead included) are timed instead.
    let how = match capture(gpu, plan.batch, launch) {
        Ok(graph) => {
            graph.upload()?;
            graph.launch()?;
            for _ in 0..plan.reps {
                timer.start()?;
                graph.launch()?;
                timer.stop()?;
                times.push(timer.elapsed_ms()? / plan.batch as f32);
            }
            Timing::Graph {
                launches: plan.batch,
                samples: plan.reps,
            }
        }
        Err(_) => {
            for _ in 0..plan.reps {
                timer.start()?;
                for _ in 0..plan.batch {
                    launch()?;
                }
                timer.stop()?;
                times.push(timer.elapsed_ms()? / plan.batch as f32);
            }
            Timing::Batch {
                launches: plan.batch,
                samples: plan.reps,
            }
        }
    };
    Ok((verify::median(&mut times) as f64, per_launch, how))
}

/// `launches` launches captured from the device's stream into a CUDA graph. The capture is ended
/// (and the stream usable again) whatever happens inside it.
fn capture(
    gpu: &Gpu,
    launches: usize,
    launch: &mut dyn FnMut() -> Result<(), BoxError>,
) -> Result<CudaGraph, BoxError> {
    let stream = gpu.stream();
    // Relaxed: the launches may make calls a stricter mode refuses during a capture (none after
    // the warm-up, which allocated and compiled what they need).
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)?;
    let captured = (0..launches).try_for_each(|_| launch());
    let graph = stream.end_capture(CUgraphInstantiate_flags(0));
    captured?;
    Ok(graph?.ok_or("the capture recorded no work")?)
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
    } = upload_matrix::<T>(gpu, entry, args.seed, pb)?;

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
) -> Result<Uploaded<T>, BoxError> {
    let name = entry.name.as_str();
    pb.set_message(format!("{name}: building {}", entry.spec));
    let t = Instant::now();
    let a = entry.load::<T>(seed)?;
    let built = t.elapsed();
    let x: Vec<T> = loops::generate::random_vector(a.cols(), seed ^ 0x5eed);
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
    let result = MatrixResult::new::<T>(name, a.rows(), a.cols(), a.nnz());
    pb.suspend(|| {
        eprintln!(
            "{name}: {} x {}, {} nonzeros; {} in {built:.2?}, CPU reference {referenced:.2?}, upload {uploaded:.2?}",
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

/// Times the copy of half the model's `bytes`; returns its measurement and whether the matrix's
/// kernels are timed in batches (the copy took under `batch_below_ms`). The buffers are freed on
/// return.
fn measure_copy(
    gpu: &Gpu,
    plan: &Plan,
    bytes: u64,
    batch_below_ms: f64,
) -> Result<(Measurement, bool), BoxError> {
    let copy = Copy::new(gpu, (bytes / 2) as usize)?;
    let copy_ms = time_launches(gpu, plan, false, &mut || copy.launch(gpu));
    let batch = matches!(copy_ms, Ok((t, _, _)) if t < batch_below_ms);
    let copy_ms = if batch {
        time_launches(gpu, plan, true, &mut || copy.launch(gpu))
    } else {
        copy_ms
    };
    let m = match copy_ms {
        Ok((median, per_launch, timing)) => Measurement {
            kernel: COPY.to_string(),
            kind: Kind::Copy,
            median_ms: Some(median),
            per_launch_ms: Some(per_launch),
            timing,
            failure: None,
        },
        Err(e) => Measurement::failed(COPY, Kind::Copy, chain(e.as_ref())),
    };
    Ok((m, batch))
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
}

impl<T: Float> OnMatrix<'_, T> {
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
            self.pb.inc(1);
        }
        firsts
    }

    /// The controls, writing `y`: `merge_path` without the block starts kept with the matrix, and
    /// merge-path SpMV written by hand (the abstraction's cost).
    fn measure_controls(&self, y: &mut DeviceBuffer<T>, out: &mut Vec<Measurement>) {
        self.pb.set_message(format!("{}: {SEARCHED}", self.name));
        let mut searched = Schedule {
            schedule: "merge_path",
            a: self.a,
            x: self.x,
            y: &mut *y,
            searched: true,
        };
        out.push(self.measure(SEARCHED, Kind::Ablation, &mut searched).0);
        self.pb.inc(1);
        self.pb
            .set_message(format!("{}: {}", self.name, handwritten::NAME));
        let m = match Handwritten::new(self.gpu, self.a, self.x, y) {
            Ok(mut hw) => {
                self.measure(handwritten::NAME, Kind::Handwritten, &mut hw)
                    .0
            }
            Err(e) => Measurement::failed(handwritten::NAME, Kind::Handwritten, chain(e.as_ref())),
        };
        out.push(m);
        self.pb.inc(1);
    }

    /// cuSPARSE ALG1 and ALG2, each with its own output; a failed preprocessing is said and the
    /// SpMV timed without it.
    fn measure_cusparse(&self, cs: &Cusparse, out: &mut Vec<Measurement>) {
        let name = self.name;
        for alg in [Alg::CsrAlg1, Alg::CsrAlg2] {
            let kernel = alg.kernel_name();
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
