//! Benchmark of the graph kernels: SSSP and BFS (`examples/kernels/sssp.rs`, `bfs.rs`) under every
//! schedule, against a naive vertex-per-thread CUDA kernel written by hand
//! (below), on an R-MAT graph (scale 22 by default), a road-like 2-D grid (2048 x 2048), a
//! power-law graph (2M vertices) and an arrow (1M vertices, one of degree 1M), plus any `--matrix`
//! files. Every kernel runs through the same `loops::graph::FrontierLoop` (the same
//! flag compaction and 4-byte count read per iteration), so the difference is the step kernel.
//!
//!     cargo run --release --example bench_graphs
//!     cargo run --release --example bench_graphs -- --scale 20 --grid 1024 --reps 3
//!     cargo run --release --example bench_graphs -- --matrix ../shared/data/matrices/luxembourg.mtx
//!
//! Timing: each traversal (initialisation, every step, compaction and count read, to the empty
//! frontier) between two CUDA events, after `--warmup` runs; the median of `--reps`. MTEPS: the
//! out-edges of the reached vertices per second. Every kernel's result is checked exactly against
//! the CPU reference (Dijkstra, BFS). Prints a table and writes `graphs.csv` to `--out`
//! (default `target/bench`). Exits non-zero on a wrong result.
//!
//! Under `work_oriented`, `merge_path` and `split` each step first sums the frontier's degrees on
//! the GPU (and reads back the total, which sizes the grid): a fixed cost of some tens of
//! microseconds per step, which shows on graphs that need thousands of steps (the grid). Under
//! `lrb` each step bins the frontier's vertices by degree on the GPU first (one read-back of the
//! bin counts), then launches one kernel per mapping that has vertices.

mod graph_app;
mod kernels;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use graph_app::{time_runs, Algorithm};
use loops::graph::{traversed_edges, DeviceGraph, FrontierLoop, Graph, LoopStats, UNREACHED};
use loops::prelude::*;
use loops::runtime::launch::KernelArgs;
use loops::runtime::schedule::LaunchDims;

/// The baseline: one thread per frontier vertex, its edges in sequence; the same relaxation as the
/// generated kernels (read, then `atomicMin` only where it may lower, flag on a lowering).
const NAIVE_SOURCE: &str = r#"// bench_graphs: naive vertex-per-thread baselines.
extern "C" __global__ void __launch_bounds__(256) naive_sssp(
    const unsigned int* __restrict__ frontier, const unsigned long long frontier_len,
    const int* __restrict__ offsets, const unsigned long long offsets_len,
    const unsigned int* __restrict__ adj, const unsigned long long adj_len,
    const unsigned int* __restrict__ weights, const unsigned long long weights_len,
    unsigned int* __restrict__ dist, const unsigned long long dist_len,
    unsigned int* __restrict__ next, const unsigned long long next_len)
{
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frontier_len) return;
    const unsigned int v = frontier[i];
    const unsigned int dv = dist[v];
    const int end = offsets[v + 1];
    for (int e = offsets[v]; e < end; ++e) {
        const unsigned int u = adj[e];
        const unsigned int nd = dv + weights[e];
        if (nd < dist[u] && nd < atomicMin(&dist[u], nd)) next[u] = 1u;
    }
}

extern "C" __global__ void __launch_bounds__(256) naive_bfs(
    const unsigned int* __restrict__ frontier, const unsigned long long frontier_len,
    const int* __restrict__ offsets, const unsigned long long offsets_len,
    const unsigned int* __restrict__ adj, const unsigned long long adj_len,
    unsigned int* __restrict__ levels, const unsigned long long levels_len,
    unsigned int* __restrict__ next, const unsigned long long next_len,
    const unsigned int depth)
{
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frontier_len) return;
    const unsigned int v = frontier[i];
    const int end = offsets[v + 1];
    for (int e = offsets[v]; e < end; ++e) {
        const unsigned int u = adj[e];
        if (levels[u] > depth + 1u && atomicMin(&levels[u], depth + 1u) > depth + 1u) next[u] = 1u;
    }
}
"#;

