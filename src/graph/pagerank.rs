//! PageRank ([`pagerank`](fn@super::pagerank)) by pulling (the LRB paper's application): each iteration every vertex sums what its
//! in-neighbours send it, `rank[u] / out_degree(u)` each, so the kernel runs over the transposed
//! graph (a vertex's atoms are its in-edges, `sources[e]` the tail). Ranks start at `1 / n`; the
//! rank of the vertices without out-edges (dangling) is spread over all vertices; teleport
//! `(1 - damping) / n`. A fixed number of iterations, or fewer where the L1 change of the ranks
//! falls below a tolerance. Edges count as stored, as in the CPU reference `loops::graph::pagerank`:
//! a repeated edge once per copy (in the pull and in the out-degree), a self-loop as any edge.
//!
//! Each iteration is two launches: the pull ([`pull`], under every schedule) and an update over
//! runs of 2,048 vertices ([`update`], `block`: one atomic per run) that sums the L1 change and the
//! dangling rank on the device and computes the next iteration's contributions. The dangling sum
//! stays on the device (the pull reads it), so a fixed iteration count reads nothing back until the
//! end, and the L1 stop reads 8 or 16 bytes per iteration.

// Kernels of many parameters: a graph, its arrays, the state, the level.
#![allow(clippy::too_many_arguments)]

use loops_runtime::graph::{DeviceGraph, Graph};

use super::driver::{chunk_offsets, timed, GraphStats, Strategy};
use crate::prelude::*;

/// The pull step, under every schedule.
pub mod pull {
    use super::*;
    /// `next[v] = teleport + damping * (sum of contribution[u] over in-edges u -> v
    /// + dangling_rank / n)`, where `sums[1]` holds the dangling rank.
    #[for_schedules(core)]
    pub fn pagerank_pull<T: Float>(
        g: Offsets,
        sources: &[u32],
        contribution: &[T],
        sums: &[T],
        next: &mut [T],
        teleport: T,
        damping: T,
        inv_n: T,
    ) {
        for v in g.tiles() {
            let mut sum = 0.0;
            for e in g.atoms(v) {
                sum += contribution[sources[e] as usize];
            }
            next[v] = teleport + damping * (sum + sums[1] * inv_n);
        }
    }
}

/// The update, a reduction over runs of vertices: one block per run.
pub mod update {
    use super::*;
    /// Over runs of vertices (`chunks`): `sums[0] +=` the L1 change from `rank` to `next`,
    /// `sums[1] +=` the rank of the dangling vertices (`inv_out_degree` 0), and each vertex's
    /// contribution to the next pull, `next[v] * inv_out_degree[v]`.
    #[for_schedules(block)]
    pub fn pagerank_update<T: Float>(
        chunks: Offsets,
        rank: &[T],
        next: &[T],
        inv_out_degree: &[T],
        contribution: &mut [T],
        sums: &mut [T],
    ) {
        for c in chunks.tiles() {
            let mut change = 0.0;
            let mut dangling = 0.0;
            for v in chunks.atoms(c) {
                let r = next[v];
                change += abs(r - rank[v]);
                if inv_out_degree[v] == 0.0 {
                    dangling += r;
                }
                contribution[v] = r * inv_out_degree[v];
            }
            atomic_add(&mut sums[0], change);
            atomic_add(&mut sums[1], dangling);
        }
    }
}

/// Vertices per run of the update's reduction (a block of 256 threads, 8 vertices each).
pub const CHUNK: usize = 2048;

/// A graph ready for PageRank in `T` (f32 or f64): its transpose on the device, `1 / out_degree`
/// per vertex (0 for a dangling one), the runs of the update, and the buffers of the iteration.
pub struct PageRank<T: Float> {
    in_edges: DeviceGraph,
    inv_out_degree: DeviceBuffer<T>,
    chunks: DeviceOffsets,
    rank: DeviceBuffer<T>,
    next: DeviceBuffer<T>,
    contribution: DeviceBuffer<T>,
    sums: [DeviceBuffer<T>; 2],
}

/// What a [`run`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageRankStats {
    /// Iterations run.
    pub iterations: u32,
    /// The L1 change of the last iteration (read back only with a tolerance; NaN without).
    pub last_change: f64,
}

impl<T: Float> PageRank<T> {
    /// Uploads what PageRank on `g` (directed; out-edges) needs.
    pub fn new(gpu: &Gpu, g: &Graph) -> crate::Result<PageRank<T>> {
        let n = g.vertices();
        let inv: Vec<T> = (0..n)
            .map(|v| match g.degree(v) {
                0 => T::from_f64(0.0),
                d => T::from_f64(1.0 / d as f64),
            })
            .collect();
        Ok(PageRank {
            in_edges: gpu.upload_graph(&g.transpose().unit_weights())?,
            inv_out_degree: gpu.upload(&inv)?,
            chunks: gpu.upload_offsets(&chunk_offsets(n, CHUNK))?,
            rank: gpu.zeros(n)?,
            next: gpu.zeros(n)?,
            contribution: gpu.zeros(n)?,
            sums: [gpu.zeros(2)?, gpu.zeros(2)?],
        })
    }

    /// The ranks of the last run.
    pub fn ranks(&self) -> &DeviceBuffer<T> {
        &self.rank
    }

    /// The ranks of the last run, the rest dropped.
    pub fn into_ranks(self) -> DeviceBuffer<T> {
        self.rank
    }

