//! Benchmark of the graph kernels: SSSP and BFS (`examples/kernels/sssp.rs`, `bfs.rs`) under every
//! schedule, against a naive vertex-per-thread CUDA kernel written by hand
//! (below), on an R-MAT graph (scale 22 by default), a road-like 2-D grid (2048 x 2048), a
//! power-law graph (2M vertices) and an arrow (1M vertices, one of degree 1M), plus any `--matrix`
//! files, a Graph500 Kronecker graph (`--kron-scale`, 20) and a road network (`--road`, 1M vertices).
//! `sssp-delta` rows: near-far delta-stepping (`examples/kernels/sssp_near_far.rs`,
//! `loops::graph::NearFarLoop`, `--delta` to override the bucket width) beside `sssp` (the
//! Bellman-Ford frontier), both with the edges they relax (counted in one more, untimed run).
//! Every kernel runs through the same `loops::graph::FrontierLoop` (the same
//! flag compaction and 4-byte count read per iteration), so the difference is the step kernel.
//!
//! `--loop device` (or `both`, the default) also runs every schedule that can through
//! `loops::graph::DeviceFrontierLoop`, the loop that stays on the GPU (levels recorded as a CUDA
//! graph and replayed, the frontier's size never read by the host between levels): rows name their
//! loop, and `us/level` (the median over the levels run) shows what a level costs in each.
//!
//!     cargo run --release --example bench_graphs
//!     cargo run --release --example bench_graphs -- --scale 20 --grid 1024 --reps 3
//!     cargo run --release --example bench_graphs -- --matrix ../shared/data/matrices/luxembourg.mtx
//!     cargo run --release --example bench_graphs -- --world --warmup 1 --reps 5
//!     cargo run --release --example bench_graphs -- --scale 0 --powerlaw 0 --arrow 0 --loop device
//!
//! Timing: each traversal (initialisation, every step, compaction and count read, to the empty
//! frontier) between two CUDA events, after `--warmup` runs; the median of `--reps`. MTEPS: the
//! out-edges of the reached vertices per second. Every kernel's result is checked exactly against
//! the CPU reference (Dijkstra, BFS). Prints a table and writes `graphs.csv` to `--out`
//! (default `target/bench`). Exits non-zero on a wrong result.
//!
//! `--world`: instead, the graph classes of the world set (`loops::generate::world_set`, classes
//! `GRAPH_CLASSES`: SNAP-like, citation, web and road graphs at 10^4..10^6 vertices), every
//! schedule and `auto` (no naive kernel); `graphs_world.csv` gets the class and the half (tuning:
//! even seeds, held out: odd), and `summary_graphs_world.txt` auto against the best fixed
//! schedule per class and half, for BFS and for SSSP.
//!
//! Then, per graph (not on the world set; `--no-algorithms` leaves them out), the algorithms of
//! `examples/kernels/{bfs_do,pagerank,cc,tc}.rs` under every schedule, each checked against the
//! CPU: `bfs-push` and `bfs-do` (the push-only and the direction-optimizing BFS through the same
//! loop, on the symmetrised graph, MTEPS by Graph500's count: the reached undirected edges once;
//! the CSV's `pull_levels`), `pagerank` (f32, `--pagerank-iterations`; MTEPS: edges times
//! iterations), `cc` and `tc`. CSV columns added at the end: `per_level_us` (the median over
//! the levels or iterations), `pull_levels`, and Gunrock's published time for that algorithm on a
//! graph of that class with its GPU (`gunrock_ms`, `gunrock_source`; examples/bench/README.md).
//!
//! Under `work_oriented`, `merge_path` and `split` each step first sums the frontier's degrees on
//! the GPU (and reads back the total, which sizes the grid): a fixed cost of some tens of
//! microseconds per step, which shows on graphs that need thousands of steps (the grid). Under
//! `lrb` each step bins the frontier's vertices by degree on the GPU first (one read-back of the
//! bin counts), then launches one kernel per mapping that has vertices.

