//! k-core decomposition by peeling ([`k_core`](fn@super::k_core)): the core number of a vertex is
//! the largest `k` such that it belongs to the `k`-core, the largest subgraph whose vertices all
//! have at least `k` neighbours in it. On the simple undirected view of the graph
//! (`Graph::symmetric`: self-loops dropped, each edge once each way), for `k = 1, 2, ..`: every
//! vertex still in the graph with fewer than `k` neighbours still in it is removed, with core
//! number `k - 1`, and its neighbours lose it; repeated until a pass removes none, then `k` grows,
//! until every vertex is removed.
//!
//! Two steps, both run by the one driver ([`IterationLoop`], see [`run`]), each starting its
//! state on the device ([`start`]). The host loop's *pass* is three launches and a 4-byte read:
//! [`mark`] over runs of vertices (`block`) removes the vertices below `k` (`degrees[v] -
//! lost[v] < k`), flags them in `removed` and counts them; [`peel`] (under every schedule) adds
//! one to `lost[u]` for each edge `v -> u` of a removed `v`; [`pass`] (one thread) raises `k`
//! where the pass removed none and ends the run once every vertex is removed. A vertex's removal
//! is decided in [`mark`] alone, so a schedule that cuts a vertex's edges between threads (merge
//! path, split) reads one flag for all of them. The peel scans every edge each pass. The loop on
//! the device peels by a queue of the removed vertices instead, its iterations recorded and
//! replayed.

// Kernels of many parameters: a graph, its arrays, the state, `k`.
#![allow(clippy::too_many_arguments)]

use loops_runtime::graph::{DeviceGraph, Graph, IterateOn, IterationLoop};

use super::driver::{chunk_offsets, timed, GraphStats, Strategy};
pub use super::kcore_model::{core_numbers, first_queue, peel_model};

/// The start of a run of either step, over runs of vertices.
pub mod start {
    use super::*;
    /// Every core number unset (`u32::MAX`), every `lost` 0; the state's counters: the queues'
    /// and the pass's counts, the vertices removed, `go` and the iterations 0, `k_now[0] = k`,
    /// `least` unset.
    #[for_schedules(block)]
    pub fn k_core_start(
        chunks: Offsets,
        cores: &mut [u32],
        lost: &mut [u32],
        queue_count0: &mut [u32],
        queue_count1: &mut [u32],
        removed_count: &mut [u32],
        go: &mut [u32],
        iterations: &mut [u32],
        counts: &mut [u32],
        k_now: &mut [u32],
        least: &mut [u32],
        k: u32,
    ) {
        for c in chunks.tiles() {
            if c == 0 {
                queue_count0[0] = 0;
                queue_count1[0] = 0;
                removed_count[0] = 0;
                go[0] = 0;
                iterations[0] = 0;
                counts[0] = 0;
                k_now[0] = k;
                least[0] = u32::MAX;
            }
            for v in chunks.atoms(c) {
                cores[v] = u32::MAX;
                lost[v] = 0;
            }
        }
    }
}
use crate::prelude::*;

/// The pass's removal, over runs of vertices: one block per run.
pub mod mark {
    use super::*;
    /// Over runs of vertices (`chunks`): each vertex still in the graph (`cores[v]` unset,
    /// `u32::MAX`) with fewer than `k = k_now[0]` neighbours left (`degrees[v] - lost[v]`) gets
    /// core number `k - 1` and `removed[v] = 1`, every other `removed[v] = 0`; `counts[0] +=` the
    /// vertices removed.
    #[for_schedules(block)]
    pub fn k_core_mark(
        chunks: Offsets,
        degrees: &[u32],
        lost: &[u32],
        cores: &mut [u32],
        removed: &mut [u32],
        counts: &mut [u32],
        k_now: &[u32],
    ) {
        for c in chunks.tiles() {
            let k = k_now[0];
            let mut count = 0u32;
            for v in chunks.atoms(c) {
                let mut now = 0u32;
                if cores[v] == u32::MAX && degrees[v] - lost[v] < k {
                    cores[v] = k - 1;
                    now = 1;
                    count += 1;
                }
                removed[v] = now;
            }
            if count > 0 {
                atomic_add(&mut counts[0], count);
            }
        }
    }
}

