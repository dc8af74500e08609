//! Connected components ([`components`](fn@super::components)) of the undirected view of a graph (an edge either way joins its ends), by
//! concurrent union-find: every vertex has a parent, at first itself, never above itself, and
//! always in its own component. Each iteration, for every edge, the roots of its ends are found
//! (at most 32 steps up); where they differ, the larger is linked under the smaller
//! (`atomic_min`), and where that displaced a parent another edge had just set, the displaced one
//! and the smaller are linked in turn (each step lowers the larger end, so it ends: at most 32);
//! then each vertex points to its root. A root is the smallest vertex of its tree, so when every
//! edge's ends share a root, that root is the smallest id of the component: the label.
//!
//! **The fixpoint.** An edge whose ends' roots differed, or a vertex whose root was not reached
//! in 32 steps, marks the iteration as changing. An iteration that marks nothing linked nothing, so
//! its trees stood still (pointing a vertex at its root moves no vertex to another tree): every
//! edge's ends were in one tree and every vertex now points to its root, which is the answer. So
//! a run is two iterations where the first iteration links every edge (it marks), the second finds
//! every edge's ends under one root and points each vertex at it (it marks nothing), and a third
//! launch returns at once. Stop 51's hooking and pointer jumping (parents hooked, one jump an
//! iteration) took about log2 of the longest path's length: 7 to 16 iterations on the paths of
//! `bench_graphs --paths 65536`, 9-11 on the road networks and grids of `--library-small`, 3-4 on
//! Kronecker, against 2 now; the whole call is
//! 1.4-3.2x faster in the device loop and 1.35-5x in the host loop on an H200, each iteration
//! dearer: 12-24 us against 7-12 on those graphs but Kronecker's, beside PageRank's 3
//! (`examples/bench/results/h200/stop52/cc`).
//!
//! **One launch an iteration** ([`hook`], under every schedule), the fixpoint test folded in: a
//! change in iteration `i` stores `i` in `mark[0]` (every writer the same value, one store a
//! vertex), and each iteration reads first the count of iterations before it (`counts`, by
//! parity, written by vertex 0) and `mark[0]`: where the iteration before changed nothing the
//! state is a fixpoint, so this one returns at once, vertex 0 setting the loop's `done`. No counter is zeroed between
//! iterations, so nothing else is launched: in the loop on the device ([`run`] in the device
//! queue) the start ([`start`]) and the first 8 iterations are one recorded graph, replayed with a
//! 4-byte read-back after it (and after each 8 more), the iterations past the fixpoint returning at
//! once; a later run on the same state records its first graph for the iterations the run before
//! needed and one more ([`IterationLoop::expect`]: lengths that waver by one keep it), so a run as
//! long is one graph launch and one read-back. The host loop runs the same launches, reading the
//! flag after each. Directed inputs need no symmetrising: a vertex's out-edges link both ways.

// The step kernel takes the graph, the parents, the loop's counters and the parity.
#![allow(clippy::too_many_arguments)]

use loops_runtime::graph::{DeviceGraph, IterateOn, IterationLoop};

use super::driver::{chunk_offsets, timed, GraphStats, Strategy};
use crate::prelude::*;

