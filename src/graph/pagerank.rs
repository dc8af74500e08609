//! PageRank ([`pagerank`](fn@super::pagerank)) by pulling (the LRB paper's application): each iteration every vertex sums what its
//! in-neighbours send it, `rank[u] / out_degree(u)` each, so the kernel runs over the transposed
//! graph (a vertex's atoms are its in-edges, `sources[e]` the tail). Ranks start at `1 / n`; the
//! rank of the vertices without out-edges (dangling) is spread over all vertices; teleport
//! `(1 - damping) / n`. A fixed number of iterations, or fewer where the L1 change of the ranks
//! falls below a tolerance. Edges count as stored, as in the CPU reference `loops::graph::pagerank`:
//! a repeated edge once per copy (in the pull and in the out-degree), a self-loop as any edge.
//!
//! **One launch an iteration** ([`step`], under every schedule), with nothing to reduce over the
//! vertices before the next: the dangling rank `D`, which every vertex needs, is pulled by one more
//! tile (vertex `n`, whose in-edges come from the dangling vertices) in the same launch, and the
//! ranks are kept *without* its share `delta = damping * D / n`, the same for every vertex: the
//! buffers hold `r'[v] = rank[v] - delta` and `delta` in slot `n`. A vertex's pull then adds the
//! previous iteration's `delta` times `w[v]`, the sum of `1 / out_degree(u)` over its in-edges
//! (made once on the host): `rank[v] = teleport + damping * (sum of r'[u] / out_degree(u) + delta *
//! w[v]) + delta'`, where the new `delta'` is tile `n`'s result (its atoms pull `r'[u]` of the
//! dangling `u`, plus `delta` times their count, `w[n]`). A dangling vertex without in-edges (an
//! isolated one: most of a Kronecker graph's dangling vertices, all of a symmetric graph's) has
//! `r'[u] = teleport` after the start's `1 / n`, so it is not an atom of tile `n`: their count
//! times that value is added instead, and tile `n` is no longer than the dangling vertices with
//! in-edges (none, in a symmetric graph). The ranks and the pulled values (`r'[v] / out_degree(v)`)
//! are double-buffered by the iteration's parity; a last launch ([`finish`]) adds `delta` to every
//! rank. Every step reads the iterations counted so far (`counts`, by parity, written by vertex 0)
//! and stores nothing where the run is over (the count reached, or the last change below the
//! tolerance: it sets the loop's `done`), so a run on the device records and replays its iterations
//! without the host. Such a step still pulls: its atom loop has no `break`, since a loop that only
//! sums is what the carry schedules (`merge_path`, `work_oriented`) stage through shared memory and
//! scan, and what `hierarchical` spreads over lanes; with the `break` `auto`'s pick on Kronecker 16
//! (65K vertices, 1.8M edges, H200) took 21.7 us an iteration against the two launches' 15.5 before
//! the fusion. Only a run with a tolerance in the device loop has such steps (the rest of its last
//! replay). With a tolerance each iteration adds a reduction of the L1 change over runs of 2,048
//! vertices ([`change`], `block`), read by the next step. The host loop and the device loop run the
//! same launches ([`IterationLoop`] with an [`IterateOn`]).

// Kernels of many parameters: a graph, its arrays, the state, the level.
#![allow(clippy::too_many_arguments)]

use loops_runtime::graph::{Graph, IterateOn, IterationLoop};

use super::driver::{chunk_offsets, GraphStats, Strategy};
use crate::prelude::*;

/// The start of a run, over runs of the `n + 1` slots: the ranks `1 / n` (`start`), their
/// `delta` 0 (slot `n`), the pulled values, and the counts and sums zeroed.
pub mod start {
    use super::*;
    /// `rank[v] = start` for `v < n`, `rank[n] = 0`, `pulled[v] = rank[v] * inv_out_degree[v]`;
    /// `counts` and `sums` zeroed.
    #[for_schedules(block)]
    pub fn pagerank_start<T: Float>(
        chunks: Offsets,
        inv_out_degree: &[T],
        rank: &mut [T],
        pulled: &mut [T],
        counts: &mut [u32],
        sums: &mut [T],
        start: T,
        n: usize,
    ) {
        for c in chunks.tiles() {
            if c == 0 {
                counts[0] = 0;
                counts[1] = 0;
                sums[0] = 0.0;
                sums[1] = 0.0;
            }
            for v in chunks.atoms(c) {
                let r = if v < n { start } else { 0.0 };
                rank[v] = r;
                pulled[v] = r * inv_out_degree[v];
            }
        }
    }
}

