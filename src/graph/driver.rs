//! What the graph algorithms share: the loop that drives them ([`Strategy`]), the statistics every
//! one of them returns ([`GraphStats`]), the start and run of a single-source traversal (BFS and
//! Bellman-Ford SSSP differ only in their step), and the runs of vertices their reductions go over.

use std::time::{Duration, Instant};

use loops_runtime::graph::{DeviceGraph, FrontierLoop, LoopOn, LoopStats, Next, UNREACHED};

use crate::{DeviceBuffer, Gpu, LoopsError, Result};

/// The loop that drives an iterative graph algorithm: for the frontier algorithms the strategy of
/// the runtime's one driver, `FrontierLoop` ([`Strategy::loop_on`]); near-far's host and device
/// loops; PageRank's, components' and k-core's, `IterationLoop` (`IterateOn::{Host, Device}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// The fastest loop the algorithm and the schedule allow (with schedule `auto`, the
    /// fastest schedule and loop of a short list, `loops::graph::auto`), measured on the first
    /// call for a graph of that shape and kept (in the process and the tuner's cache on disk; see the
    /// `loops::graph` module docs); with `LOOPS_TUNE=off`, a fixed rule: for BFS (direction-optimizing
    /// too) the device queue, for SSSP the device flags, for PageRank, components and k-core the
    /// device loop, where the schedule can run there; else the host loop.
    #[default]
    Auto,
    /// The host loop: each iteration reads the next frontier's size (or a flag) back to the host.
    /// Every schedule. The only loop of triangles.
    Host,
    /// The loop on the device, its frontier compacted from flags on the device and its levels
    /// replayed as a CUDA graph: BFS and Bellman-Ford (`FrontierLoop::run` with
    /// `LoopOn::DevicePush`, the compaction walking the frontier's out-edges while they are few),
    /// near-far SSSP (`NearFarLoop::run` with `NearFarOn::Device`).
    DeviceFlags,
    /// [`Strategy::DeviceFlags`] whose compaction scans every flag at every level
    /// (`LoopOn::DeviceScan`): BFS and Bellman-Ford.
    DeviceScan,
    /// The loop on the device whose step appends the next frontier itself, one launch a level
    /// (`LoopOn::DeviceQueue`): BFS; direction-optimizing BFS (`FrontierLoop::run_directed`),
    /// whose levels are the push step alone in batches far from the switch, else three launches:
    /// the choice of the direction on the device, a pull and a push step. PageRank, components and k-core: their
    /// iterations on the device (`IterationLoop` on `IterateOn::Device`), k-core's peel over a
    /// queue of the vertices removed.
    DeviceQueue,
}

impl Strategy {
    /// Its name: `auto`, `host`, `device-flags`, `device-scan`, `device-queue`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Auto => "auto",
            Strategy::Host => "host",
            Strategy::DeviceFlags => "device-flags",
            Strategy::DeviceScan => "device-scan",
            Strategy::DeviceQueue => "device-queue",
        }
    }

    /// The strategy of the runtime's frontier loop this one is for a traversal of `graph`
    /// (`DeviceFlags` a push run along its edges); `None` for `Auto`, which chooses one.
    pub fn loop_on(self, graph: &DeviceGraph) -> Option<LoopOn<'_>> {
        Some(match self {
            Strategy::Auto => return None,
            Strategy::Host => LoopOn::Host,
            Strategy::DeviceFlags => LoopOn::DevicePush(graph),
            Strategy::DeviceScan => LoopOn::DeviceScan,
            Strategy::DeviceQueue => LoopOn::DeviceQueue,
        })
    }

    /// The strategy of that [`name`](Self::name), or `None`.
    pub fn from_name(name: &str) -> Option<Strategy> {
        [
            Strategy::Auto,
            Strategy::Host,
            Strategy::DeviceFlags,
            Strategy::DeviceScan,
            Strategy::DeviceQueue,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }
}

/// What a graph algorithm of this module did: one type for all of them.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphStats {
    /// The algorithm: `bfs`, `bfs-do`, `sssp`, `sssp-near-far`, `pagerank`, `components`,
    /// `triangles`, `k-core`.
    pub algorithm: &'static str,
    /// The schedule its main step ran under: as asked, or what graph `auto` chose where it
    /// chose one (`loops::graph::auto`: BFS, SSSP, triangles; `auto` where it kept the
    /// schedule that chooses per launch, and for the others).
    pub schedule: String,
    /// The loop that ran it (never [`Strategy::Auto`]: what `Auto` chose).
    pub strategy: Strategy,
    /// Iterations: BFS levels, SSSP rounds (near-far: relaxation rounds), PageRank iterations,
    /// components' union-find iterations (the last one changing nothing), k-core passes (host loop)
    /// or peel iterations (device loop), 1 for triangles.
    pub iterations: u32,
    /// The frontiers' sizes added up (the frontier algorithms; 0 for the others).
    pub frontier_vertices: u64,
    /// The largest frontier (the frontier algorithms; 0 for the others).
    pub max_frontier: usize,
    /// Near-far SSSP's bucket advances; 0 for the others.
    pub advances: u32,
    /// Direction-optimizing BFS's pull levels; 0 for the others.
    pub pull_levels: u32,
    /// PageRank's L1 change of its last iteration when it was asked for a tolerance; `None`
    /// otherwise.
    pub last_change: Option<f64>,
    /// Wall time on the host from the first launch to the GPU's end of the last (the buffers and
    /// loops allocated before it are not counted; a kernel's first launch in a process, which
    /// loads it, is). Benchmarks time the module drivers with CUDA events instead.
    pub time: Duration,
}