// The SpMV benchmark's support folder, for its world-set summary and CSV quoting; the rest of it
// (plots, cuSPARSE) is unused here.
#[allow(unused_imports)]
mod bench;
mod graph_app;
mod kernels;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use bench::world::{self, WorldRow, WorldTag};
use clap::Parser;
use graph_app::{time_runs, Algorithm};
use loops::graph::{
    traversed_edges, DeviceFrontierLoop, DeviceGraph, FrontierLoop, Graph, LoopStats, NearFarLoop,
    UNREACHED,
};
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
    /// Scale of a Graph500 Kronecker graph (2^scale vertices, 16 edges drawn per vertex, permuted,
    /// undirected); 0 leaves it out.
    #[arg(long, default_value_t = 20)]
    kron_scale: u32,
    /// Vertices of a road network (`loops::generate::road`); 0 leaves it out.
    #[arg(long, default_value_t = 1_000_000)]
    road: usize,
    /// The bucket width of `sssp-delta` (default: from the graph's weights and degree).
    #[arg(long)]
    delta: Option<u32>,
    /// More graphs: Matrix Market files (their pattern, seeded random weights).
    #[arg(long)]
    matrix: Vec<PathBuf>,
    /// The graph classes of the world set instead of the graphs above (and without the naive
    /// kernel); the summary gives auto against the best fixed schedule per class and half.
    #[arg(long, conflicts_with = "matrix")]
    world: bool,
    /// Seeds of the world set (0..this).
    #[arg(long, default_value_t = 4)]
    world_seeds: u64,
    /// Only the world graphs of at most this many vertices (the 10^6-vertex road networks need
    /// thousands of frontier steps per traversal).
    #[arg(long)]
    max_vertices: Option<usize>,
    /// Wall time one kernel's runs may take on one graph and algorithm: a kernel whose first run
    /// says it would take longer gets fewer timed runs (at least 3) and no more warm-ups.
    #[arg(long, default_value_t = 3000.0)]
    kernel_budget_ms: f64,
    /// Edge weights are drawn from 1..=max_weight.
    #[arg(long, default_value_t = 64)]
    max_weight: u32,
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    /// Untimed runs before timing (at least 2: the first, timed on the host, sizes the rest; the
    /// last is the timing's own).
    #[arg(long, default_value_t = 2)]
    warmup: usize,
    /// Timed runs; the median is reported.
    #[arg(long, default_value_t = 7)]
    reps: usize,
    /// Leave out the algorithms of issue 26 (direction-optimizing BFS with its push-only loop,
    /// PageRank, connected components, triangle counting; not run on the world set).
    #[arg(long)]
    no_algorithms: bool,
    /// PageRank's iterations.
    #[arg(long, default_value_t = 20)]
    pagerank_iterations: u32,
    /// Where `graphs.csv` goes.
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
    /// The frontier loop(s): `host` (FrontierLoop, a count read back per level), `device`
    /// (DeviceFrontierLoop, for the schedules that run there), or `both`. The naive kernel and
    /// the world set's summary use the host loop.
    #[arg(long = "loop", value_enum, default_value_t = Loops::Both)]
    loops: Loops,
}

/// `--loop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Loops {
    Host,
    Device,
    Both,
}

/// The frontier loop a row ran in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoopKind {
    Host,
    Device,
}

impl LoopKind {
    fn name(self) -> &'static str {
        match self {
            LoopKind::Host => "host",
            LoopKind::Device => "device",
        }
    }
}

type BoxError = Box<dyn std::error::Error>;

/// The fewest timed runs a kernel's median is taken over.
const MIN_REPS: usize = 3;

struct Row {
    graph: String,
    vertices: usize,
    edges: usize,
    algorithm: &'static str,
    kernel: String,
    /// The frontier loop it ran in.
    loop_kind: LoopKind,
    median_ms: f64,
    mteps: f64,
    iterations: u32,
    /// NaN where no naive kernel ran (the world set).
    speedup_vs_naive: f64,
    ok: bool,
    tag: Option<WorldTag>,
    /// The edges relaxed (out-edges of every frontier processed, counted on the device in one
    /// more run): SSSP rows only.
    relaxed_edges: Option<u64>,
    /// Direction-optimizing BFS: the levels that pulled.
    pull_levels: Option<u32>,
    /// A published Gunrock time for this algorithm on a graph of this class, with its source.
    gunrock: Option<Gunrock>,
}