/// The iteration: the pull, its update folded into each vertex's epilogue, under every schedule.
pub mod step {
    use super::*;
    /// Over the `n + 1` tiles of the transpose and the dangling tile: unless the run is over
    /// (`done[0]`, `counts[q]` at `max_iterations`, or after an iteration the change `sums[q]`
    /// below `tolerance`: vertex 0 then stores the iterations run, `counts[q]`, in `done[0]`), `fresh[v] = teleport + damping * (sum
    /// of pulled[u] over in-edges + old[n] * w[v])` (tile `n`: `damping / n` times the same plus
    /// the `isolated` dangling vertices' rank less `delta`, the next `delta`), `fresh_pulled[v] = fresh[v] * inv_out_degree[v]`, and vertex 0 counts the
    /// iteration in `counts[1 - q]` and zeroes `sums[1 - q]` for the change of this iteration.
    #[for_schedules(core)]
    pub fn pagerank_step<T: Float>(
        g: Offsets,
        sources: &[u32],
        pulled: &[T],
        old: &[T],
        w: &[T],
        inv_out_degree: &[T],
        fresh_pulled: &mut [T],
        fresh: &mut [T],
        counts: &mut [u32],
        sums: &mut [T],
        done: &mut [u32],
        q: usize,
        n: usize,
        isolated: T,
        teleport: T,
        damping: T,
        inv_n: T,
        tolerance: T,
        max_iterations: u32,
    ) {
        for v in g.tiles() {
            let ran = counts[q];
            let go = done[0] == 0 && ran < max_iterations && (ran == 0 || sums[q] >= tolerance);
            let delta = old[n];
            // No `break` once the run is over: an atom loop that only sums is what the carry
            // schedules stage and scan and `hierarchical` splits over lanes (module docs).
            let mut sum = 0.0;
            for e in g.atoms(v) {
                sum += pulled[sources[e] as usize];
            }
            if go {
                // The isolated dangling vertices' rank: the start's, then teleport alone.
                let alone = if ran == 0 { inv_n } else { teleport };
                let r = if v < n {
                    teleport + damping * (sum + delta * w[v])
                } else {
                    damping * inv_n * (sum + delta * w[v] + isolated * alone)
                };
                fresh[v] = r;
                fresh_pulled[v] = r * inv_out_degree[v];
                if v == 0 {
                    counts[1 - q] = ran + 1;
                    sums[1 - q] = 0.0;
                }
            } else if v == 0 && done[0] == 0 {
                done[0] = max(ran, 1);
            }
        }
    }
}

/// The L1 change of an iteration, a reduction over runs of vertices: one block per run.
pub mod change {
    use super::*;
    /// Over runs of the `n` vertices (`chunks`), unless the run is `done`: `sums[slot] +=` the
    /// sum of `|(fresh[v] + fresh[n]) - (old[v] + old[n])|`.
    #[for_schedules(block)]
    pub fn pagerank_change<T: Float>(
        chunks: Offsets,
        old: &[T],
        fresh: &[T],
        done: &[u32],
        sums: &mut [T],
        slot: usize,
        n: usize,
    ) {
        for c in chunks.tiles() {
            let live = done[0] == 0;
            let d_old = old[n];
            let d_fresh = fresh[n];
            let mut change = 0.0;
            for v in chunks.atoms(c) {
                if live {
                    change += abs(fresh[v] + d_fresh - (old[v] + d_old));
                }
            }
            if live {
                atomic_add(&mut sums[slot], change);
            }
        }
    }
}

