//! Scaling of the distributed products (`loops::runtime::multi`) over the GPUs of one host: SpMV
//! on a banded matrix and an R-MAT matrix split over 1, 2, 4, ... GPUs (strong scaling), the same
//! with the rows growing with the GPUs (weak scaling), and a distributed BFS. Every result is
//! checked against the CPU first. Times are wall clock around a product and the wait for every
//! GPU (events on one stream cannot time several GPUs), median of `--reps` after warm-up; the
//! 1-GPU line of each matrix is the baseline of its speedups. Prints a table, writes CSV.
//!
//!     cargo run --release --example bench_multi                      # every GPU, default sizes
//!     cargo run --release --example bench_multi -- --nnz 2e9         # the R-MAT size
//!     cargo run --release --example bench_multi -- --simulate 4      # 4 parts on one GPU (plumbing only)
//!
//! NCCL (libnccl) must be loadable when there are several GPUs; NVLink multicast stays off.

mod kernels;

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use loops::prelude::*;
use loops::runtime::multi::{Exchange, GpuGroup};
use loops::runtime::verify;

#[derive(Parser)]
#[command(about = "Distributed SpMV and BFS: strong and weak scaling over the host's GPUs")]
struct Args {
    /// Nonzeros of the strong-scaling matrices (the weak-scaling ones have this much per GPU / GPUs).
    #[arg(long, default_value_t = 2e8)]
    nnz: f64,
    /// Schedule of the SpMV kernel on each part (a module of examples/kernels/spmv.rs).
    #[arg(long, default_value = "merge_path")]
    schedule: String,
    /// Timed repetitions per case (median reported), after 3 warm-ups.
    #[arg(long, default_value_t = 20)]
    reps: usize,
    /// Run P parts on GPU 0 instead of one part per GPU: checks the plumbing, measures no scaling.
    #[arg(long)]
    simulate: Option<usize>,
    /// Skip the CPU check (for the largest sizes, where it takes minutes).
    #[arg(long)]
    no_check: bool,
    /// Output folder for the CSV.
    #[arg(long, default_value = "examples/bench/results/multi")]
    out: PathBuf,
}

type Spmv =
    fn(&Gpu, &DeviceCsr<f32>, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>) -> loops::Result<()>;

fn kernel(schedule: &str) -> Option<Spmv> {
    use kernels::spmv;
    Some(match schedule {
        "thread" => spmv::thread::spmv::<f32>,
        "warp" => spmv::warp::spmv::<f32>,
        "merge_path" => spmv::merge_path::spmv::<f32>,
        "auto" => spmv::auto::spmv::<f32>,
        _ => return None,
    })
}

/// Generates one benchmark matrix (late, so only one is in memory at a time).
type MakeMatrix = dyn Fn() -> sprs::CsMat<f32>;

struct Row {
    case: String,
    gpus: usize,
    exchange: &'static str,
    ms: f64,
    speedup: f64,
    bytes: usize,
}

