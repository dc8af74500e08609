//! Connected components ([`components`](fn@super::components)) of the undirected view of a graph (an edge either way joins its ends), by
//! hooking and pointer jumping: every vertex has a parent, at first itself. Each iteration, for
//! every edge whose ends have different parents, the larger parent is hooked under the smaller
//! (`atomic_min`), and every vertex jumps to its grandparent. Parents only decrease, so the loop
//! ends, and when an iteration changes nothing every edge's ends share a parent that is its own
//! parent: a component's vertices all point to one vertex, the smallest of the component (it
//! cannot point lower). The label of a vertex is that smallest id.
//!
//! The fixpoint is detected on the device: in the host loop ([`run`]) a change sets `changed[0]`,
//! read back (4 bytes) once per iteration; in the loop on the device ([`run_device`]) a change
//! sets the length of the next iteration's list of vertices, and the iterations are replayed
//! with a read-back per replay. Directed inputs need no symmetrising: a vertex's out-edges hook both ways.

use loops_runtime::graph::{DeviceGraph, FrontierLoopOnDevice};

use super::driver::{chunk_offsets, timed, GraphStats, Strategy};
use crate::prelude::*;

/// The hooking and jumping step, under every schedule.
pub mod hook {
    use super::*;
    /// One iteration: hooks the larger parent of each edge's ends under the smaller, then
    /// moves `v` to its grandparent; any lowering sets `changed[0]`.
    #[for_schedules(core)]
    pub fn cc_hook(g: Offsets, adj: &[u32], parents: &mut [u32], changed: &mut [u32]) {
        for v in g.tiles() {
            let pv = parents[v];
            for e in g.atoms(v) {
                let pu = parents[adj[e] as usize];
                if pu != pv {
                    let high = max(pu, pv);
                    let low = min(pu, pv);
                    let old = atomic_min(&mut parents[high as usize], low);
                    if old > low {
                        changed[0] = 1;
                    }
                }
            }
            let p = parents[v];
            let grandparent = parents[p as usize];
            if grandparent < p {
                atomic_min(&mut parents[v], grandparent);
                changed[0] = 1;
            }
        }
    }
}

/// The step of the loop on the device ([`run_device`]), under the schedules whose tile loop takes
/// its list's length from the device.
pub mod hook_queue {
    use super::*;
    /// [`hook::cc_hook`] over `vertices` (every vertex id, or none: the length is on the device),
    /// which also writes the next iteration's list (`next[v] = v`) and, on any change, sets its
    /// length `next_size[0]` to every vertex: an iteration that changes nothing leaves it 0 and
    /// ends the loop.
    #[for_schedules(thread, group2, warp, group64, block, auto)]
    pub fn cc_hook_queue(
        g: Offsets,
        adj: &[u32],
        vertices: &[u32],
        parents: &mut [u32],
        next: &mut [u32],
        next_size: &mut [u32],
    ) {
        for v in g.tiles_in(vertices) {
            next[v] = v as u32;
            let pv = parents[v];
            for e in g.atoms(v) {
                let pu = parents[adj[e] as usize];
                if pu != pv {
                    let high = max(pu, pv);
                    let low = min(pu, pv);
                    let old = atomic_min(&mut parents[high as usize], low);
                    if old > low {
                        next_size[0] = next.len() as u32;
                    }
                }
            }
            let p = parents[v];
            let grandparent = parents[p as usize];
            if grandparent < p {
                atomic_min(&mut parents[v], grandparent);
                next_size[0] = next.len() as u32;
            }
        }
    }
}

/// The start: `parents[v] = v`.
pub mod start {
    use super::*;
    /// Every vertex its own parent (over runs of vertices, `chunks`).
    #[for_schedules(block)]
    pub fn cc_start(chunks: Offsets, parents: &mut [u32]) {
        for c in chunks.tiles() {
            for v in chunks.atoms(c) {
                parents[v] = v as u32;
            }
        }
    }
}

/// Vertices per run of the start kernel.
pub const CHUNK: usize = 2048;

/// The buffers of the components of graphs of `vertices` vertices.
pub struct Components {
    chunks: DeviceOffsets,
    changed: DeviceBuffer<u32>,
}

impl Components {
    pub fn new(gpu: &Gpu, vertices: usize) -> crate::Result<Components> {
        Ok(Components {
            chunks: gpu.upload_offsets(&chunk_offsets(vertices, CHUNK))?,
            changed: gpu.zeros(1)?,
        })
    }
}

/// The component label (smallest vertex id of its component) of each vertex of `g` into
/// `labels`, the step under `schedule`; returns the iterations (the last one changed nothing).
/// Errors if `g` does not have the vertices `state` was made for, or after `vertices + 1` iterations
/// (more than hooking and jumping ever need).
pub fn run(
    schedule: &str,
    gpu: &Gpu,
    state: &mut Components,
    g: &DeviceGraph,
    labels: &mut DeviceBuffer<u32>,
) -> crate::Result<u32> {
    let n = g.vertices();
    let made_for = crate::TileSet::num_atoms(&state.chunks);
    if n != made_for {
        return Err(LoopsError::InvalidGraph {
            detail: format!("a graph of {n} vertices for components of {made_for}"),
        });
    }
    if labels.len() < n {
        return Err(LoopsError::InvalidGraph {
            detail: format!("{} labels for a graph of {n} vertices", labels.len()),
        });
    }
    start::launch("block", gpu, &state.chunks, labels)?;
    let mut iterations = 0u32;
    loop {
        if iterations as usize > n {
            return Err(LoopsError::NoConvergence {
                iterations: iterations as u64,
                frontier: n,
            });
        }
        gpu.fill(&mut state.changed, 0)?;
        hook::launch(
            schedule,
            gpu,
            g.offsets(),
            g.adj(),
            labels,
            &mut state.changed,
        )?;
        iterations += 1;
        if gpu.download(&state.changed)?[0] == 0 {
            return Ok(iterations);
        }
    }
}

