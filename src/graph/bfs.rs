//! Breadth-first search ([`bfs`](fn@super::bfs)), one level-synchronous push step over a frontier: every unvisited neighbour
//! `u` of a frontier vertex `v` gets level `levels[v] + 1`; the thread whose `atomic_min` took it
//! from "unvisited" (`u32::MAX`) flags it for the next frontier, so each vertex enters a frontier
//! once. The level comes from the vertex, not from the host: every vertex of the frontier of
//! level `d` holds `d` (a step writes only `d + 1`, into vertices above it), so the same kernel runs
//! in every loop of `loops::graph::FrontierLoop` ([`run`]: the host's, the device's flags), and
//! its queue form (`queue::bfs_queue`, which appends the next frontier itself) in the device queue.

use loops_runtime::graph::{DeviceGraph, FrontierLoop, LoopOn, LoopStats, Next};

use super::bfs_do::{self, Switch};
use super::driver::{self, check_source, timed, unsupported, GraphStats, Strategy};
use crate::prelude::*;

/// One BFS level: `frontier` holds the vertices of one level.
#[for_schedules(core)]
pub fn bfs(g: Offsets, adj: &[u32], frontier: &[u32], levels: &mut [u32], next: &mut [u32]) {
    for v in g.tiles_in(frontier) {
        let reached = levels[v] + 1;
        for e in g.atoms(v) {
            let u = adj[e] as usize;
            if levels[u] > reached {
                let old = atomic_min(&mut levels[u], reached);
                if old > reached {
                    next[u] = 1;
                }
            }
        }
    }
}

/// The step that appends its next frontier ([`run`] in the device queue), under the schedules whose tile
/// loop takes the frontier's size from the device.
pub mod queue {
    use super::*;

    /// One BFS level that appends the next frontier itself: the thread whose `atomic_min`
    /// took `u` from "unvisited" appends it with the warp-aggregated `push` (one atomic on
    /// `next_size[0]` per warp and round that appends, not one per vertex: a power-law level
    /// appends millions of vertices to one counter), each vertex once a run, so never past
    /// `next.len()`, the loop's vertices (`push` writes only below it).
    #[for_schedules(thread, group2, warp, group64, block, merge_path, auto)]
    pub fn bfs_queue(
        g: Offsets,
        adj: &[u32],
        frontier: &[u32],
        levels: &mut [u32],
        next: &mut [u32],
        next_size: &mut [u32],
    ) {
        for v in g.tiles_in(frontier) {
            let reached = levels[v] + 1;
            for e in g.atoms(v) {
                let u = adj[e];
                if levels[u as usize] > reached {
                    let old = atomic_min(&mut levels[u as usize], reached);
                    if old > reached {
                        push(&mut next, &mut next_size[0], u);
                    }
                }
            }
        }
    }
}

/// The schedules of `queue::bfs_queue` that [`run`] takes in the device queue: those whose tile loop
/// takes the frontier's size from the device ([`queue::SCHEDULES`] less `merge_path`, which only
/// the first level of a hub runs, see [`HUB_DEGREE`]).
pub const DEVICE_QUEUE_SCHEDULES: &[&str] =
    &["thread", "group2", "warp", "group64", "block", "auto"];

/// The largest out-degree above which [`run`] in the device queue runs its first level (the source alone,
/// whose size the host knows) under `merge_path`, spread over the whole grid, instead of the
/// device loop's schedule, which gives a vertex at most a block (`block`) or a warp: the source of
/// a power-law graph's BFS is often a hub of 10^4 to 10^5 edges, which a group of lanes walks in
/// thousands of dependent steps. `merge_path` costs a prefix sum and a read-back of the frontier's
/// edges (tens of microseconds), which the first level (launched directly, never recorded) may
/// wait for.
pub const HUB_DEGREE: u64 = 4096;