/// The ranks: `rank[v] = last[v] + last[n]` over runs of the `n` vertices.
pub mod finish {
    use super::*;
    /// Over runs of vertices: each rank with the `delta` of its iteration added back.
    #[for_schedules(block)]
    pub fn pagerank_finish<T: Float>(chunks: Offsets, last: &[T], rank: &mut [T], n: usize) {
        for c in chunks.tiles() {
            let delta = last[n];
            for v in chunks.atoms(c) {
                rank[v] = last[v] + delta;
            }
        }
    }
}

/// Vertices per run of the reductions and the start (a block of 256 threads, 8 vertices each).
pub const CHUNK: usize = 2048;

/// A graph ready for PageRank in `T` (f32 or f64): its transpose on the device with the
/// dangling tile, `1 / out_degree` per vertex (1 for a dangling one: its rank goes whole to the
/// dangling tile), `w`, the runs of the reductions, and the buffers of the iteration.
pub struct PageRank<T: Float> {
    /// `n + 1` tiles: vertex `v`'s in-edges, then the dangling vertices with in-edges.
    pull: DeviceOffsets,
    /// The dangling vertices without in-edges.
    isolated: usize,
    sources: DeviceBuffer<u32>,
    edges: usize,
    inv_out_degree: DeviceBuffer<T>,
    w: DeviceBuffer<T>,
    /// Runs of the `n` vertices, and of the `n + 1` slots.
    chunks: DeviceOffsets,
    slots: DeviceOffsets,
    /// The ranks less `delta` (slot `n`) and the pulled values, by parity.
    ranks: [DeviceBuffer<T>; 2],
    pulled: [DeviceBuffer<T>; 2],
    counts: DeviceBuffer<u32>,
    sums: DeviceBuffer<T>,
    /// The ranks of the last run.
    rank: DeviceBuffer<T>,
    /// The driver, its graphs kept for the next run on this state.
    iterate: IterationLoop,
    /// The graph's shape (its out-degrees), the key of `auto`'s measured choice.
    shape: crate::schedule::auto::TileStats,
}

/// What a loop of [`run`] did (which [`run`] returns as a [`GraphStats`]).
#[derive(Clone, Copy, Debug, PartialEq)]
struct PageRankStats {
    /// Iterations run.
    pub iterations: u32,
    /// The L1 change of the last iteration (read back only with a tolerance; NaN without).
    pub last_change: f64,
}

impl<T: Float> PageRank<T> {
    /// Uploads what PageRank on `g` (directed; out-edges) needs.
    pub fn new(gpu: &Gpu, g: &Graph) -> crate::Result<PageRank<T>> {
        let n = g.vertices();
        let inv: Vec<f64> = (0..n)
            .map(|v| match g.degree(v) {
                0 => 1.0,
                d => 1.0 / d as f64,
            })
            .collect();
        let t = g.transpose();
        let mut offsets = t.offsets().to_vec();
        let mut sources = t.adj().to_vec();
        let mut w: Vec<f64> = (0..n)
            .map(|v| t.out_edges(v).map(|(u, _)| inv[u]).sum())
            .collect();
        let (dangling, isolated): (Vec<u32>, Vec<u32>) = (0..n as u32)
            .filter(|&v| g.degree(v as usize) == 0)
            .partition(|&v| t.degree(v as usize) > 0);
        w.push((dangling.len() + isolated.len()) as f64);
        sources.extend_from_slice(&dangling);
        offsets.push(sources.len());
        let mut inv: Vec<T> = inv.into_iter().map(T::from_f64).collect();
        inv.push(T::from_f64(0.0));
        let w: Vec<T> = w.into_iter().map(T::from_f64).collect();
        Ok(PageRank {
            pull: gpu.upload_offsets(&offsets)?,
            isolated: isolated.len(),
            sources: gpu.upload(&sources)?,
            edges: g.edges(),
            inv_out_degree: gpu.upload(&inv)?,
            w: gpu.upload(&w)?,
            chunks: gpu.upload_offsets(&chunk_offsets(n, CHUNK))?,
            slots: gpu.upload_offsets(&chunk_offsets(n + 1, CHUNK))?,
            ranks: [gpu.zeros(n + 1)?, gpu.zeros(n + 1)?],
            pulled: [gpu.zeros(n + 1)?, gpu.zeros(n + 1)?],
            counts: gpu.zeros(2)?,
            sums: gpu.zeros(2)?,
            rank: gpu.zeros(n)?,
            iterate: IterationLoop::new(gpu)?,
            shape: super::auto::shape_of_degrees((0..n).map(|v| g.degree(v) as u64)),
        })
    }

