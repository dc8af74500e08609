//! The host loop of [`NearFarLoop`](super::NearFarLoop): a count read back after every round and
//! bucket advance.

use cudarc::driver::CudaFunction;
use kernels_gen::schedule::LaunchDims;

use super::{
    loops_frontier_degrees, loops_frontier_degrees_wide, loops_near_far_split, Hops, NearFarStats,
    NearFarStep, Settings, NEAR_FAR_SOURCE,
};
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{LoopsError, Result};
use crate::graph::frontier::compact_dims;
use crate::graph::{DeviceGraph, COMPACT_SOURCE, UNREACHED};

/// The host loop ([`NearFarOn::Host`](super::NearFarOn::Host)): it owns the near frontier (current
/// and next), the near and far flags (a slot per vertex each), the counters, and the compaction,
/// bucket-advance and edge-count kernels.
///
/// A round: the step, then the near flags compacted into the next near frontier and its 4-byte
/// count read back. A bucket advance (when the near frontier is empty): the split kernel over the
/// far flags, the compaction, and a 12-byte read-back (the near count, the far vertices left and
/// their smallest distance; when nothing moved but far vertices are left, a second advance jumps
/// the threshold to the nearest of them). The distances and frontiers stay on the device.
pub(crate) struct HostNearFar {
    current: DeviceBuffer<u32>,
    next: DeviceBuffer<u32>,
    near_flags: DeviceBuffer<u32>,
    far_flags: DeviceBuffer<u32>,
    /// The compaction's count after a round.
    count: DeviceBuffer<u32>,
    /// After an advance: the compaction's count, the far vertices left, their smallest distance.
    split_counts: DeviceBuffer<u32>,
    /// The bucket's end, which the step reads (written at each advance).
    threshold: DeviceBuffer<u32>,
    relaxed_edges: DeviceBuffer<u64>,
    compact: CudaFunction,
    split: CudaFunction,
    degrees: CudaFunction,
    degrees_wide: CudaFunction,
}

impl HostNearFar {
    /// Buffers for graphs of up to `vertices` vertices; compiles (once per process, or reads from
    /// the disk cache) the compaction and the near-far kernels.
    pub(crate) fn new(gpu: &Gpu, vertices: usize) -> Result<HostNearFar> {
        let near_far = |entry: &str| gpu.function("loops_near_far", NEAR_FAR_SOURCE, entry);
        Ok(HostNearFar {
            current: gpu.zeros(vertices.max(1))?,
            next: gpu.zeros(vertices.max(1))?,
            near_flags: gpu.zeros(vertices)?,
            far_flags: gpu.zeros(vertices)?,
            count: gpu.zeros(1)?,
            split_counts: gpu.zeros(3)?,
            threshold: gpu.zeros(1)?,
            relaxed_edges: gpu.zeros(1)?,
            compact: gpu.function("loops_compact_flags", COMPACT_SOURCE, "loops_compact_flags")?,
            split: near_far("loops_near_far_split")?,
            degrees: near_far("loops_frontier_degrees")?,
            degrees_wide: near_far("loops_frontier_degrees_wide")?,
        })
    }

