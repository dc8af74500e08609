//! The host loop ([`LoopOn::Host`](super::LoopOn::Host)): a count read back per level, every
//! schedule; and [`Compaction`], the flag compaction alone, for host loops of their own.

use cudarc::driver::CudaFunction;
use kernels_gen::schedule::LaunchDims;

use super::walk_plan;
use super::{check_sources, FrontierLoop, FrontierStep, Level, LoopStats, Next};
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{LoopsError, Result};
use crate::graph::{
    loops_compact_flags, loops_compact_flags_degrees, loops_compact_walk, DeviceGraph,
    COMPACT_SOURCE,
};
use crate::launch::entry::Ptr;

impl FrontierLoop {
    /// The host loop: each level the step over the current frontier (its `len()` its size), the
    /// compaction of its flags into the next frontier on the GPU (clearing them), and a 4-byte
    /// read of its size, which waits for the GPU; the frontiers stay on the device.
    pub(super) fn run_host<F: FrontierStep>(
        &mut self,
        gpu: &Gpu,
        sources: &[u32],
        mut step: F,
    ) -> Result<LoopStats> {
        let n = self.vertices;
        check_sources(sources, n)?;
        // A run that failed half-way may have left flags set (and a new loop's are not zeroed).
        self.flags.set_len(n);
        gpu.fill(&mut self.flags, 0)?;
        let max = self.max_levels();
        let [current, next] = &mut self.frontiers;
        current.set_len(sources.len());
        gpu.write_at(current, 0, sources)?;
        let dims = compact_dims(gpu, n);
        let mut stats = LoopStats::default();
        let mut iteration = 0u64;
        let ran = (|| {
            while !current.is_empty() {
                if iteration >= max {
                    return Err(LoopsError::NoConvergence {
                        iterations: iteration,
                        frontier: current.len(),
                    });
                }
                stats.frontier_vertices += current.len() as u64;
                stats.max_frontier = stats.max_frontier.max(current.len());
                // The level's number and the compaction's count, zeroed, in one write.
                gpu.write_at(&mut self.count, 0, &[iteration as u32, 0])?;
                let level = Level {
                    number: Some(iteration as u32),
                    device: &self.count,
                };
                step(gpu, current, Next::Flags(&mut self.flags), level)?;
                next.set_len(n);
                let count = Ptr::at(&self.count, 1);
                let args = loops_compact_flags::args(&self.flags, n as u32, &*next, count);
                let programmatic = gpu.programmatic_launch();
                gpu.launch_function_with(
                    "loops_compact_flags",
                    &self.compact_host,
                    dims,
                    args,
                    programmatic,
                )?;
                let size = gpu.download(&self.count)?[1] as usize;
                if size > n {
                    return Err(LoopsError::InvalidGraph {
                        detail: format!("the compaction counted {size} vertices of {n}"),
                    });
                }
                std::mem::swap(current, next);
                current.set_len(size);
                iteration += 1;
            }
            Ok(())
        })();
        // The device runs take the buffers at their capacity.
        current.set_len(n);
        next.set_len(n);
        ran?;
        stats.iterations = iteration as u32;
        Ok(stats)
    }
}

/// The blocks of one compaction launch: enough for the device to be full, each then strides.
pub(crate) fn compact_dims(gpu: &Gpu, n: usize) -> LaunchDims {
    let limits = gpu.limits();
    let full = (limits.sm_count as usize * (limits.max_threads_per_sm as usize / 256)).max(1);
    let grid = n.div_ceil(256).clamp(1, full * 4) as u32;
    LaunchDims {
        grid,
        block: 256,
        shared_bytes: 0,
    }
}

/// The frontier compaction on its own, for host loops other than [`FrontierLoop`] (the
/// direction-optimizing BFS of `src/graph/bfs_do.rs` switches kernels per level and reads
/// more than the count back): the set flags of `flags` become vertex ids in `out` (in no given
/// order), the flags are cleared, and their number is added to `count[0]`.
pub struct Compaction {
    function: CudaFunction,
    with_degrees: CudaFunction,
    walk: CudaFunction,
}

impl Compaction {
    /// Compiles the compaction kernel (once per process, or reads it from the disk cache).
    pub fn new(gpu: &Gpu) -> Result<Compaction> {
        Ok(Compaction {
            function: gpu.function("loops_compact_flags", COMPACT_SOURCE, "loops_compact_flags")?,
            with_degrees: gpu.function(
                "loops_compact_flags_degrees",
                COMPACT_SOURCE,
                "loops_compact_flags_degrees",
            )?,
            walk: gpu.function("loops_compact_flags", COMPACT_SOURCE, "loops_compact_walk")?,
        })
    }

    /// Compacts `flags` (one per vertex) into `out` (at least as long) and adds the count to
    /// `count[0]`; `out`'s length is left as it is. Errors if `out` or `count` is too short.
    pub fn run(
        &self,
        gpu: &Gpu,
        flags: &mut DeviceBuffer<u32>,
        out: &mut DeviceBuffer<u32>,
        count: &mut DeviceBuffer<u32>,
    ) -> Result<()> {
        self.launch(gpu, flags, out, count, None)
    }