/// The pass's peel, under every schedule.
pub mod peel {
    use super::*;
    /// Each edge `v -> u` of a vertex removed this pass (`removed[v] != 0`) takes `v` from `u`'s
    /// neighbours: `lost[u] += 1`.
    #[for_schedules(core)]
    pub fn k_core_peel(g: Offsets, adj: &[u32], removed: &[u32], lost: &mut [u32]) {
        for v in g.tiles() {
            let gone = removed[v];
            for e in g.atoms(v) {
                if gone != 0 {
                    atomic_add(&mut lost[adj[e] as usize], 1);
                }
            }
        }
    }
}

/// The end of a pass, one thread.
pub mod pass {
    use super::*;
    /// Over one tile, unless the run is `done`: counts the pass, adds its removed vertices
    /// (`counts[0]`, zeroed here for the next) to `removed[0]`, raises `k_now[0]` where it removed
    /// none, and ends the run (sets `done[0]`) once `n` are removed.
    #[for_schedules(thread)]
    pub fn k_core_pass(
        one: Offsets,
        counts: &mut [u32],
        k_now: &mut [u32],
        removed: &mut [u32],
        done: &mut [u32],
        iterations: &mut [u32],
        n: u32,
    ) {
        for t in one.tiles() {
            if done[t] == 0 {
                iterations[0] = iterations[0] + 1;
                let count = counts[0];
                if count == 0 {
                    k_now[0] = k_now[0] + 1;
                }
                removed[0] = removed[0] + count;
                counts[0] = 0;
                if removed[0] >= n {
                    done[t] = 1;
                }
            }
        }
    }
}

/// The peel of the loop on the device ([`run`] in the device queue) over the queue of the vertices removed by
/// the iteration before, under the schedules whose tile loop takes its list's length from the
/// device.
pub mod peel_queue {
    use super::*;
    /// For each edge `v -> u` of a queued vertex `v`: unless `u` is removed (`cores[u]` set), it
    /// loses a neighbour (`lost[u] += 1`); where that leaves it fewer than `k = k_now[0]`, it is
    /// claimed (`atomic_min` of its core to `k - 1`, the claim whose old value was unset wins),
    /// counted in `removed[0]` and appended to `next` (`next_size[0]`).
    #[for_schedules(thread, group2, warp, group64, block, auto)]
    pub fn k_core_peel_queue(
        g: Offsets,
        adj: &[u32],
        queue: &[u32],
        degrees: &[u32],
        k_now: &[u32],
        lost: &mut [u32],
        cores: &mut [u32],
        next: &mut [u32],
        next_size: &mut [u32],
        removed: &mut [u32],
    ) {
        for v in g.tiles_in(queue) {
            let k = k_now[0];
            for e in g.atoms(v) {
                let u = adj[e] as usize;
                if cores[u] == u32::MAX {
                    let old = atomic_add(&mut lost[u], 1);
                    if degrees[u] < k + old + 1 {
                        let was = atomic_min(&mut cores[u], k - 1);
                        if was == u32::MAX {
                            let slot = atomic_add(&mut next_size[0], 1);
                            if slot < next.len() as u32 {
                                next[slot as usize] = u as u32;
                            }
                            atomic_add(&mut removed[0], 1);
                        }
                    }
                }
            }
        }
    }
}

/// The smallest remaining degree, where a peel appended nothing.
pub mod least {
    use super::*;
    /// Over runs of vertices, where the queue just appended (`size[0]`) is empty: `least[0]` is
    /// lowered to the smallest `degrees[v] - lost[v]` of a vertex not removed.
    #[for_schedules(block)]
    pub fn k_core_least(
        chunks: Offsets,
        degrees: &[u32],
        lost: &[u32],
        cores: &[u32],
        size: &[u32],
        least: &mut [u32],
    ) {
        for c in chunks.tiles() {
            if size[0] == 0 {
                let mut m = u32::MAX;
                for v in chunks.atoms(c) {
                    if cores[v] == u32::MAX {
                        m = min(m, degrees[v] - lost[v]);
                    }
                }
                if m != u32::MAX {
                    atomic_min(&mut least[0], m);
                }
            }
        }
    }
}