    /// The ranks of the last run.
    pub fn ranks(&self) -> &DeviceBuffer<T> {
        &self.rank
    }

    /// Fills the ranks and every buffer a run writes with `value` (tests poison them with it).
    pub fn poison(&mut self, gpu: &Gpu, value: T) -> crate::Result<()> {
        gpu.fill(&mut self.rank, value)?;
        for b in self.ranks.iter_mut().chain(self.pulled.iter_mut()) {
            gpu.fill(b, value)?;
        }
        gpu.fill(&mut self.sums, value)?;
        gpu.fill(&mut self.counts, u32::MAX)
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
        self.edges
    }
}

/// One run in the loop `on`: see [`run`].
fn run_in<T: Float>(
    on: IterateOn,
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
    let teleport = T::from_f64((1.0 - damping) / n as f64);
    let inv_n = T::from_f64(1.0 / n as f64);
    // Never below: a change is never negative.
    let tol = T::from_f64(tolerance.unwrap_or(-1.0));
    // What the launches bake in (the buffers are the state's, fixed).
    let key = [
        damping.to_bits(),
        tolerance.map_or(u64::MAX, f64::to_bits),
        max_iterations as u64,
        std::mem::size_of::<T>() as u64,
        schedule_key(schedule),
    ];
    let exact = tolerance.is_none().then_some(max_iterations as u64);
    let isolated = T::from_f64(pr.isolated as f64);
    let PageRank {
        pull,
        sources,
        inv_out_degree,
        w,
        chunks,
        slots,
        ranks,
        pulled,
        counts,
        sums,
        rank,
        iterate,
        ..
    } = pr;
    if max_iterations == 0 {
        start::launch(
            "block",
            gpu,
            &*slots,
            &*inv_out_degree,
            &mut ranks[0],
            &mut pulled[0],
            &mut *counts,
            &mut *sums,
            inv_n,
            n,
        )?;
        finish::launch("block", gpu, &*chunks, &ranks[0], rank, n)?;
        return Ok(stats);
    }
    // Past the last iteration the steps store nothing: one more sets `done`.
    let limit = max_iterations as u64 + 2;
    iterate.run(gpu, on, &key, exact, limit, |it, done| {
        let gpu = it.gpu();
        if it.first() {
            start::launch(
                "block",
                gpu,
                &*slots,
                &*inv_out_degree,
                &mut ranks[0],
                &mut pulled[0],
                &mut *counts,
                &mut *sums,
                inv_n,
                n,
            )?;
        }
        let q = it.parity();
        let [r0, r1] = &mut *ranks;
        let (old, fresh) = if q == 0 { (r0, r1) } else { (r1, r0) };
        let [p0, p1] = &mut *pulled;
        let (from, to) = if q == 0 { (&*p0, p1) } else { (&*p1, p0) };
        step::launch(
            schedule,
            gpu,
            &*pull,
            &*sources,
            from,
            &*old,
            &*w,
            &*inv_out_degree,
            to,
            &mut *fresh,
            &mut *counts,
            &mut *sums,
            &mut *done,
            q,
            n,
            isolated,
            teleport,
            T::from_f64(damping),
            inv_n,
            tol,
            max_iterations,
        )?;
        if tolerance.is_none() {
            return Ok(());
        }
        change::launch(
            "block",
            gpu,
            &*chunks,
            &*old,
            &*fresh,
            &*done,
            &mut *sums,
            1 - q,
            n,
        )
    })?;
    // Without a known length the step ended the run storing its iterations in `done`, which
    // the loop read last.
    stats.iterations = match exact {
        Some(t) => t as u32,
        None => {
            // The step after them set `done`: the next run's first graph holds as many and one
            // more (`IterationLoop::expect`).
            let ran = iterate.done_value();
            iterate.expect(ran as u64 + 1);
            ran
        }
    };
    let last = (stats.iterations % 2) as usize;
    finish::launch("block", gpu, &*chunks, &ranks[last], rank, n)?;
    if tolerance.is_some() {
        stats.last_change = gpu.download(&*sums)?[last].to_f64();
    }
    Ok(stats)
}