    /// [`Compaction::run`] over `counters` (at least 3): the count is added to `counters[0]`, and
    /// the largest out-degree in `graph` of the vertices appended is max-ed into `counters[2]`
    /// (zero it before; `u32::MAX` marks a vertex outside the graph); `counters[1]` is left to the
    /// caller. One read of `counters` then gives both. The degrees are read only while the
    /// frontier is below `degrees_below` vertices: for a larger one `counters[2]` is the largest
    /// degree of some of its vertices, a lower bound (a caller that compares it only for frontiers
    /// below the bound loses nothing, and a frontier of millions is not charged a read per
    /// vertex). Over a graph of 64-bit offsets the degrees are not read and `counters[2]` becomes
    /// `u32::MAX`. Errors as `run` does, or if `counters` has fewer than 3 slots or there are more flags
    /// than the graph's vertices.
    pub fn run_with_degrees(
        &self,
        gpu: &Gpu,
        flags: &mut DeviceBuffer<u32>,
        out: &mut DeviceBuffer<u32>,
        counters: &mut DeviceBuffer<u32>,
        graph: &DeviceGraph,
        degrees_below: u32,
    ) -> Result<()> {
        if counters.len() < 3 || flags.len() > graph.vertices() {
            return Err(LoopsError::InvalidGraph {
                detail: format!(
                    "{} counters (3 wanted) and {} flags for a graph of {} vertices",
                    counters.len(),
                    flags.len(),
                    graph.vertices()
                ),
            });
        }
        if graph.offsets().wide_offsets().is_some() {
            gpu.write_at(counters, 2, &[u32::MAX])?;
            return self.run(gpu, flags, out, counters);
        }
        self.launch(gpu, flags, out, counters, Some((graph, degrees_below)))
    }

    fn launch(
        &self,
        gpu: &Gpu,
        flags: &mut DeviceBuffer<u32>,
        out: &mut DeviceBuffer<u32>,
        count: &mut DeviceBuffer<u32>,
        degrees_of: Option<(&DeviceGraph, u32)>,
    ) -> Result<()> {
        let n = flags.len();
        if out.len() < n || count.is_empty() {
            return Err(LoopsError::InvalidGraph {
                detail: format!(
                    "compaction of {n} flags into {} ids and {} counters",
                    out.len(),
                    count.len()
                ),
            });
        }
        if n == 0 {
            return Ok(());
        }
        let (name, function, args) = match degrees_of {
            None => (
                "loops_compact_flags",
                &self.function,
                loops_compact_flags::args(flags, n as u32, out, count),
            ),
            Some((graph, degrees_below)) => (
                "loops_compact_flags_degrees",
                &self.with_degrees,
                loops_compact_flags_degrees::args(
                    flags,
                    n as u32,
                    out,
                    count,
                    graph.offsets().offsets(),
                    graph.vertices() as u32,
                    degrees_below,
                ),
            ),
        };
        let programmatic = gpu.programmatic_launch();
        gpu.launch_function_with(name, function, compact_dims(gpu, n), args, programmatic)
    }

    /// [`Compaction::run_with_degrees`] for a push step's flags, walking the out-edges of
    /// `frontier` (its whole length) instead of scanning every flag: work in proportion to the
    /// frontier's edges, not to the graph. The contract, as for
    /// [`LoopOn::DevicePush`](super::LoopOn::DevicePush), is the caller's: every flag set is on the
    /// head of an out-edge of a vertex of `frontier` in `graph`, and `max_degree` is at least the
    /// largest out-degree of `frontier`'s vertices (a flag the walk does not reach stays set). The
    /// count is added to `counters[0]` and the largest out-degree of the vertices appended is
    /// max-ed into `counters[2]`, whatever the frontier's size. Errors as `run_with_degrees` does, or
    /// for a graph of 64-bit offsets (use `run_with_degrees`).
    #[allow(clippy::too_many_arguments)]
    pub fn run_walk(
        &self,
        gpu: &Gpu,
        flags: &mut DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        max_degree: u32,
        out: &mut DeviceBuffer<u32>,
        counters: &mut DeviceBuffer<u32>,
        graph: &DeviceGraph,
    ) -> Result<()> {
        let n = flags.len();
        if counters.len() < 3 || n > graph.vertices() || out.len() < n {
            return Err(LoopsError::InvalidGraph {
                detail: format!(
                    "a walk over {n} flags into {} ids and {} counters (3 wanted) on a graph of {} vertices",
                    out.len(),
                    counters.len(),
                    graph.vertices()
                ),
            });
        }
        if graph.offsets().wide_offsets().is_some() {
            return Err(LoopsError::InvalidGraph {
                detail: "the walk reads 32-bit offsets: a graph of 64-bit offsets scans".into(),
            });
        }
        if frontier.is_empty() || n == 0 {
            return Ok(());
        }
        let (lanes, chunks) = walk_plan(max_degree);
        let items = frontier.len() as u64 * chunks as u64;
        // A warp takes 32 / lanes items per round; a block 8 warps. One wave at most: the loop
        // strides.
        let warps = items.div_ceil((32 / lanes) as u64);
        let limits = gpu.limits();
        let wave = (limits.sm_count as u64 * (limits.max_threads_per_sm as u64 / 256)).max(1);
        let dims = LaunchDims {
            grid: warps.div_ceil(8).clamp(1, wave) as u32,
            block: 256,
            shared_bytes: 0,
        };
        let args = loops_compact_walk::args(
            flags,
            frontier,
            frontier.len() as u32,
            graph.offsets().offsets(),
            graph.adj(),
            graph.vertices() as u32,
            max_degree,
            out,
            counters,
        );
        let programmatic = gpu.programmatic_launch();
        gpu.launch_function_with("loops_compact_walk", &self.walk, dims, args, programmatic)
    }
}
