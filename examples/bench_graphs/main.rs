//! Benchmark of the graph kernels: SSSP and BFS (`src/graph/sssp.rs`, `bfs.rs`) under every
//! schedule, against a naive vertex-per-thread CUDA kernel written by hand
//! (below), on an R-MAT graph (scale 22 by default), a road-like 2-D grid (2048 x 2048), a
//! power-law graph (2M vertices) and an arrow (1M vertices, one of degree 1M), plus any `--matrix`
//! files, a Graph500 Kronecker graph (`--kron-scale`, 20) and a road network (`--road`, 1M vertices).
//! `sssp-delta` rows: near-far delta-stepping (`src/graph/sssp_near_far.rs`,
//! `loops::graph::NearFarLoop`, `--delta` to override the bucket width) beside `sssp` (the
//! Bellman-Ford frontier), both with the edges they relax (counted in one more, untimed run).
//! Under `--loop device` (or `both`), `sssp-delta` also runs in `loops::graph::NearFarLoop` on the device
//! (rounds and bucket advances without the host, `--hops` and `--hop-degree` for its multi-hop
//! rounds), its relaxed edges counted by the CPU model (`near_far_model_hops`), its levels, delta
//! and hops printed; `--sweep-deltas` times it over deltas and hops per graph.
//! Every kernel runs through the same `loops::graph::FrontierLoop` in its host loop (the same
//! flag compaction and 4-byte count read per iteration), so the difference is the step kernel.
//!
//! `--loop device` (or `both`, the default) also runs every schedule that can in the same loop on
//! the GPU (`LoopOn::DevicePush`: levels recorded as a CUDA graph and replayed, the frontier's
//! size never read by the host between levels): rows name their loop, and `us/level` (the median
//! over the levels run) shows what a level costs in each. BFS also runs there with the step that
//! appends its next frontier itself (`loops::graph::bfs::queue`, `LoopOn::DeviceQueue`: one
//! launch a level, no compaction), loop `device-queue`.
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
//! `--world`: instead, the graph classes of the world set (`loops::io::generate::world_set`, classes
//! `GRAPH_CLASSES`: SNAP-like, citation, web and road graphs at 10^4..10^6 vertices), every
//! schedule and `auto` (no naive kernel); `graphs_world.csv` gets the class and the half (tuning:
//! even seeds, held out: odd), and `summary_graphs_world.txt` auto against the best fixed
//! schedule per class and half, for BFS and for SSSP.
//!
//! Then, per graph (not on the world set; `--no-algorithms` leaves them out), the algorithms of
//! `src/graph/{bfs_do,pagerank,cc,tc}.rs` under every schedule, each checked against the
//! CPU: `bfs-push` and `bfs-do` (the push-only and the direction-optimizing BFS through the same
//! loop, on the symmetrised graph, MTEPS by Graph500's count: the reached undirected edges once;
//! the CSV's `pull_levels`), `pagerank` (f32, `--pagerank-iterations`; MTEPS: edges times
//! iterations), `cc` and `tc`. CSV columns added at the end: `per_level_us` (the median over
//! the levels or iterations), `pull_levels`, and, on every row of a Kronecker/R-MAT, power-law or
//! road graph, Gunrock's published number for that algorithm on the published graph of that class
//! nearest in size (`gunrock_value`, `gunrock_unit`, `gunrock_source`: version, graph and size,
//! GPU, table; also printed at the end of the row; examples/bench/README.md).
//!
//! Under `work_oriented`, `merge_path` and `split` each step first sums the frontier's degrees on
//! the GPU (and reads back the total, which sizes the grid): a fixed cost of some tens of
//! microseconds per step, which shows on graphs that need thousands of steps (the grid). Under
//! `lrb` each step bins the frontier's vertices by degree on the GPU first (one read-back of the
//! bin counts), then launches one kernel per mapping that has vertices.
//! `--library` instead times the library calls per loop strategy, with Gunrock v2.1.0 beside them
//! (`--gunrock-bin`), into `library.csv` (`library.rs`).
//!
//! `--graphs-auto` instead measures graph `auto` against each fixed choice it measures between,
//! on graphs of five classes in two halves (`auto_set.rs`; `--auto-summary` sums the CSVs up).
//!
//! The code: `main.rs` (options, the run), `cases.rs` (the graphs), `traversals.rs` (the SSSP and
//! BFS rows, the naive kernels, the world summary), `algorithms.rs` (the rows of issue 26's
//! algorithms), `output.rs` (the rows, the table, the CSV), `gunrock.rs` (Gunrock's published
//! numbers), `library.rs` (the library calls and Gunrock v2.1.0 run beside them).

