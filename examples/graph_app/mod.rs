//! What the `sssp` and `bfs` examples share: the command line, the graphs, and running, checking
//! and timing one traversal kernel under one schedule.
#![allow(dead_code)] // each example uses one algorithm; the benchmark both

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use loops::graph::{
    traversed_edges, DeviceGraph, FrontierLoop, Graph, LoopOn, LoopStats, UNREACHED,
};
use loops::prelude::*;

/// The traversal an example runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Sssp,
    Bfs,
    /// Delta-stepping SSSP with near and far buckets (`loops::graph::sssp_near_far`).
    SsspDelta,
}

impl Algorithm {
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Sssp => "sssp",
            Algorithm::Bfs => "bfs",
            Algorithm::SsspDelta => "sssp-delta",
        }
    }

    /// The CPU reference.
    pub fn reference(self, g: &Graph, source: u32) -> Vec<u32> {
        match self {
            Algorithm::Sssp | Algorithm::SsspDelta => loops::graph::dijkstra(g, source),
            Algorithm::Bfs => loops::graph::bfs_levels(g, source),
        }
    }

    /// The schedules its kernel is instantiated with.
    pub fn schedules(self) -> &'static [&'static str] {
        match self {
            Algorithm::Sssp => loops::graph::sssp::SCHEDULES,
            Algorithm::Bfs => loops::graph::bfs::SCHEDULES,
            Algorithm::SsspDelta => loops::graph::sssp_near_far::SCHEDULES,
        }
    }

    /// Each instantiation's description, by schedule.
    pub fn kernels(self) -> &'static [(&'static str, &'static loops::__private::KernelDesc)] {
        match self {
            Algorithm::Sssp => loops::graph::sssp::KERNELS,
            Algorithm::Bfs => loops::graph::bfs::KERNELS,
            Algorithm::SsspDelta => loops::graph::sssp_near_far::KERNELS,
        }
    }

    /// The schedules that run in the device frontier loop (their frontier's size read on the
    /// device): thread, the groups, auto; none for `SsspDelta`, whose near-far loop is the host's.
    pub fn device_schedules(self) -> Vec<&'static str> {
        if self == Algorithm::SsspDelta {
            return Vec::new();
        }
        self.kernels()
            .iter()
            .filter(|(_, k)| k.runs_in_device_loop())
            .map(|&(s, _)| s)
            .collect()
    }

    /// One traversal from `source` into `out` under `schedule`, in the loop `on` of `frontier`.
    /// `SsspDelta` makes its own `NearFarLoop` here, on the host only (buffers and all: the
    /// benchmark keeps one per graph instead).
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        self,
        schedule: &str,
        gpu: &Gpu,
        frontier: &mut FrontierLoop,
        on: LoopOn<'_>,
        g: &DeviceGraph,
        source: u32,
        out: &mut DeviceBuffer<u32>,
    ) -> loops::Result<LoopStats> {
        match self {
            Algorithm::Sssp => loops::graph::sssp::run(schedule, gpu, frontier, on, g, source, out),
            Algorithm::Bfs => loops::graph::bfs::run(schedule, gpu, frontier, on, g, source, out),
            Algorithm::SsspDelta if !matches!(on, LoopOn::Host) => {
                Err(loops::LoopsError::LoopOnDevice {
                    kernel: "sssp_near_far".into(),
                    detail: "the near-far SSSP runs its own loops".into(),
                })
            }
            Algorithm::SsspDelta => {
                let mut near_far = loops::graph::NearFarLoop::new(gpu, g.vertices())?;
                let on = loops::graph::NearFarOn::Host;
                loops::graph::sssp_near_far::run(schedule, gpu, &mut near_far, on, g, source, out)
                    .map(LoopStats::from)
            }
        }
    }
}

#[derive(Parser)]
pub struct Args {
    /// A Matrix Market file: its pattern is the graph (an edge r -> c per entry), with seeded random
    /// weights. Without it: a generated R-MAT graph and a road-like 2-D grid.
    #[arg(long)]
    pub matrix: Option<PathBuf>,
    /// The source vertex. Default: a vertex of largest out-degree.
    #[arg(long)]
    pub source: Option<u32>,
    /// The schedule (a module of `src/graph/{sssp,bfs}.rs`), or `all`.
    #[arg(long, default_value = "auto")]
    pub schedule: String,
    /// R-MAT scale of the generated graph (2^scale vertices, 16 edges drawn per vertex).
    #[arg(long, default_value_t = 20)]
    pub scale: u32,
    /// Side of the generated road-like grid (side x side vertices, 4 neighbours and a self-loop each).
    #[arg(long, default_value_t = 1024)]
    pub grid: usize,
    /// Edge weights are drawn from 1..=max_weight (SSSP; BFS ignores them).
    #[arg(long, default_value_t = 64)]
    pub max_weight: u32,
    /// Seed of the generated graphs and of the weights.
    #[arg(long, default_value_t = 2024)]
    pub seed: u64,
    /// Timed runs (after one warm-up); the median is reported.
    #[arg(long, default_value_t = 5)]
    pub reps: usize,
}

/// The example's graphs: the file's, or the generated pair.
pub fn graphs(args: &Args) -> Result<Vec<(String, Graph)>, Box<dyn std::error::Error>> {
    let started = Instant::now();
    let graphs = match &args.matrix {
        Some(path) => {
            let m = loops::io::mtx::read_csr::<f32>(path)?;
            vec![(
                path.display().to_string(),
                Graph::from_pattern(&m, args.max_weight, args.seed)?,
            )]
        }
        None => {
            let rmat: sprs::CsMat<f32> = loops::io::generate::rmat(args.scale, 16, args.seed);
            let grid: sprs::CsMat<f32> =
                loops::io::generate::grid2d(args.grid, args.grid, args.seed);
            vec![
                (
                    format!("rmat scale {} (seed {})", args.scale, args.seed),
                    Graph::from_pattern(&rmat, args.max_weight, args.seed)?,
                ),
                (
                    format!("road-like grid {0}x{0}", args.grid),
                    Graph::from_pattern(&grid, args.max_weight, args.seed)?,
                ),
            ]
        }
    };
    eprintln!("graphs built in {:.1} s", started.elapsed().as_secs_f64());
    Ok(graphs)
}