/// The advance of `k`, one thread after each iteration's peel.
pub mod advance {
    use super::*;
    /// Over one tile: counts the iteration unless the run is `done`; where the queue just
    /// appended (`size[0]`) is empty and a vertex is left (`least[0]` set), raises `k_now[0]`
    /// past the smallest remaining degree and sets `go[0]` for the scan ([`super::scan`]);
    /// resets `least`; zeroes the count of the queue this iteration consumed (`consumed`, the
    /// one the next iteration appends to); ends the run where every vertex is removed.
    #[for_schedules(thread)]
    pub fn k_core_advance(
        one: Offsets,
        size: &[u32],
        least: &mut [u32],
        k_now: &mut [u32],
        go: &mut [u32],
        consumed: &mut [u32],
        removed: &[u32],
        done: &mut [u32],
        iterations: &mut [u32],
        n: u32,
    ) {
        for t in one.tiles() {
            if done[t] == 0 {
                iterations[0] = iterations[0] + 1;
            }
            go[0] = 0;
            if size[0] == 0 && least[0] != u32::MAX {
                k_now[0] = max(k_now[0], least[0] + 1);
                go[0] = 1;
            }
            least[0] = u32::MAX;
            consumed[0] = 0;
            if removed[0] >= n {
                done[t] = 1;
            }
        }
    }
}

/// The scan after `k` advanced: every vertex left below it starts the next queue.
pub mod scan {
    use super::*;
    /// Over runs of vertices, where `go[0]` is set: each vertex not removed with fewer than
    /// `k = k_now[0]` neighbours left gets core number `k - 1`, is counted in `removed[0]` and
    /// appended to `next` (`next_size[0]`).
    #[for_schedules(block)]
    pub fn k_core_scan(
        chunks: Offsets,
        degrees: &[u32],
        lost: &[u32],
        go: &[u32],
        k_now: &[u32],
        cores: &mut [u32],
        next: &mut [u32],
        next_size: &mut [u32],
        removed: &mut [u32],
    ) {
        for c in chunks.tiles() {
            if go[0] != 0 {
                for v in chunks.atoms(c) {
                    if cores[v] == u32::MAX && degrees[v] < k_now[0] + lost[v] {
                        cores[v] = k_now[0] - 1;
                        let slot = atomic_add(&mut next_size[0], 1);
                        if slot < next.len() as u32 {
                            next[slot as usize] = v as u32;
                        }
                        atomic_add(&mut removed[0], 1);
                    }
                }
            }
        }
    }
}

/// Vertices per run of the mark kernel.
pub const CHUNK: usize = 2048;

/// A graph ready for k-core peeling: its simple undirected view on the device, each vertex's
/// degree in it, the runs of the mark kernel, and the buffers of the passes.
pub struct KCore {
    simple: DeviceGraph,
    degrees: DeviceBuffer<u32>,
    chunks: DeviceOffsets,
    lost: DeviceBuffer<u32>,
    removed: DeviceBuffer<u32>,
    counts: DeviceBuffer<u32>,
    cores: DeviceBuffer<u32>,
    max_degree: u32,
    /// The device loop's queues and their counts, by parity.
    queues: [DeviceBuffer<u32>; 2],
    queue_counts: [DeviceBuffer<u32>; 2],
    /// The device loop's state: `k`, the vertices removed, the smallest remaining degree, the
    /// scan's flag, the iterations.
    k_now: DeviceBuffer<u32>,
    removed_count: DeviceBuffer<u32>,
    least: DeviceBuffer<u32>,
    go: DeviceBuffer<u32>,
    iterations: DeviceBuffer<u32>,
    one: DeviceOffsets,
    /// The driver of both steps, its graphs kept for the next run on this state (taken out of
    /// the state while it runs).
    iterate: Option<IterationLoop>,
    /// The graph's shape (its degrees), the key of `auto`'s measured choice.
    shape: crate::schedule::auto::TileStats,
    vertices: usize,
}

