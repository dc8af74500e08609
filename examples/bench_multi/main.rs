//! Scaling of the distributed products (`loops::multi`) over the GPUs of one host: SpMV
//! on a banded matrix and an R-MAT matrix split over 1, 2, 4, ... GPUs (strong scaling), SpMM at
//! k = 32 and 128 on the same matrices, the banded SpMV with the rows growing with the GPUs (weak
//! scaling), and a distributed BFS on Kronecker and road graphs; with `--huge-nnz`, an SpMV on a
//! matrix no one GPU can hold, generated part by part where it is uploaded. Every result is
//! checked against the CPU first (the huge one on sampled rows). Times are wall clock around a
//! product and the wait for every GPU (events on one stream cannot time several GPUs), median of
//! `--reps` after warm-up; the 1-GPU line of each case is the baseline of its speedups. Each
//! product line also gives the bytes exchanged per step and the share of the exchange hidden
//! behind the local blocks' product: `1 - (T - T_local - T_remote) / T_exchange`, each phase
//! timed alone. Prints a table, writes CSV and an SVG plot of speedup against GPUs.
//!
//!     cargo run --release --example bench_multi                      # every GPU, default sizes
//!     cargo run --release --example bench_multi -- --nnz 2e9         # the R-MAT size
//!     cargo run --release --example bench_multi -- --huge-nnz 7e9    # larger than one GPU (f64)
//!     cargo run --release --example bench_multi -- --simulate 4      # 4 parts on one GPU (plumbing only)
//!
//! NCCL (libnccl) must be loadable when there are several GPUs; NVLink multicast stays off.

use loops_kernels as kernels;

mod huge;
mod huge_bfs;

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use loops::check;
use loops::multi::{Exchange, GpuGroup};
use loops::prelude::*;

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
    /// Only these GPU counts (e.g. `1,2,4`); default 1, 2, 4, ... up to every GPU.
    #[arg(long, value_delimiter = ',')]
    gpus: Vec<usize>,
    /// Columns of the SpMM cases (none: no SpMM).
    #[arg(long, value_delimiter = ',', default_value = "32,128")]
    spmm_k: Vec<usize>,
    /// Vertices of the road networks of the BFS cases (one case each).
    #[arg(long, value_delimiter = ',', default_value = "1000000,4000000")]
    road: Vec<usize>,
    /// Levels the distributed BFS queues between two waits of the host
    /// (`DistGraph::set_levels_per_check`; 1: a wait every level), each measured in the same run.
    #[arg(long, value_delimiter = ',', default_value = "1,64")]
    bfs_levels_per_check: Vec<usize>,
    /// Exchanges of the BFS's flags, each measured: `reduce-scatter` (NCCL) and `peer` (each part
    /// sends its flags to their owners over NVLink, `LOOPS_MULTI_PEER=1`).
    #[arg(long, value_delimiter = ',', default_value = "reduce-scatter,peer")]
    bfs_exchanges: Vec<String>,
    /// Also a BFS on random matchings of `2^scale` vertices (`loops::multi::synthetic`) over every
    /// GPU, each part made where it is uploaded, checked the Graph500 way on sampled vertices; the
    /// point is a graph larger than one GPU's memory (30 with degree 40: 166 GB of edges).
    #[arg(long)]
    huge_bfs_scale: Option<u32>,
    /// Matchings (edges a vertex) of `--huge-bfs-scale`.
    #[arg(long, default_value_t = 40)]
    huge_bfs_degree: u32,
    /// Run only the `--huge-bfs-scale` case.
    #[arg(long)]
    huge_bfs_only: bool,
    /// Also an f64 SpMV on a generated matrix of this many nonzeros over every GPU, each part made
    /// where it is uploaded (16 per row: 90% within 1024 of the diagonal, 10% anywhere), checked
    /// on sampled rows; the point is a matrix larger than one GPU's memory (7e9: 84 GB).
    #[arg(long)]
    huge_nnz: Option<f64>,
    /// Run only the `--huge-nnz` case.
    #[arg(long)]
    huge_only: bool,
    /// Push steps of the distributed BFS, each measured in the same run: a schedule of
    /// src/graph/bfs.rs's `#[for_schedules(core)]` (`warp`, `merge_path`, `work_oriented`,
    /// `auto`, ...), or `by_degree` (`warp` at levels without a vertex of `HUB_DEGREE` out-edges,
    /// `work_oriented` at the others: `loops::multi::ByDegree`).
    #[arg(
        long,
        alias = "bfs-step",
        value_delimiter = ',',
        default_value = "by_degree,warp,merge_path,work_oriented"
    )]
    bfs_steps: Vec<String>,
    /// Which cases: spmv, spmm, weak, bfs.
    #[arg(long, value_delimiter = ',', default_value = "spmv,spmm,weak,bfs")]
    cases: Vec<String>,
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