// The SpMV benchmark's support folder, for its world-set summary and CSV quoting; the rest of it
// (plots, cuSPARSE) is unused here.
#[allow(unused_imports)]
use loops_bench as bench;
#[path = "../graph_app/mod.rs"]
mod graph_app;

mod algorithms;
mod auto_set;
mod cases;
mod do_profile;
mod gunrock;
mod library;
mod output;
mod traversals;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bench::world::WorldRow;
use clap::Parser;
use graph_app::Algorithm;
use loops::graph::Graph;
use loops::prelude::*;

use output::Row;

#[derive(Parser)]
#[command(
    about = "SSSP and BFS under every frontier schedule against a naive vertex-per-thread kernel"
)]
pub struct Args {
    /// R-MAT scale (2^scale vertices, 16 edges drawn per vertex); 0 leaves it out.
    #[arg(long, default_value_t = 22)]
    pub scale: u32,
    /// Side of the road-like grid; 0 leaves it out.
    #[arg(long, default_value_t = 2048)]
    pub grid: usize,
    /// Vertices of a power-law graph (mean out-degree 16, exponent 2, random heads); 0 leaves it
    /// out.
    #[arg(long, default_value_t = 1 << 21)]
    pub powerlaw: usize,
    /// Vertices of an arrow graph (vertex 0 points to every vertex, every other vertex to 0 and
    /// itself: one frontier of a single vertex of degree n); 0 leaves it out.
    #[arg(long, default_value_t = 1_000_000)]
    pub arrow: usize,
    /// Scale of a Graph500 Kronecker graph (2^scale vertices, 16 edges drawn per vertex, permuted,
    /// undirected); 0 leaves it out.
    #[arg(long, default_value_t = 20)]
    pub kron_scale: u32,
    /// Vertices of a road network (`loops::io::generate::road`); 0 leaves it out.
    #[arg(long, default_value_t = 1_000_000)]
    pub road: usize,
    /// The bucket width of `sssp-delta` (default: from the graph's weights and degree, by the
    /// loop's rule: `default_delta` on the host, `default_device_delta` on the device).
    #[arg(long)]
    pub delta: Option<u32>,
    /// The hops of a round of the device `sssp-delta` (1 to 16; the generated rounds stop at 3, the
    /// built-in `lanes` round does them all; default: `default_hops`).
    #[arg(long)]
    pub hops: Option<u32>,
    /// The largest out-degree of a vertex a device `sssp-delta` round relaxes through (with
    /// `--hops` above 1; default 8).
    #[arg(long, default_value_t = 8)]
    pub hop_degree: u32,
    /// The device `sssp-delta`'s round compaction reads one near flag per thread at a time, not
    /// four (`NearFarLoop::set_wide_scan`).
    #[arg(long)]
    pub narrow_scan: bool,
    /// After each graph's rows: the device `sssp-delta` under each of `--sweep-schedules` with
    /// each of these deltas, in multiples of the graph's mean weight, each of `--sweep-hops` and
    /// `--sweep-hop-degrees` (a line each: time, levels, rounds, advances): the data of the
    /// device delta's fit.
    #[arg(long, value_delimiter = ',')]
    pub sweep_deltas: Vec<f64>,
    /// The hops of the sweep (`--sweep-deltas`).
    #[arg(long, value_delimiter = ',', default_value = "1,2,3")]
    pub sweep_hops: Vec<u32>,
    /// The largest out-degrees a sweep's round of more than one hop relaxes through.
    #[arg(long, value_delimiter = ',', default_value = "8")]
    pub sweep_hop_degrees: Vec<u32>,
    /// The schedules of the sweep.
    #[arg(long, value_delimiter = ',', default_value = "warp")]
    pub sweep_schedules: Vec<String>,
    /// More graphs: Matrix Market files (their pattern, seeded random weights).
    #[arg(long)]
    pub matrix: Vec<PathBuf>,
    /// The graph classes of the world set instead of the graphs above (and without the naive
    /// kernel); the summary gives auto against the best fixed schedule per class and half.
    #[arg(long, conflicts_with = "matrix")]
    pub world: bool,
    /// Seeds of the world set (0..this).
    #[arg(long, default_value_t = 4)]
    pub world_seeds: u64,
    /// Only the world graphs of at most this many vertices (the 10^6-vertex road networks need
    /// thousands of frontier steps per traversal).
    #[arg(long)]
    pub max_vertices: Option<usize>,
    /// Wall time one kernel's runs may take on one graph and algorithm: a kernel whose first run
    /// says it would take longer gets fewer timed runs (at least 3) and no more warm-ups.
    #[arg(long, default_value_t = 3000.0)]
    pub kernel_budget_ms: f64,
    /// Edge weights are drawn from 1..=max_weight.
    #[arg(long, default_value_t = 64)]
    pub max_weight: u32,
    #[arg(long, default_value_t = 2024)]
    pub seed: u64,
    /// Untimed runs before timing (at least 2: the first, timed on the host, sizes the rest; the
    /// last is the timing's own).
    #[arg(long, default_value_t = 2)]
    pub warmup: usize,
    /// Timed runs; the median is reported.
    #[arg(long, default_value_t = 7)]
    pub reps: usize,
    /// Leave out the algorithms of issue 26 (direction-optimizing BFS with its push-only loop,
    /// PageRank, connected components, triangle counting; not run on the world set).
    #[arg(long)]
    pub no_algorithms: bool,
    /// Only these of issue 26's algorithms: `bfs` (push-only and direction-optimizing),
    /// `pagerank`, `cc`, `tc` (default: all); with `--library`, its sections: `bfs`, `sssp`,
    /// `pagerank`, `cc`, `kcore`.
    #[arg(long, value_delimiter = ',', value_parser = ["bfs", "sssp", "pagerank", "cc", "tc", "kcore"])]
    pub algorithms: Vec<String>,
    /// Leave out the SSSP and BFS traversal rows (the frontier loops), for a run of the
    /// algorithms alone.
    #[arg(long)]
    pub no_traversals: bool,
    /// Only these traversals: `sssp` (Bellman-Ford), `sssp-delta` (near-far), `bfs` (default:
    /// all three).
    #[arg(long, value_delimiter = ',', value_parser = ["sssp", "sssp-delta", "bfs"])]
    pub traversals: Vec<String>,
    /// The pull schedules `bfs-do` pairs with each push schedule (default: `thread`, the fastest
    /// pull measured, `loops::graph::bfs_do::FAST_PULL`).
    #[arg(long, value_delimiter = ',')]
    pub pull: Vec<String>,
    /// The device loop's walk limit (`FrontierLoop::set_walk_limit`: a level's compaction
    /// walks the frontier's edges while their lanes stay within it; 0 always scans the flags).
    #[arg(long)]
    pub walk_limit: Option<u64>,
    /// Blocks of each device-loop step (default: one wave of resident blocks).
    #[arg(long)]
    pub step_blocks: Option<u32>,
    /// Blocks of each device-loop compaction (default: one wave).
    #[arg(long)]
    pub compact_blocks: Option<u32>,
    /// Launch every kernel the ordinary way, not with programmatic dependent launch
    /// (`Gpu::set_programmatic_launch(false)`), for comparison.
    #[arg(long)]
    pub no_programmatic: bool,
    /// Levels per recorded replay of the device loop (a multiple of 6; default 48).
    #[arg(long)]
    pub levels_per_replay: Option<usize>,
    /// Print each `bfs-do` run's levels: direction, frontier size, microseconds.
    #[arg(long)]
    pub bfs_trace: bool,
    /// Instead of the rows above: where a direction-optimizing BFS's time goes, level by level,
    /// each step (and pull variants) timed alone on each level's state (`do_profile.rs`).
    #[arg(long)]
    pub do_profile: bool,
    /// PageRank's iterations.
    #[arg(long, default_value_t = 20)]
    pub pagerank_iterations: u32,
    /// Instead of the rows above: the library calls (`loops::graph::{bfs, sssp, pagerank,
    /// components, k_core}`) per strategy and `auto` against the best, with Gunrock beside them (`--gunrock-bin`); `library.rs`.
    #[arg(long)]
    pub library: bool,
    /// With `--library`: the folder of Gunrock v2.1.0's `gunrock.{bfs,sssp,pr}` (the peers'
    /// `bin`), run on each graph written as a Matrix Market file.
    #[arg(long)]
    pub gunrock_bin: Option<PathBuf>,
    /// With `--gunrock-bin`: only graphs of at most this many edges are written and run by Gunrock.
    #[arg(long, default_value_t = 40_000_000)]
    pub gunrock_max_edges: usize,
    /// With `--library`: k-core only on graphs of at most this many vertices (its CPU reference
    /// and the host loop's passes are slow on long chains).
    #[arg(long, default_value_t = 2_000_000)]
    pub kcore_max_vertices: usize,
    /// With `--library`: also the small graphs of the per-iteration target (Kronecker scale 12,
    /// a road network of 100,000 vertices, a 256 x 256 grid).
    #[arg(long)]
    pub library_small: bool,
    /// With `--library`: also paths of 16 and 1,024 vertices and one path, each over this many
    /// randomly numbered vertices (`path_N`, `paths_N_LEN`): components' iterations by length,
    /// on the same vertices; 0 leaves them out.
    #[arg(long, default_value_t = 0)]
    pub paths: usize,
    /// Instead of the rows above: graph `auto` against every fixed choice it measures between,
    /// per algorithm, on road, social, citation, web and Kronecker graphs in two halves
    /// (`auto_set.rs`), into `graphs_auto.csv`.
    #[arg(long)]
    pub graphs_auto: bool,
    /// With `--graphs-auto`: run every k-th graph from the i-th (`i/k`; one process per GPU).
    #[arg(long)]
    pub part: Option<String>,
    /// With `--graphs-auto`: start no graph after this many seconds.
    #[arg(long, default_value_t = f64::INFINITY)]
    pub deadline_s: f64,
    /// With `--graphs-auto`: the folder of luxembourg, USPowerGrid and ca-GrQc (`.mtx`).
    #[arg(long, default_value = "../shared/data/matrices")]
    pub auto_matrices: PathBuf,
    /// Instead of a run: the summary of `--graphs-auto` CSVs (`auto` over the best fixed choice
    /// per algorithm, class and half) into `summary_graphs_auto.txt` in `--out`.
    #[arg(long, value_delimiter = ',')]
    pub auto_summary: Vec<PathBuf>,
    /// Where `graphs.csv` goes.
    #[arg(long, default_value = "target/bench")]
    pub out: PathBuf,
    /// The frontier loop(s): `host` (`LoopOn::Host`, a count read back per level), `device`
    /// (`LoopOn::DevicePush` and `DeviceQueue`, for the schedules that run there), or `both`. The naive kernel and
    /// the world set's summary use the host loop.
    #[arg(long = "loop", value_enum, default_value_t = Loops::Both)]
    pub loops: Loops,
}