#[derive(Parser)]
#[command(
    about = "SSSP and BFS under every frontier schedule against a naive vertex-per-thread kernel"
)]
struct Args {
    /// R-MAT scale (2^scale vertices, 16 edges drawn per vertex); 0 leaves it out.
    #[arg(long, default_value_t = 22)]
    scale: u32,
    /// Side of the road-like grid; 0 leaves it out.
    #[arg(long, default_value_t = 2048)]
    grid: usize,
    /// Vertices of a power-law graph (mean out-degree 16, exponent 2, random heads); 0 leaves it
    /// out.
    #[arg(long, default_value_t = 1 << 21)]
    powerlaw: usize,
    /// Vertices of an arrow graph (vertex 0 points to every vertex, every other vertex to 0 and
    /// itself: one frontier of a single vertex of degree n); 0 leaves it out.
    #[arg(long, default_value_t = 1_000_000)]
    arrow: usize,
    /// More graphs: Matrix Market files (their pattern, seeded random weights).
    #[arg(long)]
    matrix: Vec<PathBuf>,
    /// Edge weights are drawn from 1..=max_weight.
    #[arg(long, default_value_t = 64)]
    max_weight: u32,
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    /// Untimed runs before timing.
    #[arg(long, default_value_t = 2)]
    warmup: usize,
    /// Timed runs; the median is reported.
    #[arg(long, default_value_t = 7)]
    reps: usize,
    /// Where `graphs.csv` goes.
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
}