/// Prints a measured line at once (progress on long runs), then keeps it for the table.
fn record(rows: &mut Vec<Row>, row: Row) {
    println!(
        "  {:<58} {} GPU(s) {:>11}: {:.3} ms ({}){}{}{}",
        row.case,
        row.gpus,
        row.exchange,
        row.ms,
        if row.speedup.is_finite() {
            format!("{:.2}x", row.speedup)
        } else {
            "no 1-GPU baseline".into()
        },
        row.hidden.map_or(String::new(), |h| format!(
            ", {:.0}% of the exchange hidden",
            100.0 * h
        )),
        row.download
            .map_or(String::new(), |d| format!(", download {d:.3} ms apart")),
        row.per_level_us
            .map_or(String::new(), |u| format!(", {u:.1} us a level"))
    );
    rows.push(row);
}

struct Row {
    case: String,
    gpus: usize,
    exchange: &'static str,
    ms: f64,
    speedup: f64,
    bytes: usize,
    /// The share of the exchange hidden behind the local product.
    hidden: Option<f64>,
    /// Local block, remote block and exchange alone, ms.
    phases: Option<(f64, f64, f64)>,
    /// A BFS's download of its levels (every part's) to the host, ms: not in `ms`.
    download: Option<f64>,
    /// A BFS's time over its levels, us.
    per_level_us: Option<f64>,
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
        None if !args.gpus.is_empty() => args.gpus.clone(),
        None => std::iter::successors(Some(1), |&g| Some(g * 2))
            .take_while(|&g| g <= devices)
            .collect(),
    };
    if let Some(&g) = counts
        .iter()
        .find(|&&g| g == 0 || (args.simulate.is_none() && g > devices))
    {
        return Err(format!("--gpus: {g} of {devices} GPU(s)").into());
    }
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
    if let Some(scale) = args.huge_bfs_scale {
        let all = groups.last().expect("at least one group");
        huge_bfs::run(scale, args.huge_bfs_degree, all, args.reps, &mut rows)?;
        if args.huge_bfs_only {
            return print_and_write(args, &rows);
        }
    }
    if let Some(huge) = args.huge_nnz {
        let all = groups.last().expect("at least one group");
        huge::run(huge as usize, all, &mut rows)?;
        if args.huge_only {
            return print_and_write(args, &rows);
        }
    }
    // Strong scaling: one matrix, more GPUs.
    let band = 16usize;
    let banded_rows = nnz / (2 * band + 1);
    let scale = ((nnz / 16).max(2) as f64).log2().round() as u32;
    let strong: Vec<(String, Box<MakeMatrix>)> = vec![
        (
            format!("banded {banded_rows} rows, band {band}"),
            Box::new(move || loops::io::generate::banded(banded_rows, band, 1)),
        ),
        (
            format!("R-MAT scale {scale}, 16 edges/vertex"),
            Box::new(move || loops::io::generate::rmat(scale, 16, 2)),
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
        if args.cases.iter().any(|c| c == "spmv") {
            measure(
                args,
                &groups,
                spmv,
                &format!("strong {name}"),
                &a,
                &mut rows,
            )?;
        }
        let spmm = args.cases.iter().any(|c| c == "spmm");
        for &k in args.spmm_k.iter().filter(|_| spmm) {
            measure_spmm(
                args,
                &groups,
                k,
                &format!("SpMM k={k} {name}"),
                &a,
                &mut rows,
            )?;
        }
    }
    // Weak scaling: the banded matrix with rows proportional to the GPUs.
    let weak = args.cases.iter().any(|c| c == "weak");
    for group in groups.iter().filter(|_| weak) {
        let g = group.parts();
        let a =
            loops::io::generate::banded::<f32>(banded_rows / counts.last().unwrap() * g, band, 3);
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
    if args.cases.iter().any(|c| c == "bfs") {
        bfs(args, &groups, scale, &mut rows)?;
    }
    print_and_write(args, &rows)
}

/// Median wall time of `f` (ms) over `reps` runs after 3 warm-ups.
fn median_ms(reps: usize, mut f: impl FnMut() -> loops::Result<()>) -> loops::Result<f64> {
    let mut times = Vec::with_capacity(reps);
    for i in 0..reps + 3 {
        let t = Instant::now();
        f()?;
        if i >= 3 {
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(times[times.len() / 2])
}

/// The block product of a case: SpMV (`k == 1`) or SpMM written with a `lanes` loop over the columns
/// under `warp` (`examples/kernels/spmm.rs`), not the plain Listing 4 kernel, whose threads walk the
/// columns one after another.
fn block_product(
    spmv: Spmv,
    k: usize,
) -> impl Fn(&Gpu, &DeviceCsr<f32>, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>) -> loops::Result<()>
{
    move |gpu, a, x, y| match k {
        1 => spmv(gpu, a, x, y),
        _ => kernels::spmm::lanes::warp::spmm::<f32>(gpu, a, x, y, k),
    }
}

/// Times one product with both exchanges on every group, and each phase alone; the first group
/// (one part) is the baseline.
fn measure_k(
    args: &Args,
    groups: &[GpuGroup],
    (spmv, k): (Spmv, usize),
    case: &str,
    a: &sprs::CsMat<f32>,
    rows: &mut Vec<Row>,
) -> Result<(), Box<dyn std::error::Error>> {
    let x = loops::io::generate::random_vector::<f32>(a.cols() * k, 9);
    let product = block_product(spmv, k);
    let mut base = None;
    for group in groups {
        let mut da = group.upload_csr(a)?;
        let dx = group.scatter(&da, &x, k)?;
        let mut dy = group.zeros(&da, k)?;
        // The local and remote blocks alone (remote: on a vector of the ghosts' length).
        let mut scratch = Vec::new();
        for p in group.local_parts() {
            let ghosts = group.gpu(p).zeros::<f32>(da.ghosts(p).max(1) * k)?;
            let out = group.gpu(p).zeros::<f32>(dx.part(p).len().max(1))?;
            scratch.push((ghosts, out));
        }
        let local_ms = median_ms(args.reps, || {
            for (p, (_, out)) in group.local_parts().zip(&mut scratch) {
                if !dx.part(p).is_empty() {
                    product(group.gpu(p), da.local(p), dx.part(p), out)?;
                }
            }
            group.synchronize()
        })?;
        let remote_ms = median_ms(args.reps, || {
            for (p, (ghosts, out)) in group.local_parts().zip(&mut scratch) {
                if let Some(r) = da.remote(p) {
                    product(group.gpu(p), r, ghosts, out)?;
                }
            }
            group.synchronize()
        })?;
        for (exchange, label) in [
            (Exchange::PointToPoint, "p2p"),
            (Exchange::AllGather, "all-gather"),
        ] {
            let run = |da: &mut _, dy: &mut _| match k {
                1 => group.spmv(da, spmv, &dx, dy, exchange),
                _ => group.spmm(
                    da,
                    kernels::spmm::lanes::warp::spmm::<f32>,
                    &dx,
                    dy,
                    exchange,
                ),
            };
            for p in group.local_parts() {
                group.gpu(p).fill(dy.part_mut(p), f32::NAN)?;
            }
            run(&mut da, &mut dy)?;
            group.synchronize()?;
            if !args.no_check {
                let got = group.gather(&dy)?;
                // SpMM: the first, a middle and the last column (each a full SpMV on the CPU).
                let columns: Vec<usize> = if k <= 3 {
                    (0..k).collect()
                } else {
                    vec![0, k / 2, k - 1]
                };
                for j in columns {
                    let xj: Vec<f32> = (0..a.cols()).map(|i| x[i * k + j]).collect();
                    let yj: Vec<f32> = (0..a.rows()).map(|i| got[i * k + j]).collect();
                    let check = check::check_spmv(a, &xj, &yj);
                    if !check.passed() {
                        let what = format!("{case}, {} parts, {label}, column {j}", group.parts());
                        return Err(format!("{what}: {check}").into());
                    }
                }
            }
            let ms = median_ms(args.reps, || {
                run(&mut da, &mut dy)?;
                group.synchronize()
            })?;
            let exchange_ms = median_ms(args.reps, || {
                group.exchange_alone(&mut da, &dx, exchange)?;
                group.synchronize()
            })?;
            let base_ms = *base.get_or_insert(ms);
            let exposed = (ms - local_ms - remote_ms).max(0.0);
            record(
                rows,
                Row {
                    case: case.to_string(),
                    gpus: group.parts(),
                    exchange: label,
                    ms,
                    speedup: base_ms / ms,
                    bytes: group.exchange_bytes(&da, k, exchange),
                    hidden: (group.parts() > 1 && exchange_ms > 0.0)
                        .then(|| (1.0 - exposed / exchange_ms).clamp(0.0, 1.0)),
                    phases: Some((local_ms, remote_ms, exchange_ms)),
                    download: None,
                    per_level_us: None,
                },
            );
        }
    }
    Ok(())
}

fn measure(
    args: &Args,
    groups: &[GpuGroup],
    spmv: Spmv,
    case: &str,
    a: &sprs::CsMat<f32>,
    rows: &mut Vec<Row>,
) -> Result<(), Box<dyn std::error::Error>> {
    measure_k(args, groups, (spmv, 1), case, a, rows)
}

fn measure_spmm(
    args: &Args,
    groups: &[GpuGroup],
    k: usize,
    case: &str,
    a: &sprs::CsMat<f32>,
    rows: &mut Vec<Row>,
) -> Result<(), Box<dyn std::error::Error>> {
    let spmv = kernels::spmv::thread::spmv::<f32>;
    measure_k(args, groups, (spmv, k), case, a, rows)
}

/// The distributed BFS on a Kronecker graph and road networks, each push step of `--bfs-steps`,
/// each exchange of `--bfs-exchanges` and each `--bfs-levels-per-check` over each GPU count: the
/// search timed to its end on every GPU (the levels left on the devices), the download of the
/// levels timed apart; the first run of each checked against the CPU. The baseline of a line is
/// the 1-GPU line of the same step and levels per check.
fn bfs(
    args: &Args,
    groups: &[GpuGroup],
    scale: u32,
    rows: &mut Vec<Row>,
) -> Result<(), Box<dyn std::error::Error>> {
    use loops::multi::{ByDegree, PushStep};
    type Step = fn(
        &Gpu,
        &loops::DeviceOffsets,
        &DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
    ) -> loops::Result<()>;
    let scale = scale.min(24);
    let t = Instant::now();
    let mut graphs = vec![(
        format!("BFS Kronecker {scale}"),
        loops::graph::Graph::from_pattern(
            &loops::io::generate::kronecker::<f32>(scale, 16, 4),
            1,
            4,
        )?,
    )];
    for &road in &args.road {
        graphs.push((
            format!("BFS road {road} vertices"),
            loops::graph::Graph::from_pattern(&loops::io::generate::road::<f32>(road, 5), 1, 5)?,
        ));
    }
    println!("BFS graphs generated in {:.1} s", t.elapsed().as_secs_f64());
    let by_degree = ByDegree {
        light: loops::graph::bfs::warp::bfs as Step,
        heavy: loops::graph::bfs::work_oriented::bfs as Step,
        heavy_from: loops::multi::HUB_DEGREE,
    };
    for (case, g) in &graphs {
        let source = g.max_degree_vertex().unwrap_or(0);
        let want = loops::graph::bfs_levels(g, source);
        let mut base = std::collections::HashMap::new();
        for exchange in &args.bfs_exchanges {
            let peer = match exchange.as_str() {
                "reduce-scatter" => false,
                "peer" => true,
                other => return Err(format!("--bfs-exchanges: {other}").into()),
            };
            for group in groups {
                if peer {
                    std::env::set_var("LOOPS_MULTI_PEER", "1");
                }
                let mut dg = group.upload_graph(g)?;
                std::env::remove_var("LOOPS_MULTI_PEER");
                for &per_check in &args.bfs_levels_per_check {
                    dg.set_levels_per_check(per_check);
                    for name in &args.bfs_steps {
                        let by_name =
                            |gpu: &Gpu,
                             g: &loops::DeviceOffsets,
                             adj: &DeviceBuffer<u32>,
                             frontier: &DeviceBuffer<u32>,
                             levels: &mut DeviceBuffer<u32>,
                             next: &mut DeviceBuffer<u32>| {
                                loops::graph::bfs::launch(name, gpu, g, adj, frontier, levels, next)
                            };
                        let step: &dyn PushStep = if name == "by_degree" {
                            &by_degree
                        } else {
                            &by_name
                        };
                        let (mut times, mut downloads) = (Vec::new(), Vec::new());
                        let mut stats = loops::multi::DistBfsStats::default();
                        for i in 0..args.reps.min(10) + 2 {
                            let t = Instant::now();
                            let (levels, s) = group.bfs(&mut dg, source, step)?;
                            group.synchronize()?;
                            let ms = t.elapsed().as_secs_f64() * 1e3;
                            let t = Instant::now();
                            let host = group.gather(&levels)?;
                            let download = t.elapsed().as_secs_f64() * 1e3;
                            if i == 0 {
                                loops::graph::compare("levels", &want, &host)?;
                            }
                            if i >= 2 {
                                times.push(ms);
                                downloads.push(download);
                            }
                            stats = s;
                        }
                        let median = |v: &mut Vec<f64>| {
                            v.sort_by(|a, b| a.total_cmp(b));
                            v[v.len() / 2]
                        };
                        let ms = median(&mut times);
                        let base_ms = *base.entry((name.clone(), per_check)).or_insert(ms);
                        let label = if group.parts() == 1 {
                            format!("- {per_check}/wait")
                        } else {
                            format!("{exchange} {per_check}/wait")
                        };
                        record(
                            rows,
                            Row {
                                case: format!(
                                    "{case} ({name} step), {} levels, {} waits",
                                    stats.levels, stats.host_waits
                                ),
                                gpus: group.parts(),
                                exchange: Box::leak(label.into_boxed_str()),
                                ms,
                                speedup: base_ms / ms,
                                bytes: (stats.exchanged_bytes / stats.queued_levels.max(1) as u64)
                                    as usize,
                                hidden: None,
                                phases: None,
                                download: Some(median(&mut downloads)),
                                per_level_us: Some(ms * 1e3 / stats.levels.max(1) as f64),
                            },
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

fn print_and_write(args: &Args, rows: &[Row]) -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "\n{:<58} {:>5} {:>18} {:>10} {:>8} {:>14} {:>7} {:>26} {:>12} {:>9}",
        "case",
        "GPUs",
        "exchange",
        "ms",
        "speedup",
        "bytes/step",
        "hidden",
        "local/remote/exchange ms",
        "download ms",
        "us/level"
    );
    for r in rows {
        let hidden = r
            .hidden
            .map_or("-".into(), |h| format!("{:.0}%", 100.0 * h));
        let phases = r
            .phases
            .map_or("-".into(), |(l, m, x)| format!("{l:.3}/{m:.3}/{x:.3}"));
        let download = r.download.map_or("-".into(), |d| format!("{d:.3}"));
        let speedup = if r.speedup.is_finite() {
            format!("{:.2}x", r.speedup)
        } else {
            "-".into()
        };
        let per_level = r.per_level_us.map_or("-".into(), |u| format!("{u:.1}"));
        println!(
            "{:<58} {:>5} {:>18} {:>10.3} {:>8} {:>14} {:>7} {:>26} {:>12} {:>9}",
            r.case, r.gpus, r.exchange, r.ms, speedup, r.bytes, hidden, phases, download, per_level
        );
    }
    std::fs::create_dir_all(&args.out)?;
    let path = args.out.join("multi.csv");
    let mut f = std::fs::File::create(&path)?;
    writeln!(
        f,
        "case,gpus,exchange,ms,speedup,bytes_per_step,hidden_share,local_ms,remote_ms,exchange_ms,\
         download_ms,us_per_level"
    )?;
    for r in rows {
        let (l, m, x) = r.phases.unwrap_or((f64::NAN, f64::NAN, f64::NAN));
        writeln!(
            f,
            "\"{}\",{},{},{:.6},{:.4},{},{:.4},{l:.6},{m:.6},{x:.6},{:.6},{:.3}",
            r.case,
            r.gpus,
            r.exchange,
            r.ms,
            r.speedup,
            r.bytes,
            r.hidden.unwrap_or(f64::NAN),
            r.download.unwrap_or(f64::NAN),
            r.per_level_us.unwrap_or(f64::NAN)
        )?;
    }
    let svg = args.out.join("multi_speedup.svg");
    std::fs::write(&svg, plot(rows))?;
    println!("CSV: {}\nplot: {}", path.display(), svg.display());
    Ok(())
}

/// Speedup against GPUs, one line per case and exchange, with the ideal line dashed.
fn plot(rows: &[Row]) -> String {
    use std::fmt::Write as _;
    let (w, h, left, bottom) = (900.0, 460.0, 40.0, 40.0);
    let most = rows.iter().map(|r| r.gpus).max().unwrap_or(1).max(2) as f64;
    let finite = rows.iter().map(|r| r.speedup).filter(|s| s.is_finite());
    let top = finite.fold(most, f64::max);
    let x = |g: f64| left + (g - 1.0) / (most - 1.0) * (w - left - 420.0);
    let y = |s: f64| h - bottom - s / top * (h - bottom - 20.0);
    let mut svg = format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' \
         font-family='sans-serif' font-size='11'>\n\
         <text x='{left}' y='14'>speedup over 1 GPU against GPUs (bench_multi)</text>\n\
         <line x1='{}' y1='{}' x2='{}' y2='{}' stroke='#aaa' stroke-dasharray='4'/>\n",
        x(1.0),
        y(1.0),
        x(most),
        y(most)
    );
    for g in 1..=most as usize {
        let (gx, gy) = (x(g as f64) - 3.0, h - 20.0);
        let _ = writeln!(svg, "<text x='{gx}' y='{gy}'>{g}</text>");
    }
    let colours = [
        "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
        "#9c755f", "#bab0ac",
    ];
    let mut keys: Vec<(String, &str)> = Vec::new();
    for r in rows.iter().filter(|r| r.speedup.is_finite()) {
        if !keys.iter().any(|(c, e)| *c == r.case && *e == r.exchange) {
            keys.push((r.case.clone(), r.exchange));
        }
    }
    for (i, (case, exchange)) in keys.iter().enumerate() {
        let c = colours[i % colours.len()];
        let pts: Vec<String> = rows
            .iter()
            .filter(|r| &r.case == case && r.exchange == *exchange && r.speedup.is_finite())
            .map(|r| format!("{:.1},{:.1}", x(r.gpus as f64), y(r.speedup)))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline fill='none' stroke='{c}' points='{}'/>",
            pts.join(" ")
        );
        let label: String = case.replace('&', "&amp;").replace('<', "&lt;");
        let (lx, ly) = (w - 410.0, 30.0 + 13.0 * i as f64);
        let _ = writeln!(
            svg,
            "<text x='{lx}' y='{ly}' fill='{c}'>{label} ({exchange})</text>"
        );
    }
    svg.push_str("</svg>\n");
    svg
}