    /// A run of [`NearFarLoop::run`](super::NearFarLoop::run) on the host, with `delta` and `hops`
    /// decided and the run checked.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run<F: NearFarStep>(
        &mut self,
        gpu: &Gpu,
        g: &DeviceGraph,
        source: u32,
        dist: &mut DeviceBuffer<u32>,
        mut step: F,
        (delta, hops): (u32, Hops),
        settings: &Settings,
    ) -> Result<NearFarStats> {
        let n = g.vertices();
        gpu.fill(dist, UNREACHED)?;
        gpu.write_at(dist, source as usize, &[0])?;
        // A run that failed half-way may have left flags set.
        self.near_flags.set_len(n);
        self.far_flags.set_len(n);
        gpu.fill(&mut self.near_flags, 0)?;
        gpu.fill(&mut self.far_flags, 0)?;
        if settings.count_edges {
            gpu.fill(&mut self.relaxed_edges, 0)?;
        }
        self.current.set_len(1);
        gpu.write_at(&mut self.current, 0, &[source])?;
        let max = settings.max_iterations.unwrap_or(4 * (n as u64 + 1) + 1);
        let mut stats = NearFarStats::default();
        let mut threshold = delta;
        gpu.write_at(&mut self.threshold, 0, &[threshold])?;
        let mut steps = 0u64;
        let check_steps = |steps: &mut u64, frontier: usize| {
            if *steps >= max {
                return Err(LoopsError::NoConvergence {
                    iterations: *steps,
                    frontier,
                });
            }
            *steps += 1;
            Ok(())
        };
        loop {
            while !self.current.is_empty() {
                check_steps(&mut steps, self.current.len())?;
                stats.rounds += 1;
                stats.frontier_vertices += self.current.len() as u64;
                stats.max_frontier = stats.max_frontier.max(self.current.len());
                if settings.count_edges {
                    self.add_frontier_degrees(gpu, g)?;
                }
                step(
                    gpu,
                    &self.current,
                    dist,
                    &mut self.near_flags,
                    &mut self.far_flags,
                    &self.threshold,
                    hops,
                )?;
                gpu.fill(&mut self.count, 0)?;
                self.compact_near(gpu, n, false)?;
                let size = gpu.download(&self.count)?[0] as usize;
                self.take_next(n, size)?;
            }
            // A bucket that holds every distance flags nothing far (the step's far test is
            // `distance >= threshold`): the run is over.
            if threshold == UNREACHED {
                break;
            }
            check_steps(&mut steps, 0)?;
            let next = threshold.saturating_add(delta);
            let (mut far_left, far_min) = self.advance(gpu, dist, n, threshold, next)?;
            stats.advances += 1;
            threshold = next;
            if self.current.is_empty() && far_left > 0 {
                check_steps(&mut steps, 0)?;
                let next = far_min.saturating_add(delta);
                far_left = self.advance(gpu, dist, n, threshold, next)?.0;
                stats.advances += 1;
                threshold = next;
            }
            if self.current.is_empty() && far_left == 0 {
                break;
            }
            gpu.write_at(&mut self.threshold, 0, &[threshold])?;
        }
        if settings.count_edges {
            stats.relaxed_edges = gpu.download(&self.relaxed_edges)?[0];
        }
        Ok(stats)
    }

    /// One bucket advance to the range `settled..below`: the far vertices in it become the near
    /// frontier. Returns the far vertices left and their smallest distance.
    fn advance(
        &mut self,
        gpu: &Gpu,
        dist: &DeviceBuffer<u32>,
        n: usize,
        settled: u32,
        below: u32,
    ) -> Result<(u32, u32)> {
        gpu.write_at(&mut self.split_counts, 0, &[0, 0, UNREACHED])?;
        let args = loops_near_far_split::args(
            &self.far_flags,
            &self.near_flags,
            dist,
            n as u32,
            settled,
            below,
            &self.split_counts,
        );
        gpu.launch_function(
            "loops_near_far_split",
            &self.split,
            compact_dims(gpu, n),
            args,
        )?;
        self.compact_near(gpu, n, true)?;
        let counts = gpu.download(&self.split_counts)?;
        self.take_next(n, counts[0] as usize)?;
        Ok((counts[1], counts[2]))
    }

    /// The near flags compacted (and cleared) into `next`, counted in `count` or, after an
    /// advance, in `split_counts[0]`.
    fn compact_near(&mut self, gpu: &Gpu, n: usize, after_advance: bool) -> Result<()> {
        self.next.set_len(n.max(1));
        let counter = if after_advance {
            &self.split_counts
        } else {
            &self.count
        };
        let args = crate::graph::loops_compact_flags::args(
            &self.near_flags,
            n as u32,
            &self.next,
            counter,
        );
        gpu.launch_function(
            "loops_compact_flags",
            &self.compact,
            compact_dims(gpu, n),
            args,
        )
    }

    /// `next` (of `size` vertices) becomes the near frontier.
    fn take_next(&mut self, n: usize, size: usize) -> Result<()> {
        if size > n {
            return Err(LoopsError::InvalidGraph {
                detail: format!("the compaction counted {size} vertices of {n}"),
            });
        }
        std::mem::swap(&mut self.current, &mut self.next);
        self.current.set_len(size);
        Ok(())
    }

    /// Adds the out-degrees of the near frontier to the relaxed-edge count.
    fn add_frontier_degrees(&mut self, gpu: &Gpu, g: &DeviceGraph) -> Result<()> {
        let current = std::mem::replace(&mut self.current, DeviceBuffer::empty());
        let counted = self.count_frontier_edges(gpu, g, &current);
        self.current = current;
        counted
    }

    /// Sets the relaxed-edge count to 0 (a run that counts does it itself).
    pub(crate) fn reset_edge_count(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.fill(&mut self.relaxed_edges, 0)
    }

    /// The relaxed-edge count so far.
    pub(crate) fn edge_count(&self, gpu: &Gpu) -> Result<u64> {
        Ok(gpu.download(&self.relaxed_edges)?[0])
    }

    /// Adds the out-degrees of `frontier`'s vertices in `g` to the relaxed-edge count, on the
    /// device.
    pub(crate) fn count_frontier_edges(
        &mut self,
        gpu: &Gpu,
        g: &DeviceGraph,
        frontier: &DeviceBuffer<u32>,
    ) -> Result<()> {
        let len = frontier.len();
        if len == 0 {
            return Ok(());
        }
        let limits = gpu.limits();
        let full = (limits.sm_count as usize * (limits.max_threads_per_sm as usize / 256)).max(1);
        let dims = LaunchDims {
            grid: len.div_ceil(256).clamp(1, full) as u32,
            block: 256,
            shared_bytes: 0,
        };
        let (len, total) = (len as u32, &self.relaxed_edges);
        let (name, func, args) = match g.offsets().wide_offsets() {
            Some(wide) => (
                "loops_frontier_degrees_wide",
                &self.degrees_wide,
                loops_frontier_degrees_wide::args(frontier, len, wide, total),
            ),
            None => (
                "loops_frontier_degrees",
                &self.degrees,
                loops_frontier_degrees::args(frontier, len, g.offsets().offsets(), total),
            ),
        };
        gpu.launch_function(name, func, dims, args)
    }
}
