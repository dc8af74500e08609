//! Single-source shortest paths, one relaxation step over a frontier (the paper's Listing 5, written
//! tile-major over a tile subset): for each edge `v -> u` of each frontier vertex `v`, lower
//! `dist[u]` to `dist[v] + w` with `atomic_min` and, when that lowered it, flag `u` for the next
//! frontier. Integer (u32) weights and distances, so results are exact; `u32::MAX` is "unreached".
//! The host loop (flags compacted into the next frontier on the GPU, until it is empty) is
//! `loops::graph::FrontierLoop`. [`sssp`](fn@super::sssp) runs it, or near-far delta-stepping
//! ([`super::sssp_near_far`]), by options.

use loops_runtime::graph::{
    DeviceGraph, FrontierLoop, LoopOn, LoopStats, NearFarLoop, NearFarOn, NearFarStats,
};

use super::driver::{self, check_source, timed, unsupported, GraphStats, Strategy};
use super::sssp_near_far;
use crate::prelude::*;

/// One Bellman-Ford step restricted to the frontier: `g` is the graph's adjacency (vertex `v`'s
/// edges are atoms `g.atoms(v)`), `adj[e]` an edge's head and `weights[e]` its weight.
#[for_schedules(core)]
pub fn sssp(
    g: Offsets,
    adj: &[u32],
    weights: &[u32],
    frontier: &[u32],
    dist: &mut [u32],
    next: &mut [u32],
) {
    for v in g.tiles_in(frontier) {
        let dv = dist[v];
        for e in g.atoms(v) {
            let u = adj[e] as usize;
            let nd = dv + weights[e];
            if nd < dist[u] {
                let old = atomic_min(&mut dist[u], nd);
                if nd < old {
                    next[u] = 1;
                }
            }
        }
    }
}

/// Shortest-path distances from `source` into `dist` (one element per vertex, initialized here),
/// the `sssp` step (Bellman-Ford over the frontier) under `schedule` run in the loop `on` of
/// `frontier` (`loops::graph::FrontierLoop`, the one driver) until no distance changes. On the
/// device `schedule` must take its frontier's size from the device (thread, the groups, auto; the
/// others are refused with `LoopsError::LoopOnDevice`). Not in `LoopOn::DeviceQueue`: a vertex
/// may be lowered twice a level, so it needs flags.
pub fn run(
    schedule: &str,
    gpu: &Gpu,
    frontier: &mut FrontierLoop,
    on: LoopOn<'_>,
    g: &DeviceGraph,
    source: u32,
    dist: &mut DeviceBuffer<u32>,
) -> crate::Result<LoopStats> {
    if matches!(on, LoopOn::DeviceQueue) {
        return Err(unsupported(
            "sssp",
            Strategy::DeviceQueue,
            "the loops of flags",
        ));
    }
    driver::traverse(
        gpu,
        frontier,
        on,
        source,
        dist,
        |gpu, current, dist, next| {
            let (offsets, adj, weights) = (g.offsets(), g.adj(), g.weights());
            launch(
                schedule,
                gpu,
                offsets,
                adj,
                weights,
                current,
                dist,
                next.flags()?,
            )
        },
    )
}

/// How [`sssp`](fn@super::sssp) relaxes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SsspMethod {
    /// Near-far delta-stepping ([`super::sssp_near_far`]): the near bucket's frontier relaxed
    /// until empty, then the bucket advanced by `delta`.
    #[default]
    NearFar,
    /// Bellman-Ford restricted to the frontier: every vertex whose distance fell is relaxed the
    /// next round.
    BellmanFord,
}

/// What [`sssp`](fn@super::sssp) is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsspOptions {
    /// The relaxation round's schedule, a name of `loops::SCHEDULES` (default `auto`); near-far
    /// takes also the runtime's round, `lanes` or `lanes<k>` ([`sssp_near_far::LANES`]).
    pub schedule: String,
    /// The loop (default [`Strategy::Auto`]: the device loop where the schedule allows it).
    /// Bellman-Ford runs in every loop but the queue; near-far in the host loop and
    /// [`Strategy::DeviceFlags`].
    pub strategy: Strategy,
    /// Near-far (the default) or Bellman-Ford.
    pub method: SsspMethod,
    /// Near-far's bucket width; `None` (the default): from the graph's weights and degree.
    pub delta: Option<u32>,
}