impl KCore {
    /// Makes the simple undirected view of `g` on the host and uploads it.
    pub fn new(gpu: &Gpu, g: &Graph) -> crate::Result<KCore> {
        let simple = g.symmetric();
        let n = simple.vertices();
        let degrees: Vec<u32> = (0..n).map(|v| simple.degree(v) as u32).collect();
        Ok(KCore {
            max_degree: degrees.iter().copied().max().unwrap_or(0),
            simple: gpu.upload_graph(&simple)?,
            degrees: gpu.upload(&degrees)?,
            chunks: gpu.upload_offsets(&chunk_offsets(n, CHUNK))?,
            lost: gpu.zeros(n)?,
            removed: gpu.zeros(n)?,
            counts: gpu.zeros(1)?,
            cores: gpu.zeros(n)?,
            queues: [gpu.zeros(n)?, gpu.zeros(n)?],
            queue_counts: [gpu.zeros(1)?, gpu.zeros(1)?],
            k_now: gpu.zeros(1)?,
            removed_count: gpu.zeros(1)?,
            least: gpu.zeros(1)?,
            go: gpu.zeros(1)?,
            iterations: gpu.zeros(1)?,
            one: gpu.upload_offsets(&[0, 1])?,
            iterate: {
                let mut lp = IterationLoop::new(gpu)?;
                lp.set_per_replay(PEEL_PER_REPLAY);
                Some(lp)
            },
            shape: super::auto::shape_of_degrees(degrees.iter().map(|&d| d as u64)),
            vertices: n,
        })
    }

    /// The vertices.
    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// The core numbers of the last run.
    pub fn cores(&self) -> &DeviceBuffer<u32> {
        &self.cores
    }

    /// Fills the core numbers, the lost neighbours and the device loop's queues with `value`
    /// (tests poison what a run writes with it).
    pub fn poison(&mut self, gpu: &Gpu, value: u32) -> crate::Result<()> {
        gpu.fill(&mut self.cores, value)?;
        gpu.fill(&mut self.lost, value)?;
        for q in &mut self.queues {
            gpu.fill(q, value)?;
        }
        Ok(())
    }

    /// The core numbers of the last run, the rest dropped.
    pub fn into_cores(self) -> DeviceBuffer<u32> {
        self.cores
    }
}

/// Iterations per replay of the device loop's peeling (a chain-like graph takes one iteration
/// per pair of vertices; after the last, at most this many minus one run, with empty queues).
pub const PEEL_PER_REPLAY: usize = 8;

/// The start of either step ([`start`]), with `k_now[0] = k`.
fn launch_start(gpu: &Gpu, kc: &mut KCore, k: u32) -> crate::Result<()> {
    let [q0, q1] = &mut kc.queue_counts;
    start::launch(
        "block",
        gpu,
        &kc.chunks,
        &mut kc.cores,
        &mut kc.lost,
        q0,
        q1,
        &mut kc.removed_count,
        &mut kc.go,
        &mut kc.iterations,
        &mut kc.counts,
        &mut kc.k_now,
        &mut kc.least,
        k,
    )
}

/// The passes (the host loop): see the module documentation. Returns the passes and the largest
/// core number.
fn passes(schedule: &str, gpu: &Gpu, kc: &mut KCore) -> crate::Result<(u32, u32)> {
    let n = kc.vertices();
    let limit = n as u64 + kc.max_degree as u64 + 1;
    let key = [super::pagerank::schedule_key(schedule), 0];
    let mut iterate = kc.iterate.take().expect("the state's driver");
    let ran = iterate.run(gpu, IterateOn::Host, &key, None, limit, |it, done| {
        let gpu = it.gpu();
        if it.first() {
            launch_start(gpu, kc, 1)?;
        }
        mark::launch(
            "block",
            gpu,
            &kc.chunks,
            &kc.degrees,
            &kc.lost,
            &mut kc.cores,
            &mut kc.removed,
            &mut kc.counts,
            &kc.k_now,
        )?;
        peel::launch(
            schedule,
            gpu,
            kc.simple.offsets(),
            kc.simple.adj(),
            &kc.removed,
            &mut kc.lost,
        )?;
        pass::launch(
            "thread",
            gpu,
            &kc.one,
            &mut kc.counts,
            &mut kc.k_now,
            &mut kc.removed_count,
            done,
            &mut kc.iterations,
            n as u32,
        )
    });
    kc.iterate = Some(iterate);
    ran?;
    let k = gpu.download(&kc.k_now)?[0];
    Ok((gpu.download(&kc.iterations)?[0], k.saturating_sub(1)))
}