/// Runs the example: every graph, the chosen schedule(s), checked and timed. Exit status non-zero on
/// any wrong distance or error.
pub fn main(algorithm: Algorithm) -> ExitCode {
    let args = Args::parse();
    match run(algorithm, &args) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(wrong) => {
            eprintln!("{wrong} run(s) gave wrong results");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {}", loops::error_chain(&*e, "\n  caused by: "));
            ExitCode::FAILURE
        }
    }
}

fn run(algorithm: Algorithm, args: &Args) -> Result<usize, Box<dyn std::error::Error>> {
    let schedules: Vec<&str> = if args.schedule == "all" {
        algorithm.schedules().to_vec()
    } else if algorithm.schedules().contains(&args.schedule.as_str()) {
        vec![args.schedule.as_str()]
    } else {
        return Err(format!(
            "no schedule `{}` for {}: one of {:?} or `all`",
            args.schedule,
            algorithm.name(),
            algorithm.schedules()
        )
        .into());
    };
    let gpu = Gpu::new(0)?;
    println!("device: {}", gpu.name());
    let mut wrong = 0;
    for (name, g) in graphs(args)? {
        let source = match args.source {
            Some(s) if s as usize >= g.vertices() => {
                return Err(format!("--source {s}: {name} has {} vertices", g.vertices()).into())
            }
            Some(s) => s,
            None => g.max_degree_vertex().ok_or("the graph has no vertices")?,
        };
        let started = Instant::now();
        let want = algorithm.reference(&g, source);
        let reference_s = started.elapsed().as_secs_f64();
        let reached = want.iter().filter(|&&d| d != UNREACHED).count();
        let edges = traversed_edges(&g, &want);
        println!(
            "{name}: {} vertices, {} edges; source {source} reaches {reached} vertices, {edges} edges \
             (CPU reference {:.2} s)",
            g.vertices(),
            g.edges(),
            reference_s
        );
        let dg = gpu.upload_graph(&g)?;
        let mut frontier = FrontierLoop::new(&gpu, g.vertices())?;
        let mut out = gpu.zeros::<u32>(g.vertices())?;
        for schedule in &schedules {
            let timing = time_runs(args.reps, &gpu, || {
                algorithm.run(
                    schedule,
                    &gpu,
                    &mut frontier,
                    LoopOn::Host,
                    &dg,
                    source,
                    &mut out,
                )
            })?;
            let got = gpu.download(&out)?;
            let check =
                loops::graph::compare(&format!("{} {schedule}", algorithm.name()), &want, &got);
            println!(
                "  {:<6} {schedule:<8} {:>9.3} ms  {:>9.1} MTEPS  {:>6} iterations  {}",
                algorithm.name(),
                timing.median_ms,
                edges as f64 / (timing.median_ms * 1e3),
                timing.stats.iterations,
                match &check {
                    Ok(()) => "ok".to_string(),
                    Err(e) => format!("WRONG: {e}"),
                }
            );
            wrong += check.is_err() as usize;
        }
        wrong += !library_call(algorithm, &gpu, &dg, source, &want)? as usize;
    }
    Ok(wrong)
}

/// The algorithm as a user calls it, default options (`auto`, the loop `auto` picks; SSSP
/// near-far), once: checked, with what its stats say. False if wrong.
fn library_call(
    algorithm: Algorithm,
    gpu: &Gpu,
    dg: &DeviceGraph,
    source: u32,
    want: &[u32],
) -> loops::Result<bool> {
    let (got, stats) = match algorithm {
        Algorithm::Bfs => {
            let run = loops::graph::bfs(gpu, dg, source, &loops::graph::BfsOptions::default())?;
            (gpu.download(&run.levels)?, run.stats)
        }
        Algorithm::Sssp | Algorithm::SsspDelta => {
            let run = loops::graph::sssp(gpu, dg, source, &loops::graph::SsspOptions::default())?;
            (gpu.download(&run.dist)?, run.stats)
        }
    };
    let check = loops::graph::compare("library call", want, &got);
    println!(
        "  loops::graph::{}(..) with default options: {} in the {} loop, {} iterations, {:.3} ms \
         (one call, first launches included)  {}",
        match algorithm {
            Algorithm::Bfs => "bfs",
            _ => "sssp",
        },
        stats.algorithm,
        stats.strategy.name(),
        stats.iterations,
        stats.time.as_secs_f64() * 1e3,
        match &check {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("WRONG: {e}"),
        }
    );
    Ok(check.is_ok())
}

/// The median time of `reps` runs after one warm-up, each between two CUDA events.
pub struct Timing {
    pub median_ms: f64,
    pub stats: LoopStats,
}

pub fn time_runs(
    reps: usize,
    gpu: &Gpu,
    mut f: impl FnMut() -> loops::Result<LoopStats>,
) -> loops::Result<Timing> {
    let timer = gpu.timer()?;
    let mut stats = f()?;
    let mut samples = Vec::new();
    for _ in 0..reps.max(1) {
        timer.start()?;
        stats = f()?;
        timer.stop()?;
        samples.push(timer.elapsed_ms()? as f64);
    }
    samples.sort_by(f64::total_cmp);
    Ok(Timing {
        median_ms: samples[samples.len() / 2],
        stats,
    })
}
