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
//! end, and the L1 stop reads 8 or 16 bytes per iteration. The loop on the device ([`run`] in the device queue)
//! adds the convergence test as a third launch and replays its iterations as a CUDA graph.

// Kernels of many parameters: a graph, its arrays, the state, the level.
#![allow(clippy::too_many_arguments)]

use loops_runtime::graph::{DeviceGraph, Graph, IterationsOnDevice};

use super::driver::{chunk_offsets, GraphStats, Strategy};
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

/// The update of the loop on the device ([`run`] in the device queue), a reduction over runs of vertices: one
/// block per run.
pub mod update_loop {
    use super::*;
    /// Zeroes `previous` (the sums the iteration's pull read, which the next update adds into),
    /// and [`update::pagerank_update`] from `old` to `fresh` while the run is not `done`; once it is
    /// (an iteration of a replay after the last), `fresh[v] = old[v]` and nothing else, so that both
    /// rank buffers hold the last iteration's ranks whatever the parity.
    #[for_schedules(block)]
    pub fn pagerank_update_loop<T: Float>(
        chunks: Offsets,
        old: &[T],
        fresh: &mut [T],
        inv_out_degree: &[T],
        contribution: &mut [T],
        sums: &mut [T],
        previous: &mut [T],
        done: &[u32],
    ) {
        for c in chunks.tiles() {
            if c == 0 {
                previous[0] = 0.0;
                previous[1] = 0.0;
            }
            let finished = done[0];
            let mut change = 0.0;
            let mut dangling = 0.0;
            for v in chunks.atoms(c) {
                if finished == 0 {
                    let r = fresh[v];
                    change += abs(r - old[v]);
                    if inv_out_degree[v] == 0.0 {
                        dangling += r;
                    }
                    contribution[v] = r * inv_out_degree[v];
                } else {
                    fresh[v] = old[v];
                }
            }
            if finished == 0 {
                atomic_add(&mut sums[0], change);
                atomic_add(&mut sums[1], dangling);
            }
        }
    }
}