/// The peeling by a queue (the loop on the device): see [`run`]. Returns the iterations and the
/// largest core number.
fn peel_by_queue(
    on: IterateOn,
    schedule: &str,
    gpu: &Gpu,
    kc: &mut KCore,
) -> crate::Result<(u32, u32)> {
    let n = kc.vertices();
    let key = [super::pagerank::schedule_key(schedule), 1];
    // Every iteration removes a vertex but the first and the last: `n + 2` iterations, and a
    // replay past them.
    let limit = n as u64 + 3 + 2 * PEEL_PER_REPLAY as u64;
    let mut iterate = kc.iterate.take().expect("the state's driver");
    let ran = iterate.run(gpu, on, &key, None, limit, |it, done| {
        if it.first() {
            launch_start(it.gpu(), kc, 0)?;
        }
        let KCore {
            simple,
            degrees,
            chunks,
            lost,
            cores,
            queues,
            queue_counts,
            k_now,
            removed_count,
            least,
            go,
            iterations,
            one,
            ..
        } = &mut *kc;
        let p = it.parity();
        let [q0, q1] = &mut *queues;
        let (queue, next) = if p == 0 { (&*q0, q1) } else { (&*q1, q0) };
        let [c0, c1] = &mut *queue_counts;
        let (count, next_count) = if p == 0 { (c0, c1) } else { (c1, c0) };
        peel_queue::launch(
            schedule,
            &it.over_list(queue, count),
            simple.offsets(),
            simple.adj(),
            queue,
            &*degrees,
            &*k_now,
            &mut *lost,
            &mut *cores,
            &mut *next,
            &mut *next_count,
            &mut *removed_count,
        )?;
        let gpu = it.gpu();
        least::launch(
            "block",
            gpu,
            &*chunks,
            &*degrees,
            &*lost,
            &*cores,
            &*next_count,
            &mut *least,
        )?;
        advance::launch(
            "thread",
            gpu,
            &*one,
            &*next_count,
            &mut *least,
            &mut *k_now,
            &mut *go,
            count,
            &*removed_count,
            done,
            &mut *iterations,
            n as u32,
        )?;
        scan::launch(
            "block",
            gpu,
            &*chunks,
            &*degrees,
            &*lost,
            &*go,
            &*k_now,
            &mut *cores,
            next,
            next_count,
            &mut *removed_count,
        )
    });
    kc.iterate = Some(iterate);
    ran?;
    let k = gpu.download(&kc.k_now)?[0];
    Ok((gpu.download(&kc.iterations)?[0], k.saturating_sub(1)))
}

/// Every vertex's core number into [`KCore::cores`], the peel under `schedule`, in the loop of
/// `strategy`, both run by [`IterationLoop::run`], each starting on the device:
/// [`Strategy::Host`]: passes over every edge (any schedule), a 4-byte flag read back after
/// each (see the module documentation); [`Strategy::DeviceQueue`]: peeling by a queue of removed
/// vertices on the device (a schedule of [`peel_queue::SCHEDULES`]), each iteration four
/// launches: the peel over the queue, which removes the neighbours left below `k` into the next
/// queue; where it removed none, the smallest remaining degree (`least`), `k` raised past it
/// (`advance`), and the scan that queues every vertex left below it (`scan`), else those two
/// return at once (the first iteration, over an empty queue, finds the first queue so); the
/// iterations recorded once with the start as CUDA graphs kept with the state and replayed, 8 a
/// replay, a 4-byte flag read back after each, until every vertex is removed; work in proportion
/// to the removed vertices' edges, plus two passes over the vertices per iteration that return
/// at once but where `k` advances. [`Strategy::Auto`]: the faster of the two for a graph of this
/// shape under `schedule`, measured on the first call (`loops::graph` module docs: each run on
/// this very state, the winner's run last) and kept for later calls; the host loop alone where
/// the schedule cannot run in the device loop (not one of [`peel_queue::SCHEDULES`], or checked
/// mode); the device loop where nothing is measured (`LOOPS_TUNE=off`). Returns the loop that
/// ran, the iterations (passes) and the largest core number. Errors for another strategy, for
/// the device queue under a schedule it cannot run, and after more passes than vertices plus the
/// largest degree plus one (more than peeling needs).
pub fn run(
    strategy: Strategy,
    schedule: &str,
    gpu: &Gpu,
    kc: &mut KCore,
) -> crate::Result<(Strategy, u32, u32)> {
    let on_device = super::driver::on_device(schedule) && peel_queue::SCHEDULES.contains(&schedule);
    if kc.vertices() == 0 {
        let ran = match strategy {
            Strategy::Auto | Strategy::DeviceQueue if on_device => Strategy::DeviceQueue,
            _ => Strategy::Host,
        };
        return Ok((ran, 0, 0));
    }
    let shape = kc.shape;
    let mut once = |strategy: Strategy| -> crate::Result<(Strategy, u32, u32)> {
        let (passes, max_core) = if strategy == Strategy::DeviceQueue {
            peel_by_queue(IterateOn::Device, schedule, gpu, kc)?
        } else {
            passes(schedule, gpu, kc)?
        };
        Ok((strategy, passes, max_core))
    };
    match strategy {
        Strategy::Host => once(Strategy::Host),
        Strategy::DeviceQueue if on_device => once(Strategy::DeviceQueue),
        Strategy::DeviceQueue => Err(LoopsError::InvalidArgument {
            op: "k_core",
            detail: format!(
                "the device queue peels under {} (and not in checked mode), not `{schedule}`",
                peel_queue::SCHEDULES.join(", ")
            ),
        }),
        Strategy::Auto if !on_device => once(Strategy::Host),
        Strategy::Auto => {
            let choice = super::auto::Choice {
                algorithm: "k-core",
                schedule,
                element: "u32",
                shape,
                extra: Vec::new(),
            };
            let candidates = [Strategy::DeviceQueue, Strategy::Host];
            match super::auto::measured(gpu, &choice, &candidates, &mut once)? {
                Some(r) => Ok(r),
                None => once(Strategy::DeviceQueue),
            }
        }
        s => Err(super::driver::unsupported(
            "k_core",
            s,
            "the host loop and the device queue",
        )),
    }
}