fn main() -> std::process::ExitCode {
    match run(&Args::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let spmv = kernel(&args.schedule).ok_or("--schedule: thread, warp, merge_path or auto")?;
    let devices = Gpu::count()?;
    let counts: Vec<usize> = match args.simulate {
        Some(p) => vec![1, p],
        None => std::iter::successors(Some(1), |&g| Some(g * 2))
            .take_while(|&g| g <= devices)
            .collect(),
    };
    let gpu0 = Gpu::new(0)?;
    println!(
        "{} device(s) ({}); parts: {counts:?}{}; SpMV kernel {}; {} reps; NCCL_NVLS_ENABLE={}",
        devices,
        gpu0.name(),
        if args.simulate.is_some() {
            " on GPU 0 (simulated: no scaling is measured)"
        } else {
            ""
        },
        args.schedule,
        args.reps,
        std::env::var("NCCL_NVLS_ENABLE")
            .unwrap_or_else(|_| "unset (set to 0 by the library)".into()),
    );
    let groups: Vec<GpuGroup> = counts
        .iter()
        .map(|&g| match args.simulate {
            Some(_) => GpuGroup::on_one_gpu(&gpu0, g),
            None => GpuGroup::new(&(0..g).collect::<Vec<_>>()),
        })
        .collect::<loops::Result<_>>()?;
    let nnz = args.nnz as usize;
    let mut rows = Vec::new();
    // Strong scaling: one matrix, more GPUs.
    let band = 16usize;
    let banded_rows = nnz / (2 * band + 1);
    let scale = ((nnz / 16).max(2) as f64).log2().round() as u32;
    let strong: Vec<(String, Box<MakeMatrix>)> = vec![
        (
            format!("banded {banded_rows} rows, band {band}"),
            Box::new(move || loops::generate::banded(banded_rows, band, 1)),
        ),
        (
            format!("R-MAT scale {scale}, 16 edges/vertex"),
            Box::new(move || loops::generate::rmat(scale, 16, 2)),
        ),
    ];
    for (name, make) in &strong {
        let t = Instant::now();
        let a = make();
        println!(
            "{name}: {} nnz, generated in {:.1} s",
            a.nnz(),
            t.elapsed().as_secs_f64()
        );
        measure(
            args,
            &groups,
            spmv,
            &format!("strong {name}"),
            &a,
            &mut rows,
        )?;
    }
    // Weak scaling: the banded matrix with rows proportional to the GPUs.
    for group in &groups {
        let g = group.parts();
        let a = loops::generate::banded::<f32>(banded_rows / counts.last().unwrap() * g, band, 3);
        measure(
            args,
            std::slice::from_ref(group),
            spmv,
            &format!("weak banded, {} rows/GPU", a.rows() / g),
            &a,
            &mut rows,
        )?;
    }
    // A weak-scaling line's "speedup" is its efficiency: the 1-GPU time over its own.
    for i in 0..rows.len() {
        if rows[i].case.starts_with("weak") {
            let one = rows.iter().find(|r| {
                r.case.starts_with("weak") && r.gpus == 1 && r.exchange == rows[i].exchange
            });
            rows[i].speedup = one.map_or(f64::NAN, |r| r.ms) / rows[i].ms;
        }
    }
    bfs(args, &groups, scale, &mut rows)?;
    print_and_write(args, &rows)
}

/// Times SpMV with both exchanges on every group; the first group (one part) is the baseline.
fn measure(
    args: &Args,
    groups: &[GpuGroup],
    spmv: Spmv,
    case: &str,
    a: &sprs::CsMat<f32>,
    rows: &mut Vec<Row>,
) -> Result<(), Box<dyn std::error::Error>> {
    let x = loops::generate::random_vector::<f32>(a.cols(), 9);
    let mut base = None;
    for group in groups {
        let mut da = group.upload_csr(a)?;
        let dx = group.scatter(&da, &x, 1)?;
        let mut dy = group.zeros(&da, 1)?;
        for (exchange, label) in [
            (Exchange::PointToPoint, "p2p"),
            (Exchange::AllGather, "all-gather"),
        ] {
            group.spmv(&mut da, spmv, &dx, &mut dy, exchange)?;
            group.synchronize()?;
            if !args.no_check {
                let check = verify::check_spmv(a, &x, &group.gather(&dy)?);
                if !check.passed() {
                    return Err(format!("{case}, {} parts, {label}: {check}", group.parts()).into());
                }
            }
            let mut times = Vec::with_capacity(args.reps);
            for i in 0..args.reps + 3 {
                let t = Instant::now();
                group.spmv(&mut da, spmv, &dx, &mut dy, exchange)?;
                group.synchronize()?;
                if i >= 3 {
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                }
            }
            times.sort_by(|a, b| a.total_cmp(b));
            let ms = times[times.len() / 2];
            let base_ms = *base.get_or_insert(ms);
            rows.push(Row {
                case: case.to_string(),
                gpus: group.parts(),
                exchange: label,
                ms,
                speedup: base_ms / ms,
                bytes: group.exchange_bytes(&da, 1, exchange),
            });
        }
    }
    Ok(())
}

fn bfs(
    args: &Args,
    groups: &[GpuGroup],
    scale: u32,
    rows: &mut Vec<Row>,
) -> Result<(), Box<dyn std::error::Error>> {
    let scale = scale.min(24);
    let g =
        loops::graph::Graph::from_pattern(&loops::generate::kronecker::<f32>(scale, 16, 4), 1, 4)?;
    let source = g.max_degree_vertex().unwrap_or(0);
    let want = loops::graph::bfs_levels(&g, source);
    let mut base = None;
    for group in groups {
        let mut dg = group.upload_graph(&g)?;
        let mut times = Vec::new();
        let mut bytes = 0;
        for i in 0..args.reps.min(10) + 2 {
            let t = Instant::now();
            let (levels, stats) = group.bfs(&mut dg, source, kernels::bfs::warp::bfs)?;
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if i == 0 {
                loops::graph::compare("levels", &want, &levels)?;
            }
            if i >= 2 {
                times.push(ms);
            }
            bytes = stats.exchanged_bytes as usize;
        }
        times.sort_by(|a, b| a.total_cmp(b));
        let ms = times[times.len() / 2];
        let base_ms = *base.get_or_insert(ms);
        rows.push(Row {
            case: format!("BFS Kronecker {scale} (warp step)"),
            gpus: group.parts(),
            exchange: "all-reduce",
            ms,
            speedup: base_ms / ms,
            bytes,
        });
    }
    Ok(())
}

fn print_and_write(args: &Args, rows: &[Row]) -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "\n{:<52} {:>5} {:>11} {:>10} {:>8} {:>14}",
        "case", "GPUs", "exchange", "ms", "speedup", "bytes/step"
    );
    for r in rows {
        println!(
            "{:<52} {:>5} {:>11} {:>10.3} {:>7.2}x {:>14}",
            r.case, r.gpus, r.exchange, r.ms, r.speedup, r.bytes
        );
    }
    std::fs::create_dir_all(&args.out)?;
    let path = args.out.join("multi.csv");
    let mut f = std::fs::File::create(&path)?;
    writeln!(f, "case,gpus,exchange,ms,speedup,bytes_per_step")?;
    for r in rows {
        writeln!(
            f,
            "\"{}\",{},{},{:.6},{:.4},{}",
            r.case, r.gpus, r.exchange, r.ms, r.speedup, r.bytes
        )?;
    }
    println!("CSV: {}", path.display());
    Ok(())
}