/// A published Gunrock number (examples/bench/README.md cites each).
#[derive(Clone, Copy)]
struct Gunrock {
    ms: f64,
    what: &'static str,
}

/// Gunrock 1.x's published times where this run's graph is of the class they were measured on
/// (issue 26's anchors): Kronecker scale 21 and soc-orkut, on a V100.
fn gunrock_published(graph: &str, algorithm: &str) -> Option<Gunrock> {
    let kronecker = graph.starts_with("rmat_") || graph.contains("kron");
    let orkut = graph.contains("orkut");
    let (ms, what) = match (algorithm, kronecker, orkut) {
        ("bfs-do", true, _) => (1.06, "Gunrock 1.x DO-BFS, V100, Kronecker scale 21"),
        ("bfs-push", true, _) => (23.7, "Gunrock 1.x push BFS, V100, Kronecker scale 21"),
        ("bfs-do", _, true) => (5.7, "Gunrock 1.x DO-BFS, V100, soc-orkut"),
        ("bfs-push", _, true) => (29.9, "Gunrock 1.x push BFS, V100, soc-orkut"),
        _ => return None,
    };
    Some(Gunrock { ms, what })
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

/// A graph to run, built when its turn comes.
struct Case {
    name: String,
    tag: Option<WorldTag>,
    build: Box<dyn Fn() -> Result<sprs::CsMat<f32>, BoxError>>,
}

impl Case {
    fn new(name: String, build: impl Fn() -> Result<sprs::CsMat<f32>, BoxError> + 'static) -> Case {
        Case {
            name,
            tag: None,
            build: Box::new(build),
        }
    }
}

/// The world set's graphs: its graph classes, smallest first.
fn world_cases(seeds: u64, max_vertices: usize) -> Vec<Case> {
    loops::generate::world_set(seeds)
        .into_iter()
        .filter(|w| loops::generate::GRAPH_CLASSES.contains(&w.class) && w.rows <= max_vertices)
        .map(|w| Case {
            name: w.name.clone(),
            tag: Some(WorldTag {
                class: w.class.to_string(),
                held_out: w.held_out,
            }),
            build: Box::new(move || Ok(w.matrix())),
        })
        .collect()
}

fn cases(args: &Args) -> Vec<Case> {
    if args.world {
        return world_cases(args.world_seeds, args.max_vertices.unwrap_or(usize::MAX));
    }
    let (seed, mut out) = (args.seed, Vec::new());
    if args.scale > 0 {
        let scale = args.scale;
        out.push(Case::new(format!("rmat_{scale}"), move || {
            Ok(loops::generate::rmat(scale, 16, seed))
        }));
    }
    if args.grid > 0 {
        let side = args.grid;
        out.push(Case::new(format!("grid_{side}x{side}"), move || {
            Ok(loops::generate::grid2d(side, side, seed))
        }));
    }
    if args.powerlaw > 0 {
        let n = args.powerlaw;
        out.push(Case::new(format!("powerlaw_{n}"), move || {
            Ok(loops::generate::power_law(n, n, 16.0, 2.0, false, seed))
        }));
    }
    if args.arrow > 0 {
        let n = args.arrow;
        out.push(Case::new(format!("arrow_{n}"), move || {
            Ok(loops::generate::arrow(n, seed))
        }));
    }
    if args.kron_scale > 0 {
        let scale = args.kron_scale;
        out.push(Case::new(format!("kron_{scale}"), move || {
            Ok(loops::generate::kronecker(scale, 16, seed))
        }));
    }
    if args.road > 0 {
        let n = args.road;
        out.push(Case::new(format!("road_{n}"), move || {
            Ok(loops::generate::road(n, seed))
        }));
    }
    for path in &args.matrix {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let path = path.clone();
        out.push(Case::new(name, move || {
            Ok(loops::mtx::read_csr::<f32>(&path)?)
        }));
    }
    out
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
        // No naive kernel is made for `SsspDelta` (see `run`), so this never runs it.
        Algorithm::Sssp | Algorithm::SsspDelta => "naive_sssp",
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

/// The edges an SSSP kernel relaxes (the out-degrees of its frontiers, summed on the device), from
/// one more, untimed run; `None` for BFS and the naive kernel.
fn relaxed_edges(
    algorithm: Algorithm,
    kernel: &str,
    gpu: &Gpu,
    (frontier, near_far): (&mut FrontierLoop, &mut NearFarLoop),
    g: &DeviceGraph,
    source: u32,
    dist: &mut DeviceBuffer<u32>,
) -> loops::Result<Option<u64>> {
    match algorithm {
        _ if kernel == "naive" => Ok(None),
        Algorithm::SsspDelta => {
            near_far.set_count_edges(true);
            let stats = kernels::sssp_near_far::run(kernel, gpu, near_far, g, source, dist);
            near_far.set_count_edges(false);
            Ok(Some(stats?.relaxed_edges))
        }
        Algorithm::Sssp => {
            near_far.reset_edge_count(gpu)?;
            gpu.fill(dist, UNREACHED)?;
            gpu.write_at(dist, source as usize, &[0])?;
            frontier.run(gpu, &[source], |gpu, current, next, _| {
                near_far.count_frontier_edges(gpu, g, current)?;
                kernels::sssp::launch(
                    kernel,
                    gpu,
                    g.offsets(),
                    g.adj(),
                    g.weights(),
                    current,
                    dist,
                    next,
                )
            })?;
            Ok(Some(near_far.edge_count(gpu)?))
        }
        Algorithm::Bfs => Ok(None),
    }
}

/// What every graph is run with.
struct Bench<'a> {
    gpu: &'a Gpu,
    args: &'a Args,
    /// The naive kernels, by algorithm; empty on the world set.
    naive: Vec<(Algorithm, cudarc::driver::CudaFunction)>,
    rows: Vec<Row>,
    /// Per algorithm, auto against the best fixed schedule on each world graph.
    world: Vec<(&'static str, WorldRow)>,
    csv: PathBuf,
    wrong: usize,
}

fn run(args: &Args) -> Result<usize, BoxError> {
    let gpu = Gpu::new(0)?;
    println!("device: {}", gpu.name());
    let naive = if args.world {
        Vec::new()
    } else {
        vec![
            (
                Algorithm::Sssp,
                gpu.function("naive_sssp", NAIVE_SOURCE, "naive_sssp")?,
            ),
            (
                Algorithm::Bfs,
                gpu.function("naive_bfs", NAIVE_SOURCE, "naive_bfs")?,
            ),
        ]
    };
    std::fs::create_dir_all(&args.out)?;
    let file = if args.world {
        "graphs_world.csv"
    } else {
        "graphs.csv"
    };
    let mut bench = Bench {
        gpu: &gpu,
        args,
        naive,
        rows: Vec::new(),
        world: Vec::new(),
        csv: args.out.join(file),
        wrong: 0,
    };
    let all = cases(args);
    println!(
        "{:<24} {:>9} {:>10} {:<5} {:<14} {:<6} {:>10} {:>9} {:>6} {:>8} {:>8}  check",
        "graph",
        "vertices",
        "edges",
        "algo",
        "kernel",
        "loop",
        "median ms",
        "MTEPS",
        "iters",
        "us/level",
        "vs naive"
    );
    let started = Instant::now();
    for (done, case) in all.iter().enumerate() {
        let t = Instant::now();
        let m = (case.build)()?;
        let g = Graph::from_pattern(&m, args.max_weight, args.seed)?;
        drop(m);
        eprintln!("{}: built in {:.2} s", case.name, t.elapsed().as_secs_f64());
        bench.graph(case, &g)?;
        eprintln!(
            "[{}/{}] {} done, {:.0} s in all",
            done + 1,
            all.len(),
            case.name,
            started.elapsed().as_secs_f64()
        );
        if args.world {
            std::fs::write(args.out.join("summary_graphs_world.txt"), bench.summary())?;
        }
    }
    if args.world {
        println!("\n{}", bench.summary());
        println!(
            "wrote {}",
            args.out.join("summary_graphs_world.txt").display()
        );
    }
    println!("wrote {}", bench.csv.display());
    Ok(bench.wrong)
}

impl Bench<'_> {
    /// Every algorithm under every kernel on one graph.
    fn graph(&mut self, case: &Case, g: &Graph) -> Result<(), BoxError> {
        let gpu = self.gpu;
        let source = g.max_degree_vertex().ok_or("a graph with no vertices")?;
        let dg = gpu.upload_graph(g)?;
        let mut frontier = FrontierLoop::new(gpu, g.vertices())?;
        let mut device_frontier = DeviceFrontierLoop::new(gpu, g.vertices())?;
        let mut near_far = NearFarLoop::new(gpu, g.vertices())?;
        near_far.set_delta(self.args.delta);
        let mut out = gpu.zeros::<u32>(g.vertices())?;
        let (host, device) = match self.args.loops {
            Loops::Host => (true, false),
            Loops::Device => (false, true),
            Loops::Both => (true, true),
        };
        for algorithm in [Algorithm::Sssp, Algorithm::SsspDelta, Algorithm::Bfs] {
            let want = algorithm.reference(g, source);
            let edges = traversed_edges(g, &want);
            let naive = self.naive.iter().find(|n| n.0 == algorithm).map(|n| &n.1);
            let mut kernels: Vec<(&str, LoopKind)> =
                naive.iter().map(|_| ("naive", LoopKind::Host)).collect();
            let on_device = algorithm.device_schedules();
            for &schedule in algorithm.schedules() {
                if host {
                    kernels.push((schedule, LoopKind::Host));
                }
                if device && on_device.contains(&schedule) {
                    kernels.push((schedule, LoopKind::Device));
                }
            }
            let mut naive_ms = f64::NAN;
            let first = self.rows.len();
            for (kernel, loop_kind) in kernels {
                let mut once = || match (naive, loop_kind) {
                    (Some(func), _) if kernel == "naive" => {
                        run_naive(algorithm, gpu, func, &mut frontier, &dg, source, &mut out)
                    }
                    (_, LoopKind::Host) if algorithm == Algorithm::SsspDelta => {
                        kernels::sssp_near_far::run(
                            kernel,
                            gpu,
                            &mut near_far,
                            &dg,
                            source,
                            &mut out,
                        )
                        .map(LoopStats::from)
                    }
                    (_, LoopKind::Host) => {
                        algorithm.run(kernel, gpu, &mut frontier, &dg, source, &mut out)
                    }
                    (_, LoopKind::Device) => algorithm.run_device(
                        kernel,
                        gpu,
                        &mut device_frontier,
                        &dg,
                        source,
                        &mut out,
                    ),
                };
                // The first warm-up, timed on the host (each frontier step reads a count back, so
                // the host waits for the traversal), sizes the rest.
                let t = Instant::now();
                once()?;
                let first_ms = t.elapsed().as_secs_f64() * 1e3;
                let runs = self.args.warmup + self.args.reps;
                let reps = if first_ms * runs as f64 > self.args.kernel_budget_ms {
                    ((self.args.kernel_budget_ms / first_ms) as usize)
                        .clamp(MIN_REPS, self.args.reps.max(MIN_REPS))
                } else {
                    for _ in 2..self.args.warmup {
                        once()?;
                    }
                    self.args.reps
                };
                // `time_runs` does one more warm-up run.
                let timing = time_runs(reps, gpu, &mut once)?;
                let check = loops::graph::compare(kernel, &want, &gpu.download(&out)?);
                let relaxed_edges = relaxed_edges(
                    algorithm,
                    kernel,
                    gpu,
                    (&mut frontier, &mut near_far),
                    &dg,
                    source,
                    &mut out,
                )?;
                if kernel == "naive" {
                    naive_ms = timing.median_ms;
                }
                let row = Row {
                    graph: case.name.clone(),
                    vertices: g.vertices(),
                    edges: g.edges(),
                    algorithm: algorithm.name(),
                    kernel: kernel.to_string(),
                    loop_kind,
                    median_ms: timing.median_ms,
                    mteps: edges as f64 / (timing.median_ms * 1e3),
                    iterations: timing.stats.iterations,
                    speedup_vs_naive: naive_ms / timing.median_ms,
                    ok: check.is_ok(),
                    tag: case.tag.clone(),
                    relaxed_edges,
                    pull_levels: None,
                    gunrock: None,
                };
                print_row(&row, &check);
                self.wrong += check.is_err() as usize;
                self.rows.push(row);
                write_csv(&self.csv, &self.rows)?;
            }
            self.close_algorithm(case, algorithm, first);
        }
        if !self.args.world && !self.args.no_algorithms {
            self.algorithms(case, g)?;
        }
        Ok(())
    }

    /// Records one run of the algorithms of issue 26.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        case: &Case,
        g: &Graph,
        algorithm: &'static str,
        kernel: String,
        timing: &graph_app::Timing,
        work: u64,
        pull_levels: Option<u32>,
        check: Result<(), String>,
    ) -> Result<(), BoxError> {
        let row = Row {
            graph: case.name.clone(),
            vertices: g.vertices(),
            edges: g.edges(),
            algorithm,
            kernel,
            median_ms: timing.median_ms,
            mteps: work as f64 / (timing.median_ms * 1e3),
            iterations: timing.stats.iterations,
            speedup_vs_naive: f64::NAN,
            ok: check.is_ok(),
            tag: case.tag.clone(),
            loop_kind: LoopKind::Host,
            relaxed_edges: None,
            pull_levels,
            gunrock: gunrock_published(&case.name, algorithm),
        };
        print_row(&row, &check);
        self.wrong += check.is_err() as usize;
        self.rows.push(row);
        write_csv(&self.csv, &self.rows)?;
        Ok(())
    }

    /// Direction-optimizing BFS beside the push-only BFS of the same loop (on the symmetrised
    /// graph, MTEPS by Graph500's count: the reached undirected edges once), PageRank (f32, edges
    /// times iterations per second), connected components and triangle counting, each under every
    /// schedule, each checked against the CPU.
    fn algorithms(&mut self, case: &Case, g: &Graph) -> Result<(), BoxError> {
        use kernels::graph_host as host;
        let gpu = self.gpu;
        let reps = self.args.reps;
        let t = Instant::now();
        let s = host::symmetric_reference(g);
        let source = s.max_degree_vertex().ok_or("a graph with no vertices")?;
        let want = loops::graph::bfs_levels(&s, source);
        let edges500 = host::undirected_edges_reached(&s, &want);
        eprintln!(
            "{}: symmetrised and BFS reference in {:.2} s",
            case.name,
            t.elapsed().as_secs_f64()
        );
        {
            use kernels::bfs_do::{pull_schedule_for, push, run, DoBfs, Switch};
            let ds = gpu.upload_graph(&s)?;
            let mut state = DoBfs::new(gpu, s.vertices())?;
            let mut levels = gpu.zeros::<u32>(s.vertices())?;
            let mut parents = gpu.zeros::<u32>(s.vertices())?;
            for schedule in push::SCHEDULES {
                let pull = pull_schedule_for(schedule);
                for (algorithm, switch, kernel) in [
                    ("bfs-push", Switch::PUSH_ONLY, schedule.to_string()),
                    ("bfs-do", Switch::BEAMER, format!("{schedule}+{pull}")),
                ] {
                    let timing = time_runs(reps, gpu, || {
                        run(
                            schedule,
                            pull,
                            switch,
                            gpu,
                            &mut state,
                            &ds,
                            source,
                            &mut levels,
                            &mut parents,
                        )
                    })?;
                    let got = gpu.download(&levels)?;
                    let got_parents = gpu.download(&parents)?;
                    let check = loops::graph::compare(&kernel, &want, &got).and_then(|()| {
                        host::check_bfs_parents_reference(&s, source, &got, &got_parents)
                    });
                    let pulls = state.pull_levels() as u32;
                    self.record(
                        case,
                        &s,
                        algorithm,
                        kernel,
                        &timing,
                        edges500,
                        Some(pulls),
                        check,
                    )?;
                }
            }
        }
        {
            use kernels::pagerank::{pull, run, PageRank};
            let iterations = self.args.pagerank_iterations;
            let want = host::pagerank_reference(g, 0.85, iterations);
            let mut pr = PageRank::<f32>::new(gpu, g)?;
            // A few roundoffs of f32 per iteration, more where a vertex sums many in-edges.
            let tolerance = f32::UNIT_ROUNDOFF * 64.0 * iterations.max(1) as f64 * 30.0;
            for schedule in pull::SCHEDULES {
                let timing = time_runs(reps, gpu, || {
                    run(schedule, gpu, &mut pr, 0.85, iterations, None).map(|stats| LoopStats {
                        iterations: stats.iterations,
                        ..LoopStats::default()
                    })
                })?;
                let got = gpu.download(pr.ranks())?;
                let distance: f64 = want
                    .iter()
                    .zip(&got)
                    .map(|(w, &r)| (w - r as f64).abs())
                    .sum();
                let check = if distance <= tolerance {
                    Ok(())
                } else {
                    Err(format!(
                        "L1 distance {distance:e} to the reference, tolerance {tolerance:e}"
                    ))
                };
                let work = g.edges() as u64 * iterations as u64;
                self.record(
                    case,
                    g,
                    "pagerank",
                    schedule.to_string(),
                    &timing,
                    work,
                    None,
                    check,
                )?;
            }
        }
        {
            use kernels::cc::{hook, run, Components};
            let want = host::components_reference(g);
            let dg = gpu.upload_graph(g)?;
            let mut state = Components::new(gpu, g.vertices())?;
            let mut labels = gpu.zeros::<u32>(g.vertices())?;
            for schedule in hook::SCHEDULES {
                let timing = time_runs(reps, gpu, || {
                    run(schedule, gpu, &mut state, &dg, &mut labels).map(|iterations| LoopStats {
                        iterations,
                        ..LoopStats::default()
                    })
                })?;
                let check = loops::graph::compare(schedule, &want, &gpu.download(&labels)?);
                let work = g.edges() as u64;
                self.record(
                    case,
                    g,
                    "cc",
                    schedule.to_string(),
                    &timing,
                    work,
                    None,
                    check,
                )?;
            }
        }
        {
            use kernels::tc::{count, run, Triangles};
            let t = Instant::now();
            let want = host::triangles_reference(g);
            eprintln!(
                "{}: {want} triangles on the CPU in {:.2} s",
                case.name,
                t.elapsed().as_secs_f64()
            );
            let mut tc = Triangles::new(gpu, g)?;
            for schedule in count::SCHEDULES {
                let mut got = 0;
                let timing = time_runs(reps, gpu, || {
                    got = run(schedule, gpu, &mut tc)?;
                    Ok(LoopStats {
                        iterations: 1,
                        ..LoopStats::default()
                    })
                })?;
                let check = if got == want {
                    Ok(())
                } else {
                    Err(format!("{got} triangles, expected {want}"))
                };
                let work = tc.edges() as u64;
                self.record(
                    case,
                    g,
                    "tc",
                    schedule.to_string(),
                    &timing,
                    work,
                    None,
                    check,
                )?;
            }
        }
        Ok(())
    }

    /// After every kernel of one algorithm on one graph (rows `first..`): its best schedule, and
    /// auto against it on the world set.
    fn close_algorithm(&mut self, case: &Case, algorithm: Algorithm, first: usize) {
        let runs = &self.rows[first..];
        let best = runs
            .iter()
            .filter(|r| r.kernel != "naive")
            .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms))
            .expect("a schedule ran");
        let versus = if best.speedup_vs_naive.is_nan() {
            String::new()
        } else {
            format!(", {:.2}x the naive kernel", best.speedup_vs_naive)
        };
        println!(
            "{:<24} {:<5} best: {} ({} loop) {:.3} ms{versus}",
            case.name,
            algorithm.name(),
            best.kernel,
            best.loop_kind.name(),
            best.median_ms
        );
        if let Some(tag) = &case.tag {
            // The world summary compares schedules in one loop: the host's.
            let times: Vec<(&str, f64)> = runs
                .iter()
                .filter(|r| r.ok && r.loop_kind == LoopKind::Host)
                .map(|r| (r.kernel.as_str(), r.median_ms))
                .collect();
            let row = WorldRow::from_times(&case.name, tag.clone(), &times, &["naive"]);
            self.world.push((algorithm.name(), row));
        }
    }

    /// Auto against the best fixed schedule per class and half, BFS then SSSP.
    fn summary(&self) -> String {
        let mut s = String::new();
        for algorithm in [Algorithm::Bfs, Algorithm::Sssp, Algorithm::SsspDelta] {
            let rows: Vec<WorldRow> = self
                .world
                .iter()
                .filter(|(a, _)| *a == algorithm.name())
                .map(|(_, r)| r.clone())
                .collect();
            s.push_str(&world::summary(
                &rows,
                &format!("graphs ({})", algorithm.name().to_uppercase()),
            ));
            s.push('\n');
        }
        s
    }
}