/// A schedule's name as a number, for the key of a kept replay.
pub(crate) fn schedule_key(schedule: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    schedule.hash(&mut h);
    h.finish()
}

/// PageRank with `damping` on the state `pr`: `max_iterations` iterations (one launch each, the
/// pull under `schedule`), or fewer where, with a `tolerance`, the L1 change of an iteration falls
/// below it (as the CPU reference: the run stops after the first such iteration); the ranks are in
/// [`PageRank::ranks`]. In the loop of `strategy`, the same launches either way
/// ([`IterationLoop::run`]): [`Strategy::Host`] (with a tolerance, a 4-byte flag read back after
/// each iteration), [`Strategy::DeviceQueue`] (the iterations on the device, recorded once with the
/// start as CUDA graphs kept with the state, and replayed: without a tolerance up to 64 iterations
/// are one graph launch and nothing is read back until the end; with one, 8 a replay (the first as
/// many as the last run needed and one more), a flag read back after each), or [`Strategy::Auto`]:
/// the faster of the two for a graph of this shape with these arguments, measured on the first call
/// (`loops::graph` module docs: each run on this very state, the winner's run last) and kept for
/// later calls (where nothing is measured, `LOOPS_TUNE=off`: the device loop). Returns what ran
/// (its `time` the wall time of the call). Errors for another strategy.
pub fn run<T: Float>(
    strategy: Strategy,
    schedule: &str,
    gpu: &Gpu,
    pr: &mut PageRank<T>,
    damping: f64,
    max_iterations: u32,
    tolerance: Option<f64>,
) -> crate::Result<GraphStats> {
    let choice = super::auto::Choice {
        algorithm: "pagerank",
        schedule,
        element: T::RUST_NAME,
        shape: pr.shape,
        extra: vec![max_iterations as u64, tolerance.is_some() as u64],
    };
    let start = std::time::Instant::now();
    let mut once = |strategy: Strategy| -> crate::Result<(Strategy, PageRankStats)> {
        let on = if strategy == Strategy::DeviceQueue {
            IterateOn::Device
        } else {
            IterateOn::Host
        };
        let ran = run_in(on, schedule, gpu, pr, damping, max_iterations, tolerance)?;
        Ok((strategy, ran))
    };
    let (ran_in, ran) = match strategy {
        Strategy::Auto => {
            let candidates = [Strategy::DeviceQueue, Strategy::Host];
            match super::auto::measured(gpu, &choice, &candidates, &mut once)? {
                Some(r) => r,
                None => once(Strategy::DeviceQueue)?,
            }
        }
        Strategy::Host | Strategy::DeviceQueue => once(strategy)?,
        s => {
            return Err(super::driver::unsupported(
                "pagerank",
                s,
                "the host loop and the device queue",
            ))
        }
    };
    gpu.synchronize()?;
    let mut stats = GraphStats::new("pagerank", schedule, ran_in);
    stats.iterations = ran.iterations;
    stats.last_change = tolerance.map(|_| ran.last_change);
    stats.time = start.elapsed();
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
    /// Stop once an iteration's L1 change of the ranks falls below this (summed on the device,
    /// one more launch an iteration); `None` (the default): `max_iterations` iterations, nothing
    /// read back.
    pub tolerance: Option<f64>,
    /// The loop: [`Strategy::Host`] or [`Strategy::DeviceQueue`] (the loop on the device; see
    /// [`run`]); [`Strategy::Auto`] (the default) measures both on the first call
    /// for a graph of this shape and keeps the faster (`loops::graph` module docs); no other.
    pub strategy: Strategy,
}

impl Default for PageRankOptions {
    fn default() -> PageRankOptions {
        PageRankOptions {
            schedule: "auto".to_string(),
            damping: 0.85,
            max_iterations: 20,
            tolerance: None,
            strategy: Strategy::Auto,
        }
    }
}