impl Default for SsspOptions {
    fn default() -> SsspOptions {
        SsspOptions {
            schedule: "auto".to_string(),
            strategy: Strategy::Auto,
            method: SsspMethod::NearFar,
            delta: None,
        }
    }
}

/// What [`sssp`](fn@super::sssp) found.
pub struct SsspResult {
    /// Each vertex's distance from the source, `UNREACHED` where no path goes.
    pub dist: DeviceBuffer<u32>,
    /// What the run did.
    pub stats: GraphStats,
}

/// Single-source shortest paths from `source` on `graph` (`u32` weights, exact distances):
/// near-far delta-stepping or Bellman-Ford (`options.method`), the round under
/// `options.schedule`, in the loop of `options.strategy`. Errors if `source` is not a vertex or
/// the strategy or schedule cannot run the asked method.
///
/// ```no_run
/// use loops::graph::{sssp, Graph, SsspMethod, SsspOptions};
/// # fn main() -> loops::Result<()> {
/// let gpu = loops::Gpu::new(0)?;
/// let g = Graph::from_edges(3, &[(0, 1, 5), (1, 2, 1), (0, 2, 9)])?;
/// let dg = gpu.upload_graph(&g)?;
/// let options = SsspOptions { delta: Some(4), ..SsspOptions::default() };
/// let run = sssp(&gpu, &dg, 0, &options)?;
/// assert_eq!(gpu.download(&run.dist)?, [0, 5, 6]);
/// let bf = SsspOptions { method: SsspMethod::BellmanFord, ..SsspOptions::default() };
/// assert_eq!(gpu.download(&sssp(&gpu, &dg, 0, &bf)?.dist)?, [0, 5, 6]);
/// # Ok(())
/// # }
/// ```
pub fn sssp(
    gpu: &Gpu,
    graph: &DeviceGraph,
    source: u32,
    options: &SsspOptions,
) -> crate::Result<SsspResult> {
    let n = graph.vertices();
    check_source(source, n)?;
    let schedule = options.schedule.as_str();
    // `auto`: measured among the loops the schedule can run in (`super::auto`).
    if options.strategy == Strategy::Auto {
        if let Some(run) = super::auto::sssp_auto(gpu, graph, source, options)? {
            return Ok(run);
        }
    }
    let mut dist = gpu.zeros(n)?;
    let strategy = match options.strategy {
        Strategy::Auto if driver::on_device(schedule) => Strategy::DeviceFlags,
        Strategy::Auto => Strategy::Host,
        s => s,
    };
    let stats = match options.method {
        SsspMethod::BellmanFord => {
            if strategy == Strategy::DeviceQueue {
                let runs_in = "host, device-flags, device-scan";
                return Err(unsupported("sssp", strategy, runs_in));
            }
            let on = strategy.loop_on(graph).expect("a strategy, not Auto");
            let mut frontier = FrontierLoop::new(gpu, n)?;
            let (ran, time) = timed(gpu, || {
                run(schedule, gpu, &mut frontier, on, graph, source, &mut dist)
            })?;
            let mut stats = GraphStats::new("sssp", schedule, strategy).with_loop(ran);
            stats.time = time;
            stats
        }
        SsspMethod::NearFar => {
            let on = match strategy {
                Strategy::Host => NearFarOn::Host,
                Strategy::DeviceFlags => NearFarOn::Device,
                other => return Err(unsupported("sssp", other, "host, device-flags")),
            };
            let mut near_far = NearFarLoop::new(gpu, n)?;
            near_far.set_delta(options.delta);
            let nf = &mut near_far;
            let (ran, time) = timed(gpu, || {
                sssp_near_far::run(schedule, gpu, nf, on, graph, source, &mut dist)
            })?;
            near_far_stats(schedule, strategy, ran, time)
        }
    };
    Ok(SsspResult { dist, stats })
}

/// The stats of a near-far run.
fn near_far_stats(
    schedule: &str,
    strategy: Strategy,
    ran: NearFarStats,
    time: std::time::Duration,
) -> GraphStats {
    let mut stats = GraphStats::new("sssp-near-far", schedule, strategy);
    stats.iterations = ran.rounds;
    stats.advances = ran.advances;
    stats.frontier_vertices = ran.frontier_vertices;
    stats.max_frontier = ran.max_frontier;
    stats.time = time;
    stats
}