/// Microseconds per level: the traversal's median time over the levels it ran.
fn us_per_level(row: &Row) -> f64 {
    row.median_ms * 1e3 / row.iterations.max(1) as f64
}

fn print_row(row: &Row, check: &Result<(), String>) {
    let mut extra = String::new();
    if let Some(pulls) = row.pull_levels {
        extra.push_str(&format!(", {pulls} pulled"));
    }
    if let Some(g) = row.gunrock {
        extra.push_str(&format!(", {}: {} ms", g.what, g.ms));
    }
    println!(
        "{:<24} {:>9} {:>10} {:<5} {:<14} {:<6} {:>10.3} {:>9.1} {:>6} {:>8.2} {:>7.2}x  {}{}{extra}",
        row.graph,
        row.vertices,
        row.edges,
        row.algorithm,
        row.kernel,
        row.loop_kind.name(),
        row.median_ms,
        row.mteps,
        row.iterations,
        us_per_level(row),
        row.speedup_vs_naive,
        match check {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("WRONG: {e}"),
        },
        row.relaxed_edges
            .map_or(String::new(), |e| format!("  {e} edges relaxed"))
    );
}

fn write_csv(path: &Path, rows: &[Row]) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        f,
        "graph,vertices,edges,algorithm,kernel,loop,median_ms,mteps,iterations,us_per_level,speedup_vs_naive,status,class,half,relaxed_edges,pull_levels,gunrock_ms,gunrock_source"
    )?;
    for r in rows {
        let versus = if r.speedup_vs_naive.is_nan() {
            String::new()
        } else {
            format!("{:.4}", r.speedup_vs_naive)
        };
        writeln!(
            f,
            "{},{},{},{},{},{},{:.6},{:.3},{},{:.3},{},{},{},{},{},{},{},{}",
            bench::csv::field(&r.graph),
            r.vertices,
            r.edges,
            r.algorithm,
            r.kernel,
            r.loop_kind.name(),
            r.median_ms,
            r.mteps,
            r.iterations,
            us_per_level(r),
            versus,
            if r.ok { "ok" } else { "wrong" },
            r.tag.as_ref().map_or("", |t| t.class.as_str()),
            r.tag.as_ref().map_or("", |t| t.half()),
            r.relaxed_edges.map_or(String::new(), |e| e.to_string()),
            r.pull_levels.map_or(String::new(), |p| p.to_string()),
            r.gunrock.map_or(String::new(), |g| g.ms.to_string()),
            bench::csv::field(r.gunrock.map_or("", |g| g.what)),
        )?;
    }
    f.flush()
}
