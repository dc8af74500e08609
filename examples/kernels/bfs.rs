//! Breadth-first search, one level-synchronous push step over a frontier: every unvisited neighbour
//! `u` of a frontier vertex `v` gets level `levels[v] + 1`; the thread whose `atomic_min` took it
//! from "unvisited" (`u32::MAX`) flags it for the next frontier, so each vertex enters a frontier
//! once. The level comes from the vertex, not from the host: every vertex of the frontier of
//! level `d` holds `d` (a step writes only `d + 1`, into vertices above it), so the same kernel runs
//! in the host loop (`loops::graph::FrontierLoop`, [`run`]) and in the loop that stays on the
//! device (`loops::graph::FrontierLoopOnDevice`, [`run_device`]).

use loops::graph::Traversal;
use loops::prelude::*;

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

/// The step that appends its next frontier ([`run_device_queue`]), under the schedules whose tile
/// loop takes the frontier's size from the device.
pub mod queue {
    use super::*;

    /// One BFS level that appends the next frontier itself: the thread whose `atomic_min`
    /// took `u` from "unvisited" writes it at the slot its `atomic_add` on `next_size[0]`
    /// returns (each vertex once a run, so never past `next.len()`, the loop's vertices; the
    /// test keeps a wrong step from writing out of bounds).
    #[for_schedules(thread, group2, warp, group64, block, auto)]
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
                        let slot = atomic_add(&mut next_size[0], 1) as usize;
                        if slot < next.len() {
                            next[slot] = u;
                        }
                    }
                }
            }
        }
    }
}

/// [`run_device`] with one launch a level: the step appends the next frontier itself
/// (`FrontierLoopOnDevice::run_queue`), no compaction. `schedule` is one of [`queue::SCHEDULES`].
pub fn run_device_queue(
    schedule: &str,
    gpu: &Gpu,
    frontier: &mut loops::graph::FrontierLoopOnDevice,
    g: &loops::graph::DeviceGraph,
    source: u32,
    levels: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::LoopStats> {
    start(gpu, source, levels)?;
    frontier.run_queue(gpu, &[source], |gpu, current, next, next_size, _level| {
        queue::launch(
            schedule,
            gpu,
            g.offsets(),
            g.adj(),
            current,
            levels,
            next,
            next_size,
        )
    })
}

/// Sets every level to "unreached" and the source's to 0.
fn start(gpu: &Gpu, source: u32, levels: &mut DeviceBuffer<u32>) -> loops::Result<()> {
    gpu.fill(levels, loops::graph::UNREACHED)?;
    if (source as usize) < levels.len() {
        gpu.write_at(levels, source as usize, &[0])?;
    }
    Ok(())
}

/// BFS levels from `source` into `levels` (one element per vertex), the `bfs` step under
/// `schedule` run by `frontier` level by level. `levels` is initialized here.
pub fn run(
    schedule: &str,
    gpu: &Gpu,
    frontier: &mut loops::graph::FrontierLoop,
    g: &loops::graph::DeviceGraph,
    source: u32,
    levels: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::LoopStats> {
    traverse(schedule, gpu, Traversal::Host(frontier), g, source, levels)
}

/// [`run`] in the loop that stays on the device: the same step, no host round trip per level, run
/// as a push traversal (`FrontierLoopOnDevice::run_push`: the step flags only out-neighbours of its
/// frontier, so the compaction may walk the frontier's out-edges instead of scanning every flag).
/// `schedule` must take its frontier's size from the device (thread, the groups, auto); the others
/// are refused with `LoopsError::LoopOnDevice`.
pub fn run_device(
    schedule: &str,
    gpu: &Gpu,
    frontier: &mut loops::graph::FrontierLoopOnDevice,
    g: &loops::graph::DeviceGraph,
    source: u32,
    levels: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::LoopStats> {
    traverse(
        schedule,
        gpu,
        Traversal::PushOnDevice(frontier, g),
        g,
        source,
        levels,
    )
}

/// [`run_device`] with the compaction that scans every flag at every level
/// (`FrontierLoopOnDevice::run`, which makes no assumption about the step).
pub fn run_device_scan(
    schedule: &str,
    gpu: &Gpu,
    frontier: &mut loops::graph::FrontierLoopOnDevice,
    g: &loops::graph::DeviceGraph,
    source: u32,
    levels: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::LoopStats> {
    traverse(
        schedule,
        gpu,
        Traversal::ScanOnDevice(frontier),
        g,
        source,
        levels,
    )
}

/// The step under `schedule` from `source`, in `traversal`.
fn traverse(
    schedule: &str,
    gpu: &Gpu,
    traversal: Traversal<'_>,
    g: &loops::graph::DeviceGraph,
    source: u32,
    levels: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::LoopStats> {
    start(gpu, source, levels)?;
    traversal.run(gpu, &[source], |gpu, current, next| {
        launch(schedule, gpu, g.offsets(), g.adj(), current, levels, next)
    })
}