/// The convergence test of the loop on the device, one thread after each iteration's update.
pub mod advance {
    use super::*;
    /// Over one tile, unless the run is `done`: counts the iteration in `iterations[0]`, keeps
    /// its L1 change `sums[0]` in `last[0]`, zeroes `previous` (the sums the iteration's pull
    /// read, which the next update adds into), and ends the run (sets `done[0]`) where the change
    /// fell below `tolerance` or the iterations reached `max_iterations`.
    #[for_schedules(thread)]
    pub fn pagerank_advance<T: Float>(
        one: Offsets,
        sums: &[T],
        previous: &mut [T],
        last: &mut [T],
        done: &mut [u32],
        iterations: &mut [u32],
        tolerance: T,
        max_iterations: u32,
    ) {
        for t in one.tiles() {
            if done[t] == 0 {
                let ran = iterations[0] + 1;
                iterations[0] = ran;
                last[0] = sums[0];
                previous[0] = 0.0;
                previous[1] = 0.0;
                if sums[0] < tolerance || ran >= max_iterations {
                    done[t] = 1;
                }
            }
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
    /// One tile, for the convergence test of the loop on the device.
    one: DeviceOffsets,
    /// The iterations the loop on the device ran (counted on the device).
    iterations: DeviceBuffer<u32>,
    /// The L1 change of the device loop's last iteration.
    last: DeviceBuffer<T>,
    /// The loop on the device, its replay kept for the next run on this state.
    device_loop: IterationsOnDevice,
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
            one: gpu.upload_offsets(&[0, 1])?,
            iterations: gpu.zeros(1)?,
            last: gpu.zeros(1)?,
            device_loop: IterationsOnDevice::new(gpu)?,
            shape: super::auto::shape_of_degrees((0..n).map(|v| g.degree(v) as u64)),
        })
    }

    /// The ranks of the last run.
    pub fn ranks(&self) -> &DeviceBuffer<T> {
        &self.rank
    }

    /// Fills the ranks, the next ranks and the contributions with `value` (tests poison the
    /// buffers a run writes with it).
    pub fn poison(&mut self, gpu: &Gpu, value: T) -> crate::Result<()> {
        gpu.fill(&mut self.rank, value)?;
        gpu.fill(&mut self.next, value)?;
        gpu.fill(&mut self.contribution, value)
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

/// The host loop of [`run`]: `max_iterations` pulls under `schedule`, or fewer where, with a
/// `tolerance`, the L1 change of an iteration falls below it (read back once per iteration).
fn run_host<T: Float>(
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

/// The loop on the device of [`run`] ([`IterationsOnDevice`], kept with the state): each
/// iteration is the pull under `schedule` (any: it runs over every vertex, sized on the host, as
/// in [`run`]) and the update (`update_loop`); with a tolerance also the convergence test
/// (`advance::pagerank_advance`, one thread), which counts the iterations and sets the loop's
/// `done` on the device. The iterations are recorded once as a CUDA graph (kept for the next run
/// on the same state with the same arguments) and replayed: without a tolerance exactly
/// `max_iterations` of them, the host reading nothing back; with one, four a replay, `done` read
/// back after each, the iterations after the one that converged restoring its ranks (as
/// the host loop, the run stops after the first iteration whose L1 change falls below it;
/// `last_change` is then read once at the end).
fn run_on_device<T: Float>(
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
    gpu.fill(&mut pr.sums[0], T::from_f64(0.0))?;
    gpu.fill(&mut pr.sums[1], T::from_f64(0.0))?;
    gpu.fill(&mut pr.iterations, 0)?;
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
    if max_iterations == 0 {
        return Ok(stats);
    }
    let teleport = T::from_f64((1.0 - damping) / n as f64);
    let inv_n = T::from_f64(1.0 / n as f64);
    // Never below: a change is never negative.
    let tol = T::from_f64(tolerance.unwrap_or(-1.0));
    // What the launches bake in: the buffers (the host loop swaps them) and the scalars.
    let key = [
        pr.rank.device_ptr(),
        pr.next.device_ptr(),
        pr.sums[0].device_ptr(),
        pr.sums[1].device_ptr(),
        damping.to_bits(),
        tolerance.map_or(u64::MAX, f64::to_bits),
        max_iterations as u64,
        std::mem::size_of::<T>() as u64,
        schedule_key(schedule),
    ];
    let exact = tolerance.is_none().then_some(max_iterations as u64);
    let PageRank {
        in_edges,
        inv_out_degree,
        chunks,
        rank,
        next,
        contribution,
        sums,
        one,
        iterations,
        last,
        device_loop,
        ..
    } = pr;
    // The loop's own limit: past the test's, which ends every run by `max_iterations`.
    let limit = max_iterations as u64 + 2 * iterate_default_replay();
    // Even iterations pull from `rank` into `next`, odd ones back; the sums alternate with them.
    device_loop.run(gpu, &key, exact, limit, |it, done| {
        let even = it.parity() == 0;
        let (old, new) = if even {
            (&*rank, &mut *next)
        } else {
            (&*next, &mut *rank)
        };
        let [s0, s1] = &mut *sums;
        let (previous, current) = if even { (s0, s1) } else { (s1, s0) };
        let gpu = it.gpu();
        pull::launch(
            schedule,
            gpu,
            in_edges.offsets(),
            in_edges.adj(),
            &*contribution,
            &*previous,
            &mut *new,
            teleport,
            T::from_f64(damping),
            inv_n,
        )?;
        update_loop::launch(
            "block",
            gpu,
            &*chunks,
            old,
            new,
            &*inv_out_degree,
            &mut *contribution,
            &mut *current,
            &mut *previous,
            &*done,
        )?;
        // A run of known length needs no test: the host counts its iterations.
        if exact.is_some() {
            return Ok(());
        }
        advance::launch(
            "thread",
            gpu,
            &*one,
            &*current,
            previous,
            &mut *last,
            done,
            &mut *iterations,
            tol,
            max_iterations,
        )
    })?;
    stats.iterations = match exact {
        Some(_) => max_iterations,
        None => gpu.download(&pr.iterations)?[0],
    };
    // After an odd number of iterations the last ranks are in `next` (the iterations after the
    // last, if any, copied them into both).
    if stats.iterations % 2 == 1 {
        std::mem::swap(&mut pr.rank, &mut pr.next);
    }
    if tolerance.is_some() {
        stats.last_change = gpu.download(&pr.last)?[0].to_f64();
    }
    Ok(stats)
}

/// The iterations of a replay of a run to a tolerance.
fn iterate_default_replay() -> u64 {
    loops_runtime::graph::DEFAULT_ITERATIONS_PER_REPLAY as u64
}

/// A schedule's name as a number, for the key of a kept replay.
pub(crate) fn schedule_key(schedule: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    schedule.hash(&mut h);
    h.finish()
}

/// PageRank with `damping` on the state `pr`: `max_iterations` pulls under `schedule`, or fewer
/// where, with a `tolerance`, the L1 change of an iteration falls below it; the ranks are in
/// [`PageRank::ranks`]. In the loop of `strategy`: [`Strategy::Host`] (with a tolerance, the
/// change read back once per iteration), [`Strategy::DeviceQueue`] (the iterations on the device,
/// recorded once and replayed, the convergence test on the device), or [`Strategy::Auto`]: the
/// faster of the two for a graph of this shape with these arguments, measured on the first call
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
        let ran = if strategy == Strategy::DeviceQueue {
            run_on_device(schedule, gpu, pr, damping, max_iterations, tolerance)?
        } else {
            run_host(schedule, gpu, pr, damping, max_iterations, tolerance)?
        };
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
    /// Stop once an iteration's L1 change of the ranks falls below this (read back once per
    /// iteration); `None` (the default): `max_iterations` iterations, nothing read back.
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
    /// What the run did (in the host loop, the only one PageRank has today).
    pub stats: GraphStats,
}

/// PageRank of the directed graph `graph` (out-edges; a repeated edge counts once per copy) in
/// `T` (`f32` or `f64`), by pulling over its transpose (made and uploaded here), the pull under
/// `options.schedule`. The CPU reference is `loops::graph::reference::pagerank`.
///
/// Each call makes its state, so its device loop records its replay anew; a caller who runs the
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