/// What [`k_core`](fn@super::k_core) is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KCoreOptions {
    /// The peel's schedule, a name of `loops::SCHEDULES` (default `auto`); the device loop's
    /// are [`peel_queue::SCHEDULES`].
    pub schedule: String,
    /// The loop: [`Strategy::Host`] (passes over every edge, one read-back each) or
    /// [`Strategy::DeviceQueue`] (a queue of removed vertices on the device; see [`run`]);
    /// [`Strategy::Auto`] (the default) measures both on the first call for a graph of this
    /// shape and keeps the faster (the device loop alone where the schedule cannot run in it).
    pub strategy: Strategy,
}

impl Default for KCoreOptions {
    fn default() -> KCoreOptions {
        KCoreOptions {
            schedule: "auto".to_string(),
            strategy: Strategy::Auto,
        }
    }
}

/// What [`k_core`](fn@super::k_core) found.
pub struct KCoreResult {
    /// Each vertex's core number (0 for an isolated vertex).
    pub cores: DeviceBuffer<u32>,
    /// The largest core number: the graph's degeneracy.
    pub max_core: u32,
    /// What the run did (host loop: passes as iterations; device loop: its iterations).
    pub stats: GraphStats,
}

/// The k-core decomposition of the simple undirected view of `graph` (made on the host here):
/// every vertex's core number, by peeling on the GPU, the peel under `options.schedule`. The CPU
/// reference is [`core_numbers`] (`loops::graph::reference::core_numbers`).
///
/// Each call makes its state, so its device loop records its graphs anew; a caller who runs the
/// algorithm again on the same graph keeps the state and calls the module's [`run`] (what
/// `bench_graphs --library` times).
///
/// ```no_run
/// use loops::graph::{k_core, Graph, KCoreOptions};
/// # fn main() -> loops::Result<()> {
/// let gpu = loops::Gpu::new(0)?;
/// // A triangle 0-1-2 with a tail 2-3.
/// let g = Graph::from_edges(4, &[(0, 1, 1), (1, 2, 1), (2, 0, 1), (2, 3, 1)])?;
/// let run = k_core(&gpu, &g, &KCoreOptions::default())?;
/// assert_eq!(gpu.download(&run.cores)?, [2, 2, 2, 1]);
/// assert_eq!(run.max_core, 2);
/// # Ok(())
/// # }
/// ```
pub fn k_core(gpu: &Gpu, graph: &Graph, options: &KCoreOptions) -> crate::Result<KCoreResult> {
    let mut kc = KCore::new(gpu, graph)?;
    let schedule = options.schedule.as_str();
    let ((strategy, passes, max_core), time) =
        timed(gpu, || run(options.strategy, schedule, gpu, &mut kc))?;
    let mut stats = GraphStats::new("k-core", schedule, strategy);
    stats.iterations = passes;
    stats.time = time;
    Ok(KCoreResult {
        cores: kc.into_cores(),
        max_core,
        stats,
    })
}
