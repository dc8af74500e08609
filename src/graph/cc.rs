//! Connected components ([`components`](fn@super::components)) of the undirected view of a graph (an edge either way joins its ends), by
//! hooking and pointer jumping: every vertex has a parent, at first itself. Each iteration, for
//! every edge whose ends have different parents, the larger parent is hooked under the smaller
//! (`atomic_min`), and every vertex jumps to its grandparent. Parents only decrease, so the loop
//! ends, and when an iteration changes nothing every edge's ends share a parent that is its own
//! parent: a component's vertices all point to one vertex, the smallest of the component (it
//! cannot point lower). The label of a vertex is that smallest id.
//!
//! The fixpoint is detected on the device: in the host loop ([`run`]) a change sets `changed[0]`,
//! read back (4 bytes) once per iteration; in the loop on the device ([`run_device`]) a test on
//! the device ends the run after an iteration that changed nothing, and the iterations are
//! replayed with a read-back per replay. Directed inputs need no symmetrising: a vertex's out-edges hook both ways.

use loops_runtime::graph::{DeviceGraph, IterationsOnDevice};

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

/// The fixpoint test of the loop on the device ([`run_device`]), one thread after each hooking.
pub mod count {
    use super::*;
    /// Over one tile: unless the run is `done`, counts the iteration and ends the run (sets
    /// `done[0]`) where it changed nothing; then zeroes `changed` for the next iteration.
    #[for_schedules(thread)]
    pub fn cc_count(one: Offsets, changed: &mut [u32], done: &mut [u32], iterations: &mut [u32]) {
        for t in one.tiles() {
            if done[t] == 0 {
                iterations[0] = iterations[0] + 1;
                if changed[0] == 0 {
                    done[t] = 1;
                }
            }
            changed[0] = 0;
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
    /// One tile, for the fixpoint test of the loop on the device.
    one: DeviceOffsets,
    /// The iterations the loop on the device ran (counted on the device).
    iterations: DeviceBuffer<u32>,
    /// The loop on the device, its replay kept for the next run with the same buffers.
    device_loop: IterationsOnDevice,
}

impl Components {
    /// The buffers for graphs of `vertices` vertices.
    pub fn new(gpu: &Gpu, vertices: usize) -> crate::Result<Components> {
        Ok(Components {
            chunks: gpu.upload_offsets(&chunk_offsets(vertices, CHUNK))?,
            changed: gpu.zeros(1)?,
            one: gpu.upload_offsets(&[0, 1])?,
            iterations: gpu.zeros(1)?,
            device_loop: IterationsOnDevice::new(gpu)?,
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

/// [`run`] in the loop on the device ([`IterationsOnDevice`], kept with the state): each
/// iteration is two launches, the hooking under `schedule` (any: over every vertex, sized on the
/// host, as in [`run`]) and the fixpoint test (`count::cc_count`, one thread), which ends the run
/// on the device after the first iteration that changed nothing. The iterations are recorded once
/// as a CUDA graph of four (kept for the next run on the same buffers) and replayed, the host
/// reading 4 bytes back per replay; iterations after the fixpoint change nothing. Returns the
/// iterations, as [`run`] (counted on the device).
pub fn run_device(
    schedule: &str,
    gpu: &Gpu,
    state: &mut Components,
    g: &DeviceGraph,
    labels: &mut DeviceBuffer<u32>,
) -> crate::Result<u32> {
    let n = g.vertices();
    let made_for = crate::TileSet::num_atoms(&state.chunks);
    if n != made_for || labels.len() < n {
        return Err(LoopsError::InvalidGraph {
            detail: format!(
                "a graph of {n} vertices for components of {made_for} and {} labels",
                labels.len()
            ),
        });
    }
    start::launch("block", gpu, &state.chunks, labels)?;
    if n == 0 {
        return Ok(0);
    }
    gpu.fill(&mut state.changed, 0)?;
    gpu.fill(&mut state.iterations, 0)?;
    let key = [
        g.offsets().offsets().device_ptr(),
        g.adj().device_ptr(),
        labels.device_ptr(),
        super::pagerank::schedule_key(schedule),
    ];
    let Components {
        changed,
        one,
        iterations,
        device_loop,
        ..
    } = state;
    // Hooking and jumping needs far fewer than `n + 1` iterations; the limit is [`run`]'s.
    let limit = n as u64 + 1 + 2 * loops_runtime::graph::DEFAULT_ITERATIONS_PER_REPLAY as u64;
    device_loop.run(gpu, &key, None, limit, |it, done| {
        let gpu = it.gpu();
        hook::launch(schedule, gpu, g.offsets(), g.adj(), labels, changed)?;
        count::launch("thread", gpu, &*one, changed, done, &mut *iterations)
    })?;
    Ok(gpu.download(&state.iterations)?[0])
}

/// [`run`] or [`run_device`], whichever is the faster for a graph of this shape under
/// `schedule` (under `auto`, with the hooking schedule too: `loops::graph::auto::picks`): measured on the first call (`loops::graph` module docs: each run on this very
/// state, the winner's run last), kept for later calls; the loop that ran and the iterations.
/// Where nothing is measured (`LOOPS_TUNE=off`), the device loop.
pub fn run_auto(
    schedule: &str,
    gpu: &Gpu,
    state: &mut Components,
    g: &DeviceGraph,
    labels: &mut DeviceBuffer<u32>,
) -> crate::Result<(Strategy, u32)> {
    let choice = super::auto::Choice {
        algorithm: "components",
        schedule,
        element: "u32",
        shape: crate::TileSet::stats(g.offsets()),
        extra: Vec::new(),
    };
    let mut once = |pick: super::auto::Pick<'_>| -> crate::Result<(Strategy, u32)> {
        let (schedule, strategy) = (pick.schedule, pick.strategy);
        let iterations = if strategy == Strategy::DeviceQueue {
            run_device(schedule, gpu, state, g, labels)?
        } else {
            run(schedule, gpu, state, g, labels)?
        };
        Ok((strategy, iterations))
    };
    let candidates = super::auto::picks(super::auto::Algorithm::Components, schedule);
    match super::auto::measured(gpu, &choice, &candidates, &mut once)? {
        Some(r) => Ok(r),
        None => once(super::auto::Pick {
            schedule,
            strategy: Strategy::DeviceQueue,
            one_bucket: false,
        }),
    }
}

/// What [`components`](fn@super::components) is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentsOptions {
    /// The hooking step's schedule, a name of `loops::SCHEDULES` (default `auto`).
    pub schedule: String,
    /// The loop: [`Strategy::Host`] ([`run`]) or [`Strategy::DeviceQueue`] (the loop on the
    /// device, [`run_device`]); [`Strategy::Auto`] (the default) measures both on the first call
    /// for a graph of this shape and keeps the faster; no other.
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
/// Each call makes its state, so its device loop records its replay anew; a caller who runs the
/// algorithm again on the same graph keeps the state and calls the module's `run_device` or
/// `run_auto` (what `bench_graphs --library` times).
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
    let (state_, labels_) = (&mut state, &mut labels);
    let ((strategy, iterations), time) = match options.strategy {
        Strategy::Auto => timed(gpu, || run_auto(schedule, gpu, state_, graph, labels_))?,
        Strategy::DeviceQueue => timed(gpu, || {
            run_device(schedule, gpu, state_, graph, labels_).map(|i| (Strategy::DeviceQueue, i))
        })?,
        Strategy::Host => timed(gpu, || {
            run(schedule, gpu, state_, graph, labels_).map(|i| (Strategy::Host, i))
        })?,
        s => {
            return Err(super::driver::unsupported(
                "components",
                s,
                "the host loop and the device queue",
            ))
        }
    };
    let mut stats = GraphStats::new("components", schedule, strategy);
    stats.iterations = iterations;
    stats.time = time;
    Ok(ComponentsResult { labels, stats })
}