struct Row {
    graph: String,
    vertices: usize,
    edges: usize,
    algorithm: &'static str,
    kernel: String,
    median_ms: f64,
    mteps: f64,
    iterations: u32,
    speedup_vs_naive: f64,
    ok: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(wrong) => {
            eprintln!("{wrong} result(s) were wrong");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn graphs(args: &Args) -> Result<Vec<(String, Graph)>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    if args.scale > 0 {
        let m: sprs::CsMat<f32> = loops::generate::rmat(args.scale, 16, args.seed);
        out.push((
            format!("rmat_{}", args.scale),
            Graph::from_pattern(&m, args.max_weight, args.seed)?,
        ));
    }
    if args.grid > 0 {
        let m: sprs::CsMat<f32> = loops::generate::grid2d(args.grid, args.grid, args.seed);
        out.push((
            format!("grid_{0}x{0}", args.grid),
            Graph::from_pattern(&m, args.max_weight, args.seed)?,
        ));
    }
    if args.powerlaw > 0 {
        let n = args.powerlaw;
        let m: sprs::CsMat<f32> = loops::generate::power_law(n, n, 16.0, 2.0, false, args.seed);
        out.push((
            format!("powerlaw_{n}"),
            Graph::from_pattern(&m, args.max_weight, args.seed)?,
        ));
    }
    if args.arrow > 0 {
        let m: sprs::CsMat<f32> = loops::generate::arrow(args.arrow, args.seed);
        out.push((
            format!("arrow_{}", args.arrow),
            Graph::from_pattern(&m, args.max_weight, args.seed)?,
        ));
    }
    for path in &args.matrix {
        let m = loops::mtx::read_csr::<f32>(path)?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        out.push((name, Graph::from_pattern(&m, args.max_weight, args.seed)?));
    }
    Ok(out)
}

/// One traversal with the naive kernel.
fn run_naive(
    algorithm: Algorithm,
    gpu: &Gpu,
    func: &cudarc::driver::CudaFunction,
    frontier: &mut FrontierLoop,
    g: &DeviceGraph,
    source: u32,
    out: &mut DeviceBuffer<u32>,
) -> loops::Result<LoopStats> {
    gpu.fill(out, UNREACHED)?;
    gpu.write_at(out, source as usize, &[0])?;
    let name = match algorithm {
        Algorithm::Sssp => "naive_sssp",
        Algorithm::Bfs => "naive_bfs",
    };
    frontier.run(gpu, &[source], |gpu, current, next, depth| {
        let mut args = KernelArgs::new();
        args.slice(current)
            .slice(g.offsets().offsets())
            .slice(g.adj());
        if algorithm == Algorithm::Sssp {
            args.slice(g.weights());
        }
        args.slice_mut(out).slice_mut(next);
        if algorithm == Algorithm::Bfs {
            args.scalar(depth);
        }
        let dims = LaunchDims {
            grid: current.len().div_ceil(256) as u32,
            block: 256,
            shared_bytes: 0,
        };
        gpu.launch_function(name, func, dims, args)
    })
}

fn run(args: &Args) -> Result<usize, Box<dyn std::error::Error>> {
    let gpu = Gpu::new(0)?;
    println!("device: {}", gpu.name());
    let naive = [
        (
            Algorithm::Sssp,
            gpu.function("naive_sssp", NAIVE_SOURCE, "naive_sssp")?,
        ),
        (
            Algorithm::Bfs,
            gpu.function("naive_bfs", NAIVE_SOURCE, "naive_bfs")?,
        ),
    ];
    std::fs::create_dir_all(&args.out)?;
    let csv_path = args.out.join("graphs.csv");
    let mut rows: Vec<Row> = Vec::new();
    let mut wrong = 0;
    let started = Instant::now();
    let all = graphs(args)?;
    eprintln!("graphs built in {:.1} s", started.elapsed().as_secs_f64());
    println!(
        "{:<16} {:>9} {:>10} {:<5} {:<8} {:>10} {:>9} {:>6} {:>8}  check",
        "graph", "vertices", "edges", "algo", "kernel", "median ms", "MTEPS", "iters", "vs naive"
    );
    for (name, g) in &all {
        let source = g.max_degree_vertex().ok_or("a graph with no vertices")?;
        let dg = gpu.upload_graph(g)?;
        let mut frontier = FrontierLoop::new(&gpu, g.vertices())?;
        let mut out = gpu.zeros::<u32>(g.vertices())?;
        for (algorithm, func) in &naive {
            let algorithm = *algorithm;
            let want = algorithm.reference(g, source);
            let edges = traversed_edges(g, &want);
            let mut kernels: Vec<String> = vec!["naive".into()];
            kernels.extend(algorithm.schedules().iter().map(|s| s.to_string()));
            let mut naive_ms = f64::NAN;
            for kernel in &kernels {
                let mut once = || {
                    if kernel == "naive" {
                        run_naive(algorithm, &gpu, func, &mut frontier, &dg, source, &mut out)
                    } else {
                        algorithm.run(kernel, &gpu, &mut frontier, &dg, source, &mut out)
                    }
                };
                for _ in 1..args.warmup {
                    once()?;
                }
                // `time_runs` does one more warm-up run.
                let timing = time_runs(args.reps, &gpu, &mut once)?;
                let check = loops::graph::compare(kernel, &want, &gpu.download(&out)?);
                if kernel == "naive" {
                    naive_ms = timing.median_ms;
                }
                let row = Row {
                    graph: name.clone(),
                    vertices: g.vertices(),
                    edges: g.edges(),
                    algorithm: algorithm.name(),
                    kernel: kernel.clone(),
                    median_ms: timing.median_ms,
                    mteps: edges as f64 / (timing.median_ms * 1e3),
                    iterations: timing.stats.iterations,
                    speedup_vs_naive: naive_ms / timing.median_ms,
                    ok: check.is_ok(),
                };
                println!(
                    "{:<16} {:>9} {:>10} {:<5} {:<8} {:>10.3} {:>9.1} {:>6} {:>7.2}x  {}",
                    row.graph,
                    row.vertices,
                    row.edges,
                    row.algorithm,
                    row.kernel,
                    row.median_ms,
                    row.mteps,
                    row.iterations,
                    row.speedup_vs_naive,
                    match &check {
                        Ok(()) => "ok".to_string(),
                        Err(e) => format!("WRONG: {e}"),
                    }
                );
                wrong += check.is_err() as usize;
                rows.push(row);
                write_csv(&csv_path, &rows)?;
            }
            let best = rows
                .iter()
                .filter(|r| {
                    r.graph == *name && r.algorithm == algorithm.name() && r.kernel != "naive"
                })
                .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms))
                .expect("a schedule ran");
            println!(
                "{:<16} {:<5} best: {} {:.3} ms, {:.2}x the naive kernel",
                name,
                algorithm.name(),
                best.kernel,
                best.median_ms,
                best.speedup_vs_naive
            );
        }
    }
    println!("wrote {}", csv_path.display());
    Ok(wrong)
}

fn write_csv(path: &std::path::Path, rows: &[Row]) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        f,
        "graph,vertices,edges,algorithm,kernel,median_ms,mteps,iterations,speedup_vs_naive,status"
    )?;
    for r in rows {
        writeln!(
            f,
            "{},{},{},{},{},{:.6},{:.3},{},{:.4},{}",
            r.graph,
            r.vertices,
            r.edges,
            r.algorithm,
            r.kernel,
            r.median_ms,
            r.mteps,
            r.iterations,
            r.speedup_vs_naive,
            if r.ok { "ok" } else { "wrong" }
        )?;
    }
    f.flush()
}