/// BFS levels from `source` into `levels` (one element per vertex, initialized here) in the loop
/// `on` of `frontier` (`loops::graph::FrontierLoop`, the one driver): the `bfs` step under
/// `schedule` where the loop takes flags (`LoopOn::{Host, DeviceScan, DevicePush}`), the
/// `queue::bfs_queue` step that appends the next frontier itself in `LoopOn::DeviceQueue`. On
/// the device `schedule` must take its frontier's size from the device
/// ([`DEVICE_QUEUE_SCHEDULES`]; the others are refused with `LoopsError::LoopOnDevice`). In the
/// device queue, on a graph whose largest out-degree is above [`HUB_DEGREE`] the first level runs
/// under `merge_path` over the source alone (the loop launches it directly, not recorded), and
/// large frontiers of the first levels run alone, sized on the host, unless the caller set the
/// loop's own limit (`FrontierLoop::set_host_sized_from`).
pub fn run(
    schedule: &str,
    gpu: &Gpu,
    frontier: &mut FrontierLoop,
    on: LoopOn<'_>,
    g: &DeviceGraph,
    source: u32,
    levels: &mut DeviceBuffer<u32>,
) -> crate::Result<LoopStats> {
    let queue_run = matches!(on, LoopOn::DeviceQueue);
    // The source as a list the host knows the length of, for the first level of a hub.
    let hub_first = if queue_run
        && g.offsets().stats().max_tile_atoms > HUB_DEGREE
        && (source as usize) < g.vertices()
    {
        Some(gpu.upload(&[source])?)
    } else {
        None
    };
    let mut first = true;
    let asked = frontier.host_sized_from();
    if queue_run && asked.is_none() {
        frontier.set_host_sized_from(Some(frontier.resident_warps()));
    }
    let (offsets, adj) = (g.offsets(), g.adj());
    let ran = driver::traverse(
        gpu,
        frontier,
        on,
        source,
        levels,
        |loop_gpu, current, levels, next| {
            match next {
                Next::Flags(flags) => {
                    launch(schedule, loop_gpu, offsets, adj, current, levels, flags)
                }
                Next::Queue { next, size } => {
                    // The first call is level 0, launched directly (never recorded): the handle
                    // captured here, outside the loop's context, sizes the launch on the host.
                    if let (true, Some(list)) = (std::mem::take(&mut first), &hub_first) {
                        return queue::launch(
                            "merge_path",
                            gpu,
                            offsets,
                            adj,
                            list,
                            levels,
                            next,
                            size,
                        );
                    }
                    queue::launch(
                        schedule, loop_gpu, offsets, adj, current, levels, next, size,
                    )
                }
            }
        },
    );
    if queue_run && asked.is_none() {
        frontier.set_host_sized_from(None);
    }
    ran
}

/// What [`bfs`](fn@super::bfs) is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BfsOptions {
    /// The push step's schedule, a name of `loops::SCHEDULES` (default `auto`). With direction
    /// optimization the pull step runs under the same where it has it, else `warp`
    /// ([`bfs_do::pull_schedule_for`]).
    pub schedule: String,
    /// The loop (default [`Strategy::Auto`]: the device queue where the schedule allows it).
    pub strategy: Strategy,
    /// Direction optimization: `Some(switch)` turns to pull steps by `switch`
    /// ([`Switch::BEAMER`] is the paper's), chosen on the device in the device queue loop
    /// ([`bfs_do::run`]; `Auto` where the schedule allows it) or on the host in the host
    /// loop; `None` (the default) pushes only.
    /// The graph must then be undirected (symmetric). The state of these runs is kept per thread
    /// and `Gpu` handle ([`bfs_do::run_kept`]): a second call allocates nothing, and in the device
    /// queue the third call on the same graph on replays the levels the second recorded
    /// ([`bfs_do::release_kept`] frees it).
    pub direction: Option<Switch>,
}

impl Default for BfsOptions {
    fn default() -> BfsOptions {
        BfsOptions {
            schedule: "auto".to_string(),
            strategy: Strategy::Auto,
            direction: None,
        }
    }
}