/// The hooking and compressing step, under every schedule.
pub mod hook {
    use super::*;
    /// One iteration, unless the run is over (`done[0]`, or the iteration before, number
    /// `counts[q]`, changed nothing: `mark[0]` below it; vertex 0 then stores that number, the
    /// run's iterations, in `done[0]`): for each edge, the roots of its ends (at most 32 steps
    /// up from each); where they differ, the larger is linked under the smaller (`atomic_min`),
    /// following what that displaces until a root is linked or the link is there (at most 32
    /// links); then `v` points to its root. An edge whose ends' roots differed, or a root not
    /// reached in 32 steps, stores the iteration's number in `mark[0]` (once a vertex); vertex 0
    /// counts the iteration in `counts[1 - q]`.
    #[for_schedules(core)]
    pub fn cc_hook(
        g: Offsets,
        adj: &[u32],
        parents: &mut [u32],
        mark: &mut [u32],
        counts: &mut [u32],
        done: &mut [u32],
        q: usize,
    ) {
        for v in g.tiles() {
            let ran = counts[q];
            let go = done[0] == 0 && (ran == 0 || mark[0] >= ran);
            let mut changed = 0u32;
            for e in g.atoms(v) {
                if !go {
                    break;
                }
                // The roots of the edge's ends.
                let mut a = parents[adj[e] as usize];
                for step in 0..32 {
                    let up = parents[a as usize];
                    if up == a {
                        break;
                    }
                    a = up;
                }
                let mut b = parents[v];
                for step in 0..32 {
                    let up = parents[b as usize];
                    if up == b {
                        break;
                    }
                    b = up;
                }
                if a != b {
                    changed |= 1;
                    // Link the larger under the smaller; where the larger had a parent (another
                    // edge linked it meanwhile), the one of that parent and the smaller that is
                    // not its parent now is linked in turn.
                    let mut high = max(a, b);
                    let mut low = min(a, b);
                    for step in 0..32 {
                        let old = atomic_min(&mut parents[high as usize], low);
                        if old == high || old == low {
                            break;
                        }
                        if old > low {
                            high = old;
                        } else {
                            high = low;
                            low = old;
                        }
                    }
                }
            }
            if go {
                // `v` to its root (not a change: the sets stay as they are).
                let p = parents[v];
                let mut r = p;
                let mut rooted = false;
                for step in 0..32 {
                    let up = parents[r as usize];
                    if up == r {
                        rooted = true;
                        break;
                    }
                    r = up;
                }
                if r < p {
                    atomic_min(&mut parents[v], r);
                }
                if !rooted {
                    changed = 1;
                }
                if changed != 0 {
                    mark[0] = ran + 1;
                }
                if v == 0 {
                    counts[1 - q] = ran + 1;
                }
            } else if v == 0 && done[0] == 0 {
                done[0] = ran;
            }
        }
    }
}

/// The start: `parents[v] = v`, the mark and the counts zeroed.
pub mod start {
    use super::*;
    /// Every vertex its own parent (over runs of vertices, `chunks`); `mark` and `counts` zeroed.
    #[for_schedules(block)]
    pub fn cc_start(chunks: Offsets, parents: &mut [u32], mark: &mut [u32], counts: &mut [u32]) {
        for c in chunks.tiles() {
            if c == 0 {
                mark[0] = 0;
                counts[0] = 0;
                counts[1] = 0;
            }
            for v in chunks.atoms(c) {
                parents[v] = v as u32;
            }
        }
    }
}

/// Vertices per run of the start kernel.
pub const CHUNK: usize = 2048;

/// The buffers of the components of graphs of `vertices` vertices, and the driver, its graphs
/// kept for the next run with the same graph and labels.
pub struct Components {
    chunks: DeviceOffsets,
    mark: DeviceBuffer<u32>,
    counts: DeviceBuffer<u32>,
    iterate: IterationLoop,
}

impl Components {
    /// The buffers for graphs of `vertices` vertices.
    pub fn new(gpu: &Gpu, vertices: usize) -> crate::Result<Components> {
        Ok(Components {
            chunks: gpu.upload_offsets(&chunk_offsets(vertices, CHUNK))?,
            mark: gpu.zeros(1)?,
            counts: gpu.zeros(2)?,
            iterate: IterationLoop::new(gpu)?,
        })
    }
}

/// One run in the loop `on`: see [`run`].
fn run_in(
    on: IterateOn,
    schedule: &str,
    gpu: &Gpu,
    state: &mut Components,
    g: &DeviceGraph,
    labels: &mut DeviceBuffer<u32>,
) -> crate::Result<u32> {
    let n = g.vertices();
    let key = [
        g.offsets().offsets().device_ptr(),
        g.adj().device_ptr(),
        labels.device_ptr(),
        super::pagerank::schedule_key(schedule),
    ];
    let Components {
        chunks,
        mark,
        counts,
        iterate,
    } = state;
    // Union-find needs a few iterations (more only where a find or a link runs past its 32
    // steps, each such iteration shortening paths); one more sets `done`.
    let limit = n as u64 + 2;
    iterate.run(gpu, on, &key, None, limit, |it, done| {
        let gpu = it.gpu();
        if it.first() {
            start::launch(
                "block",
                gpu,
                &*chunks,
                &mut *labels,
                &mut *mark,
                &mut *counts,
            )?;
        }
        let q = it.parity();
        hook::launch(
            schedule,
            gpu,
            g.offsets(),
            g.adj(),
            &mut *labels,
            &mut *mark,
            &mut *counts,
            done,
            q,
        )
    })?;
    // The step ended the run storing its iterations in `done`, which the loop read last; the
    // step after them, which found the fixpoint, set it: the next run's first graph holds as
    // many and one more (`IterationLoop::expect`).
    let ran = iterate.done_value();
    iterate.expect(ran as u64 + 1);
    Ok(ran)
}

