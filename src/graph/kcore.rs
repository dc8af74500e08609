//! k-core decomposition by peeling ([`k_core`](fn@super::k_core)): the core number of a vertex is
//! the largest `k` such that it belongs to the `k`-core, the largest subgraph whose vertices all
//! have at least `k` neighbours in it. On the simple undirected view of the graph
//! (`Graph::symmetric`: self-loops dropped, each edge once each way), for `k = 1, 2, ..`: every
//! vertex still in the graph with fewer than `k` neighbours still in it is removed, with core
//! number `k - 1`, and its neighbours lose it; repeated until a pass removes none, then `k` grows,
//! until every vertex is removed.
//!
//! A pass is two launches and a 4-byte read: [`mark`] over runs of vertices (`block`) removes the
//! vertices below `k` (`degrees[v] - lost[v] < k`), flags them in `removed` and counts them;
//! [`peel`] (under every schedule) adds one to `lost[u]` for each edge `v -> u` of a removed `v`.
//! A vertex's removal is decided in [`mark`] alone, so a schedule that cuts a vertex's edges
//! between threads (merge path, split) reads one flag for all of them. The peel scans every edge
//! each pass (no frontier of removed vertices yet).

// Kernels of many parameters: a graph, its arrays, the state, `k`.
#![allow(clippy::too_many_arguments)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use loops_runtime::graph::{DeviceGraph, Graph};

use super::driver::{chunk_offsets, timed, GraphStats, Strategy};
use crate::prelude::*;

/// The pass's removal, over runs of vertices: one block per run.
pub mod mark {
    use super::*;
    /// Over runs of vertices (`chunks`): each vertex still in the graph (`cores[v]` unset,
    /// `u32::MAX`) with fewer than `k` neighbours left (`degrees[v] - lost[v]`) gets core number
    /// `k - 1` and `removed[v] = 1`, every other `removed[v] = 0`; `counts[0] +=` the vertices
    /// removed.
    #[for_schedules(block)]
    pub fn k_core_mark(
        chunks: Offsets,
        degrees: &[u32],
        lost: &[u32],
        cores: &mut [u32],
        removed: &mut [u32],
        counts: &mut [u32],
        k: u32,
    ) {
        for c in chunks.tiles() {
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
        })
    }

    /// The vertices.
    pub fn vertices(&self) -> usize {
        self.simple.vertices()
    }

    /// The core numbers of the last run.
    pub fn cores(&self) -> &DeviceBuffer<u32> {
        &self.cores
    }

    /// The core numbers of the last run, the rest dropped.
    pub fn into_cores(self) -> DeviceBuffer<u32> {
        self.cores
    }
}

/// Every vertex's core number into [`KCore::cores`], the peel under `schedule`; returns the
/// passes run and the largest core number. Errors after more passes than vertices plus the
/// largest degree plus one (more than peeling needs).
pub fn run(schedule: &str, gpu: &Gpu, kc: &mut KCore) -> crate::Result<(u32, u32)> {
    let n = kc.vertices();
    gpu.fill(&mut kc.cores, u32::MAX)?;
    gpu.fill(&mut kc.lost, 0)?;
    let limit = n as u64 + kc.max_degree as u64 + 1;
    let (mut passes, mut removed, mut k) = (0u64, 0usize, 1u32);
    while removed < n {
        if passes >= limit {
            return Err(LoopsError::NoConvergence {
                iterations: passes,
                frontier: n - removed,
            });
        }
        gpu.fill(&mut kc.counts, 0)?;
        mark::launch(
            "block",
            gpu,
            &kc.chunks,
            &kc.degrees,
            &kc.lost,
            &mut kc.cores,
            &mut kc.removed,
            &mut kc.counts,
            k,
        )?;
        peel::launch(
            schedule,
            gpu,
            kc.simple.offsets(),
            kc.simple.adj(),
            &kc.removed,
            &mut kc.lost,
        )?;
        passes += 1;
        let count = gpu.download(&kc.counts)?[0] as usize;
        if count > n - removed {
            return Err(LoopsError::InvalidGraph {
                detail: format!("a pass removed {count} of {} vertices left", n - removed),
            });
        }
        removed += count;
        if count == 0 {
            k += 1;
        }
    }
    Ok((passes as u32, k.saturating_sub(1)))
}

/// What [`k_core`](fn@super::k_core) is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KCoreOptions {
    /// The peel's schedule, a name of `loops::SCHEDULES` (default `auto`).
    pub schedule: String,
}

impl Default for KCoreOptions {
    fn default() -> KCoreOptions {
        KCoreOptions {
            schedule: "auto".to_string(),
        }
    }
}

/// What [`k_core`](fn@super::k_core) found.
pub struct KCoreResult {
    /// Each vertex's core number (0 for an isolated vertex).
    pub cores: DeviceBuffer<u32>,
    /// The largest core number: the graph's degeneracy.
    pub max_core: u32,
    /// What the run did (passes as iterations, in the host loop).
    pub stats: GraphStats,
}

/// The k-core decomposition of the simple undirected view of `graph` (made on the host here):
/// every vertex's core number, by peeling on the GPU, the peel under `options.schedule`. The CPU
/// reference is [`core_numbers`] (`loops::graph::reference::core_numbers`).
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
    let ((passes, max_core), time) = timed(gpu, || run(schedule, gpu, &mut kc))?;
    let mut stats = GraphStats::new("k-core", schedule, Strategy::Host);
    stats.iterations = passes;
    stats.time = time;
    Ok(KCoreResult {
        cores: kc.into_cores(),
        max_core,
        stats,
    })
}

/// The core numbers of the simple undirected view of `g` on the CPU, by removing a vertex of
/// least remaining degree at a time (a heap of degrees, stale entries skipped): the reference of
/// [`k_core`](fn@super::k_core).
///
/// ```
/// use loops::graph::{reference::core_numbers, Graph};
/// let g = Graph::from_edges(5, &[(0, 1, 1), (1, 2, 1), (2, 0, 1), (2, 3, 1)]).unwrap();
/// assert_eq!(core_numbers(&g), [2, 2, 2, 1, 0]);
/// ```
pub fn core_numbers(g: &Graph) -> Vec<u32> {
    let s = g.symmetric();
    let n = s.vertices();
    let mut degree: Vec<usize> = (0..n).map(|v| s.degree(v)).collect();
    let mut core = vec![u32::MAX; n];
    let mut heap: BinaryHeap<Reverse<(usize, usize)>> =
        (0..n).map(|v| Reverse((degree[v], v))).collect();
    let mut k = 0usize;
    while let Some(Reverse((d, v))) = heap.pop() {
        if core[v] != u32::MAX || d != degree[v] {
            continue;
        }
        k = k.max(d);
        core[v] = k as u32;
        for (u, _) in s.out_edges(v) {
            if core[u] == u32::MAX {
                degree[u] -= 1;
                heap.push(Reverse((degree[u], u)));
            }
        }
    }
    core
}