impl GraphStats {
    /// Stats of `algorithm` under `schedule` in `strategy`, everything else zero.
    pub(crate) fn new(algorithm: &'static str, schedule: &str, strategy: Strategy) -> GraphStats {
        GraphStats {
            algorithm,
            schedule: schedule.to_string(),
            strategy,
            iterations: 0,
            frontier_vertices: 0,
            max_frontier: 0,
            advances: 0,
            pull_levels: 0,
            last_change: None,
            time: Duration::ZERO,
        }
    }

    /// These stats with a frontier loop's.
    pub(crate) fn with_loop(mut self, stats: LoopStats) -> GraphStats {
        self.iterations = stats.iterations;
        self.frontier_vertices = stats.frontier_vertices;
        self.max_frontier = stats.max_frontier;
        self.pull_levels = stats.pull_levels;
        self
    }
}

/// Runs `f` and waits for the GPU: its result and the wall time.
pub(crate) fn timed<R>(gpu: &Gpu, f: impl FnOnce() -> Result<R>) -> Result<(R, Duration)> {
    let start = Instant::now();
    let r = f()?;
    gpu.synchronize()?;
    Ok((r, start.elapsed()))
}

/// Whether `schedule` may run in a loop on the device: it sizes its launches on the device, and
/// checked mode (which waits for every launch) is off.
pub(crate) fn on_device(schedule: &str) -> bool {
    const DEVICE_SIZED: &[&str] = &[
        "thread", "group2", "group4", "group8", "group16", "warp", "group64", "block", "auto",
    ];
    (DEVICE_SIZED.contains(&schedule) || schedule.starts_with("lanes"))
        && !crate::launch::checked_mode(false)
}

/// Errors unless `source` is a vertex of a graph of `n` vertices.
pub(crate) fn check_source(source: u32, n: usize) -> Result<()> {
    if source as usize >= n {
        return Err(LoopsError::InvalidGraph {
            detail: format!("source {source} of a graph of {n} vertices"),
        });
    }
    Ok(())
}

/// The error of a strategy `op` cannot run in.
pub(crate) fn unsupported(op: &'static str, strategy: Strategy, runs_in: &str) -> LoopsError {
    LoopsError::InvalidArgument {
        op,
        detail: format!(
            "no `{}` loop for {op}; it runs in {runs_in}",
            strategy.name()
        ),
    }
}

/// Sets every value to [`UNREACHED`] and the source's to 0.
pub(crate) fn start(gpu: &Gpu, source: u32, values: &mut DeviceBuffer<u32>) -> Result<()> {
    gpu.fill(values, UNREACHED)?;
    if (source as usize) < values.len() {
        gpu.write_at(values, source as usize, &[0])?;
    }
    Ok(())
}

/// A single-source traversal: `values` (levels, distances) set to [`UNREACHED`] but the source's,
/// 0, then `step(gpu, frontier, values, next)` run from the source in the loop `on` of `frontier`
/// until a frontier is empty. What BFS and Bellman-Ford SSSP run, each with its step.
pub fn traverse<F>(
    gpu: &Gpu,
    frontier: &mut FrontierLoop,
    on: LoopOn<'_>,
    source: u32,
    values: &mut DeviceBuffer<u32>,
    mut step: F,
) -> Result<LoopStats>
where
    F: FnMut(&Gpu, &DeviceBuffer<u32>, &mut DeviceBuffer<u32>, Next<'_>) -> Result<()>,
{
    start(gpu, source, values)?;
    frontier.run(gpu, on, &[source], |gpu, current, next, _| {
        step(gpu, current, values, next)
    })
}

/// `0, chunk, 2 * chunk, .., n`: the offsets of a tile set whose tiles are runs of `chunk`
/// consecutive vertices (the last one shorter), for kernels that reduce over all vertices with one
/// atomic per run instead of one per vertex.
pub fn chunk_offsets(n: usize, chunk: usize) -> Vec<usize> {
    assert!(chunk > 0, "chunks of 0 vertices");
    let mut offsets: Vec<usize> = (0..n).step_by(chunk).collect();
    offsets.push(n);
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_by_name_and_schedules_on_the_device() {
        for s in [
            Strategy::Auto,
            Strategy::Host,
            Strategy::DeviceFlags,
            Strategy::DeviceScan,
            Strategy::DeviceQueue,
        ] {
            assert_eq!(Strategy::from_name(s.name()), Some(s));
        }
        assert_eq!(Strategy::from_name("device"), None);
        assert_eq!(Strategy::default(), Strategy::Auto);
        for s in [
            "thread", "warp", "group64", "block", "auto", "lanes", "lanes4",
        ] {
            assert!(on_device(s), "{s}");
        }
        for s in [
            "merge_path",
            "split",
            "work_oriented",
            "lrb",
            "hierarchical",
        ] {
            assert!(!on_device(s), "{s}");
        }
        assert_eq!(chunk_offsets(5, 2), [0, 2, 4, 5]);
    }
}