/// What [`bfs`](fn@super::bfs) found.
pub struct BfsResult {
    /// Each vertex's level, `UNREACHED` where no path goes.
    pub levels: DeviceBuffer<u32>,
    /// With direction optimization, each vertex's parent (the source its own, `UNREACHED` for an
    /// unreached vertex); `None` without.
    pub parents: Option<DeviceBuffer<u32>>,
    /// What the run did.
    pub stats: GraphStats,
}

/// Breadth-first search from `source` on `graph`: every vertex's level, push steps under
/// `options.schedule`, in the loop of `options.strategy`, direction-optimizing where
/// `options.direction` asks. Errors if `source` is not a vertex, or the strategy or schedule
/// cannot run the asked search (direction optimization runs in the host loop and the device
/// queue; the device loops take the schedules that size their launches on the device).
///
/// ```no_run
/// use loops::graph::{bfs, BfsOptions, Graph};
/// # fn main() -> loops::Result<()> {
/// let gpu = loops::Gpu::new(0)?;
/// let g = Graph::from_edges(4, &[(0, 1, 1), (1, 2, 1), (2, 3, 1), (0, 3, 1)])?;
/// let dg = gpu.upload_graph(&g)?;
/// let run = bfs(&gpu, &dg, 0, &BfsOptions::default())?;
/// assert_eq!(gpu.download(&run.levels)?, [0, 1, 2, 1]);
/// println!("{} levels in {:?} ({})", run.stats.iterations, run.stats.time, run.stats.strategy.name());
/// # Ok(())
/// # }
/// ```
pub fn bfs(
    gpu: &Gpu,
    graph: &DeviceGraph,
    source: u32,
    options: &BfsOptions,
) -> crate::Result<BfsResult> {
    let n = graph.vertices();
    check_source(source, n)?;
    let schedule = options.schedule.as_str();
    // `auto`: measured among the loops the schedule can run in (`super::auto`).
    if options.strategy == Strategy::Auto {
        if let Some(run) = super::auto::bfs_auto(gpu, graph, source, options)? {
            return Ok(run);
        }
    }
    // Written in full by every run (the device loop's start or finish, the host loop's fill):
    // a memset here would be a pass over the buffer for nothing.
    let mut levels = gpu.uninit(n)?;
    if let Some(switch) = options.direction {
        let strategy = match options.strategy {
            Strategy::Auto
                if driver::on_device(schedule)
                    && bfs_do::push_queue::SCHEDULES.contains(&schedule) =>
            {
                Strategy::DeviceQueue
            }
            Strategy::Auto => Strategy::Host,
            s @ (Strategy::Host | Strategy::DeviceQueue) => s,
            s => {
                return Err(unsupported(
                    "direction-optimizing bfs",
                    s,
                    "the host loop and the device queue",
                ))
            }
        };
        let mut parents = gpu.uninit(n)?;
        let pull = if strategy == Strategy::DeviceQueue {
            bfs_do::device_pull_schedule_for(schedule)
        } else {
            bfs_do::pull_schedule_for(schedule)
        };
        let (ran, time) = timed(gpu, || {
            bfs_do::run_kept(
                strategy,
                schedule,
                pull,
                switch,
                gpu,
                graph,
                source,
                &mut levels,
                &mut parents,
            )
        })?;
        let mut stats = GraphStats::new("bfs-do", schedule, strategy).with_loop(ran);
        stats.time = time;
        return Ok(BfsResult {
            levels,
            parents: Some(parents),
            stats,
        });
    }
    let strategy = match options.strategy {
        Strategy::Auto if driver::on_device(schedule) && queue::SCHEDULES.contains(&schedule) => {
            Strategy::DeviceQueue
        }
        Strategy::Auto => Strategy::Host,
        s => s,
    };
    let on = strategy.loop_on(graph).expect("a strategy, not Auto");
    let mut frontier = FrontierLoop::new(gpu, n)?;
    let (ran, time) = timed(gpu, || {
        run(schedule, gpu, &mut frontier, on, graph, source, &mut levels)
    })?;
    let mut stats = GraphStats::new("bfs", schedule, strategy).with_loop(ran);
    stats.time = time;
    Ok(BfsResult {
        levels,
        parents: None,
        stats,
    })
}