/// What [`pagerank`](fn@super::pagerank) found.
pub struct PageRankResult<T: Float> {
    /// Each vertex's rank (they add up to 1).
    pub ranks: DeviceBuffer<T>,
    /// What the run did.
    pub stats: GraphStats,
}

/// PageRank of the directed graph `graph` (out-edges; a repeated edge counts once per copy) in
/// `T` (`f32` or `f64`), by pulling over its transpose (made and uploaded here), the pull under
/// `options.schedule`. The CPU reference is `loops::graph::reference::pagerank`.
///
/// Each call makes its state, so its device loop records its graphs anew; a caller who runs the
/// algorithm again on the same graph keeps the state and calls the module's [`run`] (what
/// `bench_graphs --library` times).
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
    let (damping, max, tolerance) = (options.damping, options.max_iterations, options.tolerance);
    let stats = run(
        options.strategy,
        schedule,
        gpu,
        &mut pr,
        damping,
        max,
        tolerance,
    )?;
    Ok(PageRankResult {
        ranks: pr.into_ranks(),
        stats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The launches of [`run`] on the CPU, in f64, from the arrays [`PageRank::new`] makes:
    /// `start`, `iterations` steps (the ranks less `delta`, `delta` in slot `n`), `finish`.
    fn model(g: &Graph, damping: f64, iterations: usize) -> Vec<f64> {
        let n = g.vertices();
        let inv: Vec<f64> = (0..n)
            .map(|v| match g.degree(v) {
                0 => 1.0,
                d => 1.0 / d as f64,
            })
            .collect();
        let t = g.transpose();
        let mut tiles: Vec<Vec<usize>> = (0..n)
            .map(|v| t.out_edges(v).map(|(u, _)| u).collect())
            .collect();
        let mut w: Vec<f64> = tiles
            .iter()
            .map(|s| s.iter().map(|&u| inv[u]).sum())
            .collect();
        let dangling: Vec<usize> = (0..n).filter(|&v| g.degree(v) == 0).collect();
        w.push(dangling.len() as f64);
        let (with_in, alone): (Vec<usize>, Vec<usize>) =
            dangling.into_iter().partition(|&v| t.degree(v) > 0);
        tiles.push(with_in);
        let mut rank: Vec<f64> = (0..=n)
            .map(|v| if v < n { 1.0 / n as f64 } else { 0.0 })
            .collect();
        let mut pulled: Vec<f64> = (0..=n)
            .map(|v| rank[v] * inv.get(v).unwrap_or(&0.0))
            .collect();
        let teleport = (1.0 - damping) / n as f64;
        for ran in 0..iterations {
            let delta = rank[n];
            let fresh: Vec<f64> = (0..=n)
                .map(|v| {
                    let total = tiles[v].iter().map(|&u| pulled[u]).sum::<f64>() + delta * w[v];
                    if v < n {
                        teleport + damping * total
                    } else {
                        let each = if ran == 0 { 1.0 / n as f64 } else { teleport };
                        damping / n as f64 * (total + alone.len() as f64 * each)
                    }
                })
                .collect();
            pulled = (0..=n)
                .map(|v| fresh[v] * inv.get(v).unwrap_or(&0.0))
                .collect();
            rank = fresh;
        }
        (0..n).map(|v| rank[v] + rank[n]).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]

        /// The ranks kept less the dangling share, with that share pulled by one more tile, are
        /// the CPU reference's ranks, dangling vertices, repeated edges and self-loops included.
        #[test]
        fn the_folded_dangling_share_gives_the_reference_ranks(
            n in 1usize..30,
            edges in proptest::collection::vec((0u32..30, 0u32..30), 0..90),
            iterations in 0usize..25,
        ) {
            let edges: Vec<(u32, u32, u32)> = edges
                .into_iter()
                .filter(|&(a, b)| (a as usize) < n && (b as usize) < n)
                .map(|(a, b)| (a, b, 1))
                .collect();
            let g = Graph::from_edges(n, &edges).unwrap();
            let got = model(&g, 0.85, iterations);
            let want = loops_runtime::graph::pagerank(&g, 0.85, iterations);
            let l1: f64 = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).sum();
            prop_assert!(l1 < 1e-12, "L1 {l1:e}");
        }
    }
}