/// [`run`] in the loop on the device (`FrontierLoopOnDevice::run_queue`, made for exactly the
/// graph's vertices): each iteration is one launch of `hook_queue::cc_hook_queue` over a list
/// of every vertex whose length the iteration before set on the device (every vertex after a
/// change, none after an iteration that changed nothing); the iterations are recorded and
/// replayed, the host reading the state back once per replay, not once per iteration.
/// `schedule` must be one of [`hook_queue::SCHEDULES`]. Returns the iterations, as [`run`].
///
/// Measured on an H200 (examples/bench/results/h200/graphs/library.csv, `auto`): slower than the
/// host loop on every class (road 10^6: 3.0 ms against 1.2 for 10 iterations; 10^5: 0.56 against
/// 0.38), since its iterations are launched directly (the first 30 of a device loop are) and a
/// launch in the device loop's context costs the host more; on R-MAT the hooking under a schedule
/// that takes its list's length from the device is also the slower.
pub fn run_device(
    schedule: &str,
    gpu: &Gpu,
    state: &mut Components,
    lp: &mut FrontierLoopOnDevice,
    g: &DeviceGraph,
    labels: &mut DeviceBuffer<u32>,
) -> crate::Result<u32> {
    let n = g.vertices();
    let made_for = crate::TileSet::num_atoms(&state.chunks);
    if n != made_for || lp.vertices() != n || labels.len() < n {
        return Err(LoopsError::InvalidGraph {
            detail: format!(
                "a graph of {n} vertices for components of {made_for}, a loop of {} and {} labels",
                lp.vertices(),
                labels.len()
            ),
        });
    }
    start::launch("block", gpu, &state.chunks, labels)?;
    if n == 0 {
        return Ok(0);
    }
    let all: Vec<u32> = (0..n as u32).collect();
    let ran = lp.run_queue(gpu, &all, |gpu, vertices, next, next_size, _level| {
        hook_queue::launch(
            schedule,
            gpu,
            g.offsets(),
            g.adj(),
            vertices,
            labels,
            next,
            next_size,
        )
    })?;
    Ok(ran.iterations)
}

/// What [`components`](fn@super::components) is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentsOptions {
    /// The hooking step's schedule, a name of `loops::SCHEDULES` (default `auto`).
    pub schedule: String,
    /// The loop: [`Strategy::Auto`] (the default) and [`Strategy::Host`] run the host loop
    /// ([`run`]), [`Strategy::DeviceQueue`] the loop on the device ([`run_device`], for the
    /// schedules of [`hook_queue::SCHEDULES`]); no other. The device loop saves the read-back
    /// per iteration but, measured on an H200, not yet the time (see [`run_device`]).
    pub strategy: Strategy,
}

impl Default for ComponentsOptions {
    fn default() -> ComponentsOptions {
        ComponentsOptions {
            schedule: "auto".to_string(),
            strategy: Strategy::Auto,
        }
    }
}

/// What [`components`](fn@super::components) found.
pub struct ComponentsResult {
    /// Each vertex's label: the smallest vertex id of its component.
    pub labels: DeviceBuffer<u32>,
    /// What the run did.
    pub stats: GraphStats,
}

/// The connected components of the undirected view of `graph` (an edge either way joins its
/// ends) by hooking and pointer jumping, the step under `options.schedule`. The CPU reference is
/// `loops::graph::reference::components`.
///
/// ```no_run
/// use loops::graph::{components, ComponentsOptions, Graph};
/// # fn main() -> loops::Result<()> {
/// let gpu = loops::Gpu::new(0)?;
/// let g = Graph::from_edges(5, &[(1, 0, 1), (3, 4, 1)])?;
/// let run = components(&gpu, &gpu.upload_graph(&g)?, &ComponentsOptions::default())?;
/// assert_eq!(gpu.download(&run.labels)?, [0, 0, 2, 3, 3]);
/// # Ok(())
/// # }
/// ```
pub fn components(
    gpu: &Gpu,
    graph: &DeviceGraph,
    options: &ComponentsOptions,
) -> crate::Result<ComponentsResult> {
    let n = graph.vertices();
    let mut state = Components::new(gpu, n)?;
    let mut labels = gpu.zeros(n)?;
    let schedule = options.schedule.as_str();
    let strategy = match options.strategy {
        // Measured on an H200 (examples/bench/results/h200/graphs/library.csv), the device
        // loop is not yet the faster on any graph class: asked for only.
        Strategy::Auto => Strategy::Host,
        s @ (Strategy::Host | Strategy::DeviceQueue) => s,
        s => {
            return Err(super::driver::unsupported(
                "components",
                s,
                "the host loop and the device queue",
            ))
        }
    };
    let (iterations, time) = if strategy == Strategy::DeviceQueue {
        let mut lp = FrontierLoopOnDevice::new(gpu, n)?;
        timed(gpu, || {
            run_device(schedule, gpu, &mut state, &mut lp, graph, &mut labels)
        })?
    } else {
        timed(gpu, || run(schedule, gpu, &mut state, graph, &mut labels))?
    };
    let mut stats = GraphStats::new("components", schedule, strategy);
    stats.iterations = iterations;
    stats.time = time;
    Ok(ComponentsResult { labels, stats })
}