/// `--loop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Loops {
    Host,
    Device,
    Both,
}

pub type BoxError = Box<dyn std::error::Error>;

/// The fewest timed runs a kernel's median is taken over.
pub const MIN_REPS: usize = 3;

fn main() -> ExitCode {
    let args = Args::parse();
    let result = if !args.auto_summary.is_empty() {
        std::fs::create_dir_all(&args.out)
            .map_err(BoxError::from)
            .and_then(|()| {
                auto_set::summary(
                    &args.auto_summary,
                    &args.out.join("summary_graphs_auto.txt"),
                )
            })
    } else if args.graphs_auto {
        auto_set::run(&args)
    } else if args.do_profile {
        do_profile::run(&args)
    } else if args.library {
        library::run(&args)
    } else {
        run(&args)
    };
    match result {
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

/// What every graph is run with.
pub struct Bench<'a> {
    pub gpu: &'a Gpu,
    pub args: &'a Args,
    /// The naive kernels, by algorithm; empty on the world set.
    pub naive: Vec<(Algorithm, cudarc::driver::CudaFunction)>,
    pub rows: Vec<Row>,
    /// Per algorithm, auto against the best fixed schedule on each world graph.
    pub world: Vec<(&'static str, WorldRow)>,
    pub csv: PathBuf,
    pub wrong: usize,
}

fn run(args: &Args) -> Result<usize, BoxError> {
    let gpu = Gpu::new(0)?;
    gpu.set_programmatic_launch(!args.no_programmatic);
    println!("device: {}", gpu.name());
    let naive = if args.world {
        Vec::new()
    } else {
        vec![
            (
                Algorithm::Sssp,
                gpu.function("naive_sssp", traversals::NAIVE_SOURCE, "naive_sssp")?,
            ),
            (
                Algorithm::Bfs,
                gpu.function("naive_bfs", traversals::NAIVE_SOURCE, "naive_bfs")?,
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
    let all = cases::cases(args);
    output::print_header();
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