/// The component label (smallest vertex id of its component) of each vertex of `g` into `labels`,
/// the step under `schedule`, in the loop of `strategy` (the same launches either way,
/// [`IterationLoop::run`]): [`Strategy::Host`] (a 4-byte flag read back after each iteration),
/// [`Strategy::DeviceQueue`] (the start and the iterations recorded once as CUDA graphs, kept with
/// the state for the same graph and labels, and replayed, 8 iterations a replay (the first as many
/// as the last run needed and one more), the flag read back after each), or [`Strategy::Auto`]: the
/// faster of the two for a graph of this shape under `schedule` (under `auto`, with the hooking
/// schedule too: `loops::graph::auto::picks`), measured on the first call (`loops::graph` module
/// docs: each run on this very state, the winner's run last) and kept for later calls (where
/// nothing is measured, `LOOPS_TUNE=off`: the device loop). Returns the loop that ran and the
/// iterations (the last one changed nothing). Errors if `g` does not have the vertices `state` was
/// made for, for another strategy, or after `vertices + 2` iterations (more than the step ever
/// needs).
pub fn run(
    strategy: Strategy,
    schedule: &str,
    gpu: &Gpu,
    state: &mut Components,
    g: &DeviceGraph,
    labels: &mut DeviceBuffer<u32>,
) -> crate::Result<(Strategy, u32)> {
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
    if n == 0 {
        let ran = if strategy == Strategy::Auto {
            Strategy::DeviceQueue
        } else {
            strategy
        };
        return Ok((ran, 0));
    }
    let mut once = |pick: super::auto::Pick<'_>| -> crate::Result<(Strategy, u32)> {
        let on = if pick.strategy == Strategy::DeviceQueue {
            IterateOn::Device
        } else {
            IterateOn::Host
        };
        Ok((
            pick.strategy,
            run_in(on, pick.schedule, gpu, state, g, labels)?,
        ))
    };
    let fixed = |strategy: Strategy| super::auto::Pick {
        schedule,
        strategy,
        one_bucket: false,
    };
    match strategy {
        Strategy::Auto => {
            let choice = super::auto::Choice {
                algorithm: "components",
                schedule,
                element: "u32",
                shape: crate::TileSet::stats(g.offsets()),
                extra: Vec::new(),
            };
            // Under schedule `auto`, the hooking schedule too (`loops::graph::auto::picks`).
            let candidates = super::auto::picks(super::auto::Algorithm::Components, schedule);
            match super::auto::measured(gpu, &choice, &candidates, &mut once)? {
                Some(r) => Ok(r),
                None => once(fixed(Strategy::DeviceQueue)),
            }
        }
        Strategy::Host | Strategy::DeviceQueue => once(fixed(strategy)),
        s => Err(super::driver::unsupported(
            "components",
            s,
            "the host loop and the device queue",
        )),
    }
}

/// What [`components`](fn@super::components) is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentsOptions {
    /// The hooking step's schedule, a name of `loops::SCHEDULES` (default `auto`).
    pub schedule: String,
    /// The loop: [`Strategy::Host`] or [`Strategy::DeviceQueue`] (the loop on the device; see
    /// [`run`]); [`Strategy::Auto`] (the default) measures both on the first call for a graph of
    /// this shape and keeps the faster; no other.
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
/// ends) by union-find, the step under `options.schedule`. The CPU reference is
/// `loops::graph::reference::components`.
///
/// Each call makes its state, so its device loop records its graphs anew; a caller who runs the
/// algorithm again on the same graph keeps the state and labels and calls the module's [`run`]
/// (what `bench_graphs --library` times).
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
    let ((strategy, iterations), time) = timed(gpu, || {
        run(
            options.strategy,
            schedule,
            gpu,
            &mut state,
            graph,
            &mut labels,
        )
    })?;
    let mut stats = GraphStats::new("components", schedule, strategy);
    stats.iterations = iterations;
    stats.time = time;
    Ok(ComponentsResult { labels, stats })
}