    /// The vertices.
    pub fn vertices(&self) -> usize {
        self.rank.len()
    }

    /// The edges.
    pub fn edges(&self) -> usize {
        self.in_edges.edges()
    }
}

/// PageRank with `damping`: `max_iterations` pulls under `schedule`, or fewer where, with a
/// `tolerance`, the L1 change of an iteration falls below it (read back once per iteration). The
/// ranks are in [`PageRank::ranks`].
pub fn run<T: Float>(
    schedule: &str,
    gpu: &Gpu,
    pr: &mut PageRank<T>,
    damping: f64,
    max_iterations: u32,
    tolerance: Option<f64>,
) -> crate::Result<PageRankStats> {
    let n = pr.vertices();
    let mut stats = PageRankStats {
        iterations: 0,
        last_change: f64::NAN,
    };
    if n == 0 {
        return Ok(stats);
    }
    let start = T::from_f64(1.0 / n as f64);
    gpu.fill(&mut pr.rank, start)?;
    // The first contributions and dangling rank, from the start ranks (no change).
    gpu.fill(&mut pr.sums[0], T::from_f64(0.0))?;
    update::launch(
        "block",
        gpu,
        &pr.chunks,
        &pr.rank,
        &pr.rank,
        &pr.inv_out_degree,
        &mut pr.contribution,
        &mut pr.sums[0],
    )?;
    let teleport = T::from_f64((1.0 - damping) / n as f64);
    let inv_n = T::from_f64(1.0 / n as f64);
    for _ in 0..max_iterations {
        let [previous, current] = &mut pr.sums;
        pull::launch(
            schedule,
            gpu,
            pr.in_edges.offsets(),
            pr.in_edges.adj(),
            &pr.contribution,
            previous,
            &mut pr.next,
            teleport,
            T::from_f64(damping),
            inv_n,
        )?;
        gpu.fill(current, T::from_f64(0.0))?;
        update::launch(
            "block",
            gpu,
            &pr.chunks,
            &pr.rank,
            &pr.next,
            &pr.inv_out_degree,
            &mut pr.contribution,
            current,
        )?;
        std::mem::swap(&mut pr.rank, &mut pr.next);
        pr.sums.swap(0, 1);
        stats.iterations += 1;
        if let Some(tolerance) = tolerance {
            // After the swap the sums just written are `sums[0]`.
            let change = gpu.download(&pr.sums[0])?[0].to_f64();
            stats.last_change = change;
            if change < tolerance {
                break;
            }
        }
    }
    Ok(stats)
}

/// What [`pagerank`](fn@super::pagerank) is asked.
#[derive(Clone, Debug, PartialEq)]
pub struct PageRankOptions {
    /// The pull's schedule, a name of `loops::SCHEDULES` (default `auto`).
    pub schedule: String,
    /// The damping factor (default 0.85).
    pub damping: f64,
    /// The most iterations (default 20).
    pub max_iterations: u32,
    /// Stop once an iteration's L1 change of the ranks falls below this (read back once per
    /// iteration); `None` (the default): `max_iterations` iterations, nothing read back.
    pub tolerance: Option<f64>,
}

impl Default for PageRankOptions {
    fn default() -> PageRankOptions {
        PageRankOptions {
            schedule: "auto".to_string(),
            damping: 0.85,
            max_iterations: 20,
            tolerance: None,
        }
    }
}

/// What [`pagerank`](fn@super::pagerank) found.
pub struct PageRankResult<T: Float> {
    /// Each vertex's rank (they add up to 1).
    pub ranks: DeviceBuffer<T>,
    /// What the run did (in the host loop, the only one PageRank has today).
    pub stats: GraphStats,
}

/// PageRank of the directed graph `graph` (out-edges; a repeated edge counts once per copy) in
/// `T` (`f32` or `f64`), by pulling over its transpose (made and uploaded here), the pull under
/// `options.schedule`. The CPU reference is `loops::graph::reference::pagerank`.
///
/// ```no_run
/// use loops::graph::{pagerank, Graph, PageRankOptions};
/// # fn main() -> loops::Result<()> {
/// let gpu = loops::Gpu::new(0)?;
/// let g = Graph::from_edges(3, &[(0, 1, 1), (1, 2, 1), (2, 0, 1)])?;
/// let run = pagerank::<f64>(&gpu, &g, &PageRankOptions::default())?;
/// let ranks = gpu.download(&run.ranks)?;
/// assert!(ranks.iter().all(|r| (r - 1.0 / 3.0).abs() < 1e-9));
/// # Ok(())
/// # }
/// ```
pub fn pagerank<T: Float>(
    gpu: &Gpu,
    graph: &Graph,
    options: &PageRankOptions,
) -> crate::Result<PageRankResult<T>> {
    let mut pr = PageRank::<T>::new(gpu, graph)?;
    let schedule = options.schedule.as_str();
    let (ran, time) = timed(gpu, || {
        run(
            schedule,
            gpu,
            &mut pr,
            options.damping,
            options.max_iterations,
            options.tolerance,
        )
    })?;
    let mut stats = GraphStats::new("pagerank", schedule, Strategy::Host);
    stats.iterations = ran.iterations;
    stats.last_change = options.tolerance.map(|_| ran.last_change);
    stats.time = time;
    Ok(PageRankResult {
        ranks: pr.into_ranks(),
        stats,
    })
}
