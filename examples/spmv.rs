//! Sparse matrix-vector product on the GPU, checked against a CPU reference and timed.
//!
//!     cargo run --release --example spmv                        # a generated power-law matrix
//!     cargo run --release --example spmv -- --matrix A.mtx      # a Matrix Market file
//!     cargo run --release --example spmv -- --schedule warp --f64 --reps 200
//!
//! Exits non-zero if any row of the result is outside its error bound.

use loops_kernels as kernels;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use loops::check;
use loops::prelude::*;

use kernels::spmv;

#[derive(Parser)]
#[command(about = "SpMV y = A x with the loops `spmv` kernel")]
struct Args {
    /// A Matrix Market file (.mtx or .mtx.gz). Without it: a generated power-law matrix.
    #[arg(long)]
    matrix: Option<PathBuf>,
    /// Rows (and columns) of the generated matrix.
    #[arg(long, default_value_t = 1 << 21)]
    rows: usize,
    /// Mean nonzeros per row of the generated matrix.
    #[arg(long, default_value_t = 16.0)]
    mean_nnz: f64,
    /// Give each generated row one run of contiguous columns (streaming reads of x) instead of
    /// random columns.
    #[arg(long)]
    contiguous: bool,
    /// Seed of the generated matrix and of x.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    /// The schedule: a name of `loops::SCHEDULES` (`examples/kernels/spmv.rs` is stamped under all
    /// of them). The default, `auto`, picks one from the matrix's shape.
    #[arg(long, default_value = "auto", value_parser = clap::builder::PossibleValuesParser::new(spmv::SCHEDULES))]
    schedule: String,
    /// Double precision instead of single.
    #[arg(long)]
    f64: bool,
    /// Timed repetitions (after a warm-up); the median is reported.
    #[arg(long, default_value_t = 50)]
    reps: usize,
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
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {}", loops::error_chain(&*e, "\n  caused by: "));
            ExitCode::FAILURE
        }
    }
}

/// Runs, checks and times the kernel; returns the number of rows outside their error bound.
fn run<T: Float>(args: &Args) -> Result<usize, Box<dyn std::error::Error>> {
    let started = Instant::now();
    let (name, a) = match &args.matrix {
        Some(path) => (
            path.display().to_string(),
            loops::io::mtx::read_csr::<T>(path)?,
        ),
        None => (
            format!(
                "power-law {} rows, mean {} nnz/row, {} columns (seed {})",
                args.rows,
                args.mean_nnz,
                if args.contiguous {
                    "contiguous"
                } else {
                    "random"
                },
                args.seed
            ),
            loops::io::generate::power_law::<T>(
                args.rows,
                args.rows,
                args.mean_nnz,
                2.0,
                args.contiguous,
                args.seed,
            ),
        ),
    };
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), args.seed ^ 0x5eed);
    println!("matrix   {name}");
    println!(
        "shape    {} x {}, {} nonzeros (prepared in {:.2?})",
        a.rows(),
        a.cols(),
        a.nnz(),
        started.elapsed()
    );

    let gpu = Gpu::new(0)?;
    println!("device   {}", gpu.name());
    let da = gpu.upload_csr(&a)?;
    let dx = gpu.upload(&x)?;
    let mut dy = gpu.zeros::<T>(a.rows())?;
    gpu.fill(&mut dy, T::POISON)?;

    let schedule = args.schedule.as_str();
    if schedule == "auto" {
        let auto = &spmv::auto::spmv::KERNEL;
        for pick in auto
            .planned_variants(da.stats(), da.is_wide())
            .unwrap_or_default()
        {
            println!(
                "auto     picks {} for this matrix",
                auto.variants[pick].config.describe()
            );
        }
    }
    let first = Instant::now();
    spmv::launch(schedule, &gpu, &da, &dx, &mut dy)?;
    gpu.synchronize()?;
    println!(
        "first    {:.2?} (NVRTC compile + load + launch)",
        first.elapsed()
    );

    let y = gpu.download(&dy)?;
    let check = check::check_spmv(&a, &x, &y);
    println!("check    {check}");

    for _ in 0..5 {
        spmv::launch(schedule, &gpu, &da, &dx, &mut dy)?;
    }
    let mut times = Vec::with_capacity(args.reps);
    let timer = gpu.timer()?;
    for _ in 0..args.reps.max(1) {
        timer.start()?;
        spmv::launch(schedule, &gpu, &da, &dx, &mut dy)?;
        timer.stop()?;
        times.push(timer.elapsed_ms()?);
    }
    let median = check::median(&mut times);
    let bytes = check::spmv_bytes::<T>(a.rows(), a.cols(), a.nnz());
    println!(
        "time     {median:.4} ms median of {} (schedule {schedule}, {}), {:.1} GB/s effective",
        times.len(),
        T::RUST_NAME,
        bytes as f64 / (median as f64 * 1e-3) / 1e9
    );
    println!("errors   {}", check.bad_rows);
    Ok(check.bad_rows)
}
