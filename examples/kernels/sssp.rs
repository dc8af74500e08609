//! Single-source shortest paths, one relaxation step over a frontier (the paper's Listing 5, written
//! tile-major over a tile subset): for each edge `v -> u` of each frontier vertex `v`, lower
//! `dist[u]` to `dist[v] + w` with `atomic_min` and, when that lowered it, flag `u` for the next
//! frontier. Integer (u32) weights and distances, so results are exact; `u32::MAX` is "unreached".
//! The host loop (flags compacted into the next frontier on the GPU, until it is empty) is
//! `loops::graph::FrontierLoop`.

use loops::graph::Traversal;
use loops::prelude::*;

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

/// Sets every distance to "unreached" and the source's to 0.
fn start(gpu: &Gpu, source: u32, dist: &mut DeviceBuffer<u32>) -> loops::Result<()> {
    gpu.fill(dist, loops::graph::UNREACHED)?;
    if (source as usize) < dist.len() {
        gpu.write_at(dist, source as usize, &[0])?;
    }
    Ok(())
}

/// Shortest-path distances from `source` into `dist` (one element per vertex), the `sssp` step
/// under `schedule` run by `frontier` until no distance changes. `dist` is initialized here.
pub fn run(
    schedule: &str,
    gpu: &Gpu,
    frontier: &mut loops::graph::FrontierLoop,
    g: &loops::graph::DeviceGraph,
    source: u32,
    dist: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::LoopStats> {
    traverse(schedule, gpu, Traversal::Host(frontier), g, source, dist)
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
    dist: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::LoopStats> {
    traverse(
        schedule,
        gpu,
        Traversal::PushOnDevice(frontier, g),
        g,
        source,
        dist,
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
    dist: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::LoopStats> {
    traverse(
        schedule,
        gpu,
        Traversal::ScanOnDevice(frontier),
        g,
        source,
        dist,
    )
}

/// The step under `schedule` from `source`, in `traversal`.
fn traverse(
    schedule: &str,
    gpu: &Gpu,
    traversal: Traversal<'_>,
    g: &loops::graph::DeviceGraph,
    source: u32,
    dist: &mut DeviceBuffer<u32>,
) -> loops::Result<loops::graph::LoopStats> {
    start(gpu, source, dist)?;
    traversal.run(gpu, &[source], |gpu, current, next| {
        launch(
            schedule,
            gpu,
            g.offsets(),
            g.adj(),
            g.weights(),
            current,
            dist,
            next,
        )
    })
}
