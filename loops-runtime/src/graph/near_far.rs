//! Delta-stepping SSSP with two buckets, "near" and "far" (the near-far variant of Davidson et
//! al.'s work-efficient GPU SSSP, as in Gunrock and cuGraph): [`NearFarLoop`], the host loop,
//! [`NearFarLoopOnDevice`], the loop that stays on the device, and [`near_far_model`] /
//! [`near_far_model_hops`], the same bucket logic on the CPU.
//!
//! Distances below a moving threshold are settled first. A *round* relaxes the out-edges of the
//! near frontier (the step kernel, `src/graph/sssp_near_far.rs`); each vertex whose distance
//! it lowered is flagged near when the new distance is below the threshold, far otherwise. The
//! near flags are compacted into the next near frontier. When the near frontier is empty every
//! distance below the threshold is final; a *bucket advance* raises the threshold by delta and
//! moves the far vertices now below it to the near frontier: those below the old threshold are
//! dropped (they were relaxed from their final distance already, see below), those at or above
//! the new one stay far. When an advance moves nothing but far vertices are left, the next one
//! jumps the threshold to the nearest of them plus delta. The run ends when both are empty.
//! [`NearFarLoop`] reads a count back after every round and advance (`loops_near_far_split` is its
//! advance); [`NearFarLoopOnDevice`] does both in `loops_near_far_level` ([`NEAR_FAR_SOURCE`]), every
//! level two launches, and reads its state back once per replay of many levels.
//!
//! A round may reach further than the frontier's out-edges ([`Hops`]): a vertex it lowered to a
//! distance below the threshold, if it has few out-edges, has them relaxed at once from that
//! distance in the same round instead of being flagged near, up to `hops` edges from the
//! frontier (the generated rounds of `src/graph/sssp_near_far.rs` stop at 3, each hop in
//! the lane of its edge; [`NearFarRelax`], the built-in round, spreads each hop's edges over a
//! warp's lanes and goes as deep as asked). Rounds are bounded below by the hop depth of the
//! shortest paths, so on road networks and meshes (thousands of rounds) three hops take about a
//! third of them, eight a sixth.
//!
//! Where one bucket holds every distance (delta [`UNREACHED`], the device loop's default on dense
//! graphs, `default_device_delta`), no vertex is ever far and near-far is Bellman-Ford: the loops
//! end at the first empty frontier without an advance, and [`NearFarLoopOnDevice`] runs such a run
//! as [`super::FrontierLoopOnDevice`] (its walk of small frontiers' out-edges included).
//!
//! Why the far vertices below the old threshold can be dropped: a far flag is set only by a
//! relaxation that lowered the vertex's distance, and every lowering is followed by a relaxation
//! of the vertex's out-edges from the new distance or by a flag. Take the last lowering of a
//! vertex `v` to its current distance `d`, in a round under threshold `t`. If `d < t` that
//! relaxation either relaxed `v`'s out-edges from `d` at once (a hop) or flagged `v` near, and `v`
//! was relaxed from `d` in the next round. Otherwise it flagged `v` far, and the bucket advance
//! whose range `[old, new)` holds `d` (the ranges of the advances are contiguous and `d` is below
//! the current threshold) came after it and moved `v` near. Either way `v` was relaxed from `d`
//! already, and no flag set since can be its (there was no later lowering).
//!
//! Any schedule of relaxations within a round is fine (the GPU's atomics make rounds asynchronous):
//! the loop stops only when no vertex is flagged, so every edge `v -> u` ends with
//! `dist[u] <= dist[v] + w`, which with `dist[source] = 0` and every value a real path's length
//! makes the distances exact. Delta only changes how much work that takes: a small delta relaxes
//! few edges more than once (Dijkstra is delta 1 on integer weights) but takes many rounds; a large
//! one is Bellman-Ford. The host loop's default (`default_delta`) and the device loop's
//! (`default_device_delta`, `default_hops`) differ because their rounds cost differently.

use cudarc::driver::CudaFunction;
use kernels_gen::schedule::LaunchDims;

use super::device_loop::{
    replay_levels, wave_dims, FrontierLoopOnDevice, LevelsOnDevice, DEFAULT_LEVELS_PER_REPLAY,
};
use super::{compact_dims, DeviceGraph, Graph, COMPACT_SOURCE, UNREACHED};
use crate::device::{DeviceBuffer, DeviceList, Gpu};
use crate::error::{LoopsError, Result};
use crate::launch::entry::{entries, Ptr};

/// The host loop's bucket advance (`loops_near_far_split`), the relaxed-edge count
/// (`loops_frontier_degrees`, `_wide`) and the device loop's level (`loops_near_far_level`), after
/// the compaction it builds on ([`COMPACT_SOURCE`]). The near-far CUDA text is kept in
/// `near_far.cuh`, next to this file.
pub const NEAR_FAR_SOURCE: &str = concat!(
    include_str!("compact.cuh"),
    "\n",
    include_str!("near_far.cuh")
);

entries! {
    // The near-far entry points (the source also holds compact.cuh's, declared in `graph`).
    source: include_str!("near_far.cuh"), after COMPACT_SOURCE;
    undeclared: [];
    /// The host loop's bucket advance: far vertices below the next threshold moved to near.
    fn loops_near_far_split(
        far: *mut u32, near: *mut u32, dist: *const u32, n: u32, settled: u32, below: u32,
        counts: *mut u32,
    );
    /// The out-degrees of `frontier` added to `*total`.
    fn loops_frontier_degrees(
        frontier: *const u32, len: u32, offsets: *const i32, total: *mut u64,
    );
    /// [`loops_frontier_degrees`] over 64-bit offsets.
    fn loops_frontier_degrees_wide(
        frontier: *const u32, len: u32, offsets: *const i64, total: *mut u64,
    );
    /// The device loop's level: the near flags compacted, or the buckets advanced.
    fn loops_near_far_level(
        near: *mut u32, far: *mut u32, dist: *const u32, n: u32, out: *mut u32, state: *mut u32,
        current: u32, next: u32, after: u32, threshold: *const u32, next_threshold: *mut u32,
        delta: u32, wide_scan: u32,
    );
    /// The built-in near-far round (`device_size`: the device address of the frontier's size in
    /// a device loop, or 0).
    fn loops_near_far_relax(
        offsets: *const i32, adj: *const u32, weights: *const u32, frontier: *const u32,
        size: u32, device_size: u64, dist: *mut u32, near: *mut u32, far: *mut u32,
        threshold: *const u32, hops: u32, hop_degree: u32, per_warp: u32, relaxed: *mut u64,
    );
    /// [`loops_near_far_relax`] over 64-bit offsets.
    fn loops_near_far_relax_wide(
        offsets: *const i64, adj: *const u32, weights: *const u32, frontier: *const u32,
        size: u32, device_size: u64, dist: *mut u32, near: *mut u32, far: *mut u32,
        threshold: *const u32, hops: u32, hop_degree: u32, per_warp: u32, relaxed: *mut u64,
    );
}

/// What both near-far loops check before a run: the graph fits the loop (`what`, made for
/// `capacity` vertices), the source is one of its vertices, `dist` holds a distance per vertex.
fn check_run(
    what: &str,
    capacity: usize,
    g: &DeviceGraph,
    source: u32,
    dist: &DeviceBuffer<u32>,
) -> Result<()> {
    let n = g.vertices();
    let detail = if n > capacity {
        format!("a graph of {n} vertices in a {what} loop made for {capacity}")
    } else if source as usize >= n {
        format!("source {source} of a graph of {n} vertices")
    } else if dist.len() < n {
        format!("{} distances for {n} vertices", dist.len())
    } else {
        return Ok(());
    };
    Err(LoopsError::InvalidGraph { detail })
}

/// What a near-far run, or its model, did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NearFarStats {
    /// Relaxation rounds (near frontiers processed).
    pub rounds: u32,
    /// Bucket advances (passes over the far flags), the last one finding both piles empty.
    pub advances: u32,
    /// The near frontiers' sizes added up.
    pub frontier_vertices: u64,
    /// The largest near frontier.
    pub max_frontier: usize,
    /// The out-edges of the near frontiers added up: the edges relaxed (examined). Counted on the
    /// device only when asked ([`NearFarLoop::set_count_edges`]), else 0.
    pub relaxed_edges: u64,
}

impl From<NearFarStats> for super::LoopStats {
    /// A near-far run as a frontier loop's: its rounds are the iterations.
    fn from(s: NearFarStats) -> super::LoopStats {
        super::LoopStats {
            iterations: s.rounds,
            frontier_vertices: s.frontier_vertices,
            max_frontier: s.max_frontier,
        }
    }
}

/// The default delta for a graph of `vertices` vertices and `edges` edges whose weights sum to
/// `weight_sum`: `DELTA_SCALE * mean weight / mean out-degree^2`, at least 1.
///
/// Meyer and Sanders' delta, Theta(max weight / degree), minimises the edges relaxed (with
/// `mean weight * 4 / degree` the CPU model relaxes 1.03x the reached edges on a road graph and
/// 1.01x on a Kronecker graph), but on a GPU each round also costs a launch, a compaction and a
/// read-back (about 30 us on an H100 with the host loop: the price of some 20,000 relaxations).
/// Low-degree, large-diameter graphs then want a much larger delta (fewer, fuller rounds), dense
/// ones a small one (their few rounds are full anyway): the square of the degree does both.
/// `DELTA_SCALE` was fitted with [`near_far_model`] (the test `near_far_relaxations`) on a road
/// graph (degree 2.5: delta about 16 times the mean weight, 1.2x Bellman-Ford's rounds, a
/// fifteenth of its relaxed edges) and a Kronecker graph (degree 29: delta about a tenth of the
/// mean weight, half Bellman-Ford's relaxed edges). Override it with
/// [`NearFarLoop::set_delta`] where the per-round cost differs (the device-resident loop).
pub(crate) fn default_delta(vertices: usize, edges: usize, weight_sum: u64) -> u32 {
    if vertices == 0 || edges == 0 {
        return 1;
    }
    let mean_weight = weight_sum as f64 / edges as f64;
    let mean_degree = (edges as f64 / vertices as f64).max(1.0);
    let delta = DELTA_SCALE * mean_weight / (mean_degree * mean_degree);
    delta.round().clamp(1.0, (u32::MAX / 2) as f64) as u32
}

/// See [`default_delta`].
pub(crate) const DELTA_SCALE: f64 = 100.0;

/// [`default_delta`] of a host graph.
#[cfg(test)]
pub(crate) fn default_delta_of(g: &Graph) -> u32 {
    let weight_sum = g.weights().iter().map(|&w| w as u64).sum();
    default_delta(g.vertices(), g.edges(), weight_sum)
}

/// The host loop of near-far SSSP, reusable across runs on graphs of up to `vertices` vertices: it
/// owns the near frontier (current and next), the near and far flags (a slot per vertex each), the
/// counters, and the compaction, bucket-advance and edge-count kernels. The step kernel (a
/// relaxation round) is the caller's, as with [`super::FrontierLoop`]:
///
/// ```ignore
/// let mut near_far = NearFarLoop::new(&gpu, g.vertices())?;
/// let stats = near_far.run(&gpu, &g, source, &mut dist, |gpu, frontier, dist, near, far, threshold| {
///     sssp_near_far(gpu, g.offsets(), g.adj(), g.weights(), frontier, dist, near, far, threshold)
/// })?;
/// ```
///
/// A round: the step, then the near flags compacted into the next near frontier and its 4-byte
/// count read back. A bucket advance (when the near frontier is empty): the split kernel over the
/// far flags, the compaction, and a 12-byte read-back (the near count, the far vertices left and
/// their smallest distance; when nothing moved but far vertices are left, a second advance jumps
/// the threshold to the nearest of them). The distances and frontiers stay on the device.
pub struct NearFarLoop {
    vertices: usize,
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
    delta: Option<u32>,
    count_edges: bool,
    max_steps: Option<u64>,
}

impl NearFarLoop {
    /// Buffers for graphs of up to `vertices` vertices; compiles (once per process, or reads from the
    /// disk cache) the compaction and the near-far kernels.
    pub fn new(gpu: &Gpu, vertices: usize) -> Result<NearFarLoop> {
        if vertices > i32::MAX as usize {
            return Err(LoopsError::InvalidGraph {
                detail: format!("{vertices} vertices: a frontier holds at most i32::MAX"),
            });
        }
        let near_far = |entry: &str| gpu.function("loops_near_far", NEAR_FAR_SOURCE, entry);
        Ok(NearFarLoop {
            vertices,
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
            delta: None,
            count_edges: false,
            max_steps: None,
        })
    }

    /// The vertices this loop was made for.
    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// The bucket width; `None` (the default): `default_delta` of each run's graph.
    pub fn set_delta(&mut self, delta: Option<u32>) {
        self.delta = delta;
    }

    /// The delta a run on `g` uses.
    pub fn delta_for(&self, g: &DeviceGraph) -> u32 {
        self.delta
            .unwrap_or_else(|| default_delta(g.vertices(), g.edges(), g.weight_sum()))
            .max(1)
    }

    /// Whether runs count the relaxed edges ([`NearFarStats::relaxed_edges`]): one more small
    /// kernel per round (off by default, so that timings leave it out).
    pub fn set_count_edges(&mut self, count: bool) {
        self.count_edges = count;
    }

    /// Stops a run with [`LoopsError::NoConvergence`] after `max` steps (rounds and advances
    /// together). `None`, the default: `4 * (vertices + 1) + 1`, more than a run can take: a bucket
    /// that settles `k` vertices takes at most `k + 1` rounds (a shortest path inside it has at most
    /// `k` hops) and at most two advances (the advance, and the jump past empty buckets), and every
    /// bucket the loop visits settles at least one vertex, so a run takes at most
    /// `vertices + 3 * vertices` steps. (It was `2 * (vertices + 1) + 1`, which runs with a bucket
    /// per vertex, delta 1, outgrew on the GPU.)
    pub fn set_max_iterations(&mut self, max: Option<u64>) {
        self.max_steps = max;
    }

    /// Shortest distances from `source` into `dist` (initialised here: [`UNREACHED`], 0 at the
    /// source), relaxing with `step(gpu, frontier, dist, near_flags, far_flags, threshold)`, which
    /// must, for each edge `v -> u` of each frontier vertex `v`, lower `dist[u]` to `dist[v] + w`
    /// where that is smaller (atomically) and flag `u` (a non-zero value) in `near_flags` if the
    /// new distance is below `threshold[0]`, else in `far_flags`, touching no other flag. Errors if
    /// the graph has more vertices than this loop, `dist` has fewer than the graph, or `source`
    /// is not a vertex.
    pub fn run<F>(
        &mut self,
        gpu: &Gpu,
        g: &DeviceGraph,
        source: u32,
        dist: &mut DeviceBuffer<u32>,
        mut step: F,
    ) -> Result<NearFarStats>
    where
        F: FnMut(
            &Gpu,
            &DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &DeviceBuffer<u32>,
        ) -> Result<()>,
    {
        let n = g.vertices();
        check_run("near-far", self.vertices, g, source, dist)?;
        let delta = self.delta_for(g);
        gpu.fill(dist, UNREACHED)?;
        gpu.write_at(dist, source as usize, &[0])?;
        // A run that failed half-way may have left flags set.
        self.near_flags.set_len(n);
        self.far_flags.set_len(n);
        gpu.fill(&mut self.near_flags, 0)?;
        gpu.fill(&mut self.far_flags, 0)?;
        if self.count_edges {
            gpu.fill(&mut self.relaxed_edges, 0)?;
        }
        self.current.set_len(1);
        gpu.write_at(&mut self.current, 0, &[source])?;
        let max = self.max_steps.unwrap_or(4 * (n as u64 + 1) + 1);
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
                if self.count_edges {
                    self.add_frontier_degrees(gpu, g)?;
                }
                step(
                    gpu,
                    &self.current,
                    dist,
                    &mut self.near_flags,
                    &mut self.far_flags,
                    &self.threshold,
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
        if self.count_edges {
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
        let args =
            super::loops_compact_flags::args(&self.near_flags, n as u32, &self.next, counter);
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
    pub fn reset_edge_count(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.fill(&mut self.relaxed_edges, 0)
    }

    /// The relaxed-edge count so far.
    pub fn edge_count(&self, gpu: &Gpu) -> Result<u64> {
        Ok(gpu.download(&self.relaxed_edges)?[0])
    }

    /// Adds the out-degrees of `frontier`'s vertices in `g` to the relaxed-edge count, on the
    /// device: how another frontier algorithm (the Bellman-Ford step of
    /// [`super::FrontierLoop`]) is counted the same way.
    pub fn count_frontier_edges(
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

/// The slots of the device loop's state (`loops_near_far_level` in `near_far.cuh`): three
/// rotating slots each of the near frontier's size, the far vertices an advance left, their
/// smallest distance, and whether the level was an advance; then the rounds, the advances, the
/// frontier vertices added up (two halves), the largest frontier, whether the loop is done, and
/// the levels that did something.
const NF_MIN: usize = 6;
const NF_ROUNDS: usize = 12;
const NF_ADVANCES: usize = 13;
const NF_VERTICES: usize = 14;
const NF_MAX_FRONTIER: usize = 16;
const NF_DONE: usize = 17;
const NF_STATE_SLOTS: usize = 20;

/// The default hops of [`NearFarLoopOnDevice`] for a graph of `vertices` vertices and `edges` edges:
/// eight through heads of at most 8 out-edges where the mean out-degree is below 8 (road networks
/// and meshes: the hop depth of their shortest paths sets the rounds, a sixth of them with eight
/// hops; the generated rounds stop at three, a third), else one (on a power-law graph a few rounds
/// reach every vertex anyway, and relaxing a second vertex's edges in the same round only
/// stretches it). Eight was fitted with [`NearFarRelax`] (one vertex per warp) on the road network
/// of 10^6 vertices (8 and 12 hops within 1%, 16 7% slower, 3 hops 1.4x) and the 2048^2 grid (6
/// and 8 within 1%, 12 15% slower); held out: the road networks of 10^5 and 3 x 10^5 vertices.
pub(crate) fn default_hops(vertices: usize, edges: usize) -> Hops {
    if vertices != 0 && (edges as f64 / vertices as f64) < 8.0 {
        Hops {
            hops: 8,
            max_degree: 8,
        }
    } else {
        Hops::ONE
    }
}

/// The default delta of [`NearFarLoopOnDevice`]: [`UNREACHED`] (one bucket: Bellman-Ford) from a
/// mean out-degree of [`DEVICE_ONE_BUCKET_DEGREE`], else `DEVICE_DELTA_SCALE * mean weight / mean
/// out-degree^2` ([`default_delta`]'s rule with a scale 16 times larger), at least
/// [`DEVICE_DELTA_MIN_WEIGHTS`] mean weights. A device round costs some microseconds whatever it
/// relaxes, up to a wave of work, so where the rounds are many (low degree: road networks,
/// meshes) they set the time and want a wide bucket: about 250 mean weights on a road network
/// (with eight hops 128 and 256 within 1%), 64 on a 2-D grid (128 4-7% slower). A dense graph's
/// few rounds each relax much of the graph, and a round more costs about what a narrower bucket
/// saves (Kronecker scale 20: within 7% from 0.5 to 1024 mean weights, every bucket from 64 on
/// taking Bellman-Ford's rounds and an advance), so it gets one bucket: Bellman-Ford's rounds
/// without the advance, run as Bellman-Ford ([`NearFarLoopOnDevice::run`]). Fitted on an H100
/// (`bench_graphs --sweep-deltas`) on a road network of 10^6 vertices, the 2048^2 grid and a
/// Kronecker graph of scale 20; held out: the class of power-law graphs of random heads, and road
/// networks of 10^5 and 3 x 10^5 vertices.
pub(crate) fn default_device_delta(vertices: usize, edges: usize, weight_sum: u64) -> u32 {
    if vertices == 0 || edges == 0 {
        return 1;
    }
    let mean_weight = weight_sum as f64 / edges as f64;
    let mean_degree = (edges as f64 / vertices as f64).max(1.0);
    if mean_degree >= DEVICE_ONE_BUCKET_DEGREE {
        return UNREACHED;
    }
    let delta = mean_weight
        * (DEVICE_DELTA_SCALE / (mean_degree * mean_degree)).max(DEVICE_DELTA_MIN_WEIGHTS);
    delta.round().clamp(1.0, (u32::MAX / 2) as f64) as u32
}

/// The mean out-degree from which [`default_device_delta`] is [`UNREACHED`]: one bucket that
/// holds every distance, so the run is Bellman-Ford's rounds and no advance (the level kernel ends
/// the run at the first empty frontier, as [`super::FrontierLoopOnDevice`] does). On the dense graphs
/// of the fit (Kronecker scale 20, degree 32 with repeats) a bucket of 64 mean weights already
/// took Bellman-Ford's rounds plus an advance, and narrower ones cost more rounds than their edges
/// save.
pub(crate) const DEVICE_ONE_BUCKET_DEGREE: f64 = 8.0;

/// The narrowest default bucket of [`default_device_delta`], in mean weights.
pub(crate) const DEVICE_DELTA_MIN_WEIGHTS: f64 = 64.0;

/// See [`default_device_delta`].
pub(crate) const DEVICE_DELTA_SCALE: f64 = 1600.0;

/// Near-far SSSP in the loop that stays on the device: the rounds and the bucket advances of
/// [`NearFarLoop`] without a host round trip between them, recorded as CUDA graphs and replayed as
/// [`super::FrontierLoopOnDevice`]'s levels are (the first 30 launched directly in batches of 6,
/// then [`NearFarLoopOnDevice::set_levels_per_replay`] at a time, the state read back after each).
///
/// ```ignore
/// let mut near_far = NearFarLoopOnDevice::new(&gpu, g.vertices())?;
/// let stats = near_far.run(&gpu, &g, source, &mut dist, |gpu, frontier, dist, near, far, threshold, hops| {
///     sssp_near_far(gpu, g.offsets(), g.adj(), g.weights(), frontier, dist, near, far, threshold, hops.hops, hops.max_degree)
/// })?;
/// ```
///
/// Every level is two launches: the step over the near frontier (its size on the device, as in
/// [`super::FrontierLoopOnDevice`]: the schedules whose tile loop is grid-stride) under the
/// threshold in a one-element device buffer, then `loops_near_far_level`, which compacts the near
/// flags into the next frontier, or, when the frontier it was given is empty (so the step did
/// nothing), does the bucket advance: it appends the far vertices of the next bucket to the next
/// frontier itself and raises the threshold on the device (the jump past empty buckets, and the
/// end, are decided by the level after, from what the advance counted). A level is therefore the
/// same two launches whatever it does, and a run takes `rounds + advances + 1` levels. The bucket
/// logic and the drop rule are [`NearFarLoop`]'s (see the module documentation); [`Hops`] lets a
/// round relax further than the frontier's out-edges, which keeps them true.
///
/// The step must follow [`super::FrontierLoopOnDevice::run`]'s rules (stream-ordered work on `gpu`
/// only, the same work every call); it is given the near frontier with its length set to the
/// loop's vertices, the distances, the near and far flags, the threshold buffer of its level and
/// the loop's [`Hops`].
pub struct NearFarLoopOnDevice {
    vertices: usize,
    frontiers: [DeviceBuffer<u32>; 2],
    near_flags: DeviceBuffer<u32>,
    far_flags: DeviceBuffer<u32>,
    /// The threshold of even and odd levels: each level's compaction writes the next one's.
    thresholds: [DeviceBuffer<u32>; 2],
    state: DeviceBuffer<u32>,
    level_kernel: CudaFunction,
    delta: Option<u32>,
    hops: Option<Hops>,
    max_iterations: Option<u64>,
    levels_per_replay: usize,
    step_blocks: Option<u32>,
    compact_blocks: Option<u32>,
    wide_scan: bool,
    /// The frontier loop that runs a one-bucket run (delta [`UNREACHED`]), made at the first.
    one_bucket: Option<FrontierLoopOnDevice>,
    /// The threshold of a one-bucket run's rounds: [`UNREACHED`], written once.
    unbounded: DeviceBuffer<u32>,
}

impl NearFarLoopOnDevice {
    /// Buffers for graphs of up to `vertices` vertices; compiles (once per process, or reads from
    /// the disk cache) the level kernel.
    pub fn new(gpu: &Gpu, vertices: usize) -> Result<NearFarLoopOnDevice> {
        if vertices > i32::MAX as usize {
            return Err(LoopsError::InvalidGraph {
                detail: format!("{vertices} vertices: a frontier holds at most i32::MAX"),
            });
        }
        Ok(NearFarLoopOnDevice {
            vertices,
            frontiers: [gpu.zeros(vertices.max(1))?, gpu.zeros(vertices.max(1))?],
            near_flags: gpu.zeros(vertices.max(1))?,
            far_flags: gpu.zeros(vertices.max(1))?,
            thresholds: [gpu.zeros(1)?, gpu.zeros(1)?],
            state: gpu.zeros(NF_STATE_SLOTS)?,
            level_kernel: gpu.function(
                "loops_near_far",
                NEAR_FAR_SOURCE,
                "loops_near_far_level",
            )?,
            delta: None,
            hops: None,
            max_iterations: None,
            levels_per_replay: DEFAULT_LEVELS_PER_REPLAY,
            step_blocks: None,
            compact_blocks: None,
            wide_scan: true,
            one_bucket: None,
            unbounded: gpu.upload(&[UNREACHED])?,
        })
    }

    /// The vertices this loop was made for.
    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// Whether a round's compaction reads four near flags per thread at a time (the default) or
    /// one, as [`super::FrontierLoopOnDevice`]'s scan does: a scan of a graph's flags then takes a
    /// quarter of the rounds (each a load and two block barriers).
    pub fn set_wide_scan(&mut self, wide: bool) {
        self.wide_scan = wide;
    }

    /// The bucket width; `None` (the default): `default_device_delta` of each run's graph.
    pub fn set_delta(&mut self, delta: Option<u32>) {
        self.delta = delta;
    }

    /// The delta a run on `g` uses.
    pub fn delta_for(&self, g: &DeviceGraph) -> u32 {
        self.delta
            .unwrap_or_else(|| default_device_delta(g.vertices(), g.edges(), g.weight_sum()))
            .max(1)
    }

    /// How far a round reaches; `None` (the default): `default_hops` of each run's graph.
    pub fn set_hops(&mut self, hops: Option<Hops>) {
        self.hops = hops;
    }

    /// The hops a run on `g` uses.
    pub fn hops_for(&self, g: &DeviceGraph) -> Hops {
        self.hops
            .unwrap_or_else(|| default_hops(g.vertices(), g.edges()))
    }

    /// Stops a run with [`LoopsError::NoConvergence`] after `max` levels. `None`, the default:
    /// `4 * (vertices + 1) + 2`, the host loop's bound on rounds and advances (see
    /// [`NearFarLoop::set_max_iterations`]) and the level that finds the piles empty.
    pub fn set_max_iterations(&mut self, max: Option<u64>) {
        self.max_iterations = max;
    }

    /// The levels recorded in one replay but the first: `levels` rounded up to a multiple of 6
    /// (see [`super::FrontierLoopOnDevice::set_levels_per_replay`]).
    pub fn set_levels_per_replay(&mut self, levels: usize) {
        self.levels_per_replay = levels.max(1).div_ceil(6) * 6;
    }

    /// The blocks of each step launch (see [`super::FrontierLoopOnDevice::set_step_blocks`]).
    pub fn set_step_blocks(&mut self, blocks: Option<u32>) {
        self.step_blocks = blocks.map(|b| b.max(1));
    }

    /// The blocks of each level kernel (see [`super::FrontierLoopOnDevice::set_compact_blocks`]).
    pub fn set_compact_blocks(&mut self, blocks: Option<u32>) {
        self.compact_blocks = blocks.map(|b| b.max(1));
    }

    /// Shortest distances from `source` into `dist` (initialised here: [`UNREACHED`], 0 at the
    /// source), relaxing with `step(gpu, frontier, dist, near_flags, far_flags, threshold, hops)`,
    /// which must do what [`NearFarLoop::run`]'s step does with the threshold `threshold[0]`,
    /// relaxing `hops` deep ([`Hops`]; heads of the last hop, or of more than
    /// `hops.max_degree` out-edges, flagged). Errors if the graph has more vertices than this loop,
    /// `dist` has fewer than the graph, or `source` is not a vertex.
    ///
    /// With delta [`UNREACHED`] (one bucket, the default on dense graphs) the run is Bellman-Ford
    /// and a [`FrontierLoopOnDevice`] (made at the first such run) runs it: the step gets that
    /// loop's frontier and flags as `frontier` and `near_flags` (its compaction, which walks small
    /// frontiers' out-edges with one hop), `threshold[0]` is [`UNREACHED`], no far flag may be set,
    /// and the statistics count no advance.
    pub fn run<F>(
        &mut self,
        gpu: &Gpu,
        g: &DeviceGraph,
        source: u32,
        dist: &mut DeviceBuffer<u32>,
        step: F,
    ) -> Result<NearFarStats>
    where
        F: NearFarStepOnDevice,
    {
        let n = g.vertices();
        check_run("device near-far", self.vertices, g, source, dist)?;
        // A capture records this handle's stream only: another stream's buffers would have to be
        // waited for.
        if self
            .state
            .cuda_stream()
            .is_some_and(|s| !std::sync::Arc::ptr_eq(s, gpu.stream()))
        {
            return Err(LoopsError::InvalidGraph {
                detail: "a device near-far loop runs on the Gpu handle that made it".into(),
            });
        }
        let delta = self.delta_for(g);
        let hops = self.hops_for(g);
        gpu.fill(dist, UNREACHED)?;
        gpu.write_at(dist, source as usize, &[0])?;
        let max = self.max_iterations.unwrap_or(4 * (n as u64 + 1) + 2);
        if delta == UNREACHED {
            return self.run_one_bucket(gpu, g, source, dist, step, hops, max);
        }
        // A run that failed half-way may have left flags set.
        gpu.fill(&mut self.near_flags, 0)?;
        gpu.fill(&mut self.far_flags, 0)?;
        gpu.write_at(&mut self.frontiers[0], 0, &[source])?;
        gpu.write_at(&mut self.thresholds[0], 0, &[delta])?;
        let mut state = [0u32; NF_STATE_SLOTS];
        state[0] = 1;
        state[NF_MIN..NF_MIN + 3].fill(UNREACHED);
        gpu.write_at(&mut self.state, 0, &state)?;
        let per_replay = self.levels_per_replay as u64;
        let mut levels = NearFarLevels {
            lp: self,
            n,
            delta,
            hops,
            dist,
            step,
            stats: NearFarStats::default(),
        };
        replay_levels(gpu, &mut levels, per_replay, max, "device near-far loop")?;
        Ok(levels.stats)
    }
}

impl NearFarLoopOnDevice {
    /// A run whose one bucket holds every distance (delta [`UNREACHED`]): no round flags a vertex
    /// far and no advance is due, so near-far is Bellman-Ford, and the frontier loop runs it
    /// ([`FrontierLoopOnDevice`], `max` levels at most): its compaction is the near flags', and with
    /// one hop (every flagged vertex the head of an out-edge of the frontier) a push run's, which
    /// walks small frontiers' out-edges instead of scanning every flag. `dist` is initialised.
    #[allow(clippy::too_many_arguments)]
    fn run_one_bucket<F: NearFarStepOnDevice>(
        &mut self,
        gpu: &Gpu,
        g: &DeviceGraph,
        source: u32,
        dist: &mut DeviceBuffer<u32>,
        mut step: F,
        hops: Hops,
        max: u64,
    ) -> Result<NearFarStats> {
        if self.one_bucket.is_none() {
            self.one_bucket = Some(FrontierLoopOnDevice::new(gpu, self.vertices)?);
        }
        let NearFarLoopOnDevice {
            one_bucket: Some(bf),
            far_flags,
            unbounded,
            ..
        } = self
        else {
            unreachable!("made above");
        };
        bf.set_max_iterations(Some(max));
        bf.set_levels_per_replay(self.levels_per_replay);
        bf.set_step_blocks(self.step_blocks);
        bf.set_compact_blocks(self.compact_blocks);
        let threshold = &*unbounded;
        let relax = |gpu: &Gpu,
                     frontier: &DeviceBuffer<u32>,
                     near: &mut DeviceBuffer<u32>,
                     _level: &DeviceBuffer<u32>| {
            step(gpu, frontier, dist, near, far_flags, threshold, hops)
        };
        let s = if hops.hops <= 1 {
            bf.run_push(gpu, g, &[source], relax)?
        } else {
            bf.run(gpu, &[source], relax)?
        };
        Ok(NearFarStats {
            rounds: s.iterations,
            advances: 0,
            frontier_vertices: s.frontier_vertices,
            max_frontier: s.max_frontier,
            relaxed_edges: 0,
        })
    }
}

/// The step of [`NearFarLoopOnDevice::run`]: `step(gpu, frontier, dist, near_flags, far_flags,
/// threshold, hops)`, one relaxation round (see there). Every closure of that signature is one.
pub trait NearFarStepOnDevice:
    FnMut(
    &Gpu,
    &DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
    &DeviceBuffer<u32>,
    Hops,
) -> Result<()>
{
}

impl<F> NearFarStepOnDevice for F where
    F: FnMut(
        &Gpu,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        Hops,
    ) -> Result<()>
{
}

/// One run of a [`NearFarLoopOnDevice`], as [`replay_levels`] drives it.
struct NearFarLevels<'a, F> {
    lp: &'a mut NearFarLoopOnDevice,
    n: usize,
    delta: u32,
    hops: Hops,
    dist: &'a mut DeviceBuffer<u32>,
    step: F,
    stats: NearFarStats,
}

impl<F: NearFarStepOnDevice> LevelsOnDevice for NearFarLevels<'_, F> {
    fn queue_level(&mut self, gpu: &Gpu, level: u64, capturing: bool) -> Result<()> {
        let lp = &mut *self.lp;
        let (current, next) = ((level % 2) as usize, ((level + 1) % 2) as usize);
        let slot = |k: u64| ((level + k) % 3) as u32;
        // The step and the level kernel launch on the handle in the level's context (see
        // `FrontierLoopOnDevice::level`).
        let gpu = &gpu.in_device_loop(DeviceList {
            list: lp.frontiers[current].device_ptr(),
            len: lp.state.device_ptr() + 4 * slot(0) as u64,
            capturing,
            blocks: lp.step_blocks,
        });
        (self.step)(
            gpu,
            &lp.frontiers[current],
            self.dist,
            &mut lp.near_flags,
            &mut lp.far_flags,
            &lp.thresholds[current],
            self.hops,
        )?;
        let args = loops_near_far_level::args(
            &lp.near_flags,
            &lp.far_flags,
            &*self.dist,
            self.n as u32,
            &lp.frontiers[next],
            &lp.state,
            slot(0),
            slot(1),
            slot(2),
            &lp.thresholds[current],
            &lp.thresholds[next],
            self.delta,
            lp.wide_scan as u32,
        );
        // The level kernel begins with `loops_grid_dependency`, as the generated kernels do.
        gpu.launch_function_with(
            "loops_near_far_level",
            &lp.level_kernel,
            wave_dims(gpu, self.n, lp.compact_blocks),
            args,
            gpu.programmatic_launch(),
        )
    }

    fn read_back(&mut self, gpu: &Gpu, issued: u64) -> Result<Option<usize>> {
        let state = gpu.download(&self.lp.state)?;
        let size = state[(issued % 3) as usize] as usize;
        if size > self.n {
            return Err(LoopsError::InvalidGraph {
                detail: format!("the compaction counted {size} vertices of {}", self.n),
            });
        }
        self.stats = NearFarStats {
            rounds: state[NF_ROUNDS],
            advances: state[NF_ADVANCES],
            frontier_vertices: (state[NF_VERTICES + 1] as u64) << 32 | state[NF_VERTICES] as u64,
            max_frontier: state[NF_MAX_FRONTIER] as usize,
            relaxed_edges: 0,
        };
        Ok((state[NF_DONE] == 0).then_some(size))
    }
}

/// The built-in near-far round (`loops_near_far_relax` in `near_far.cuh`), a step for either loop
/// ([`NearFarLoopOnDevice::run`], [`NearFarLoop::run`] with [`Hops::ONE`]): what the generated
/// `sssp_near_far_hops` round does, with a head's out-edges spread over the lanes of a warp at
/// every hop instead of walked by one lane. A warp takes a few frontier vertices at a time
/// ([`NearFarRelax::set_per_warp`]); each hop spreads all its heads' edges over the 32 lanes (a
/// warp prefix sum of their degrees), so a hop costs a pass of dependent reads per 32 edges, not
/// one per edge of the longest chain. The heads of the next hop wait in shared memory (64 per
/// warp; more are flagged near, for the next round). Made by hand: the kernel language has no warp
/// prefix sum over a loop's items.
///
/// ```ignore
/// let relax = NearFarRelax::new(&gpu)?;
/// let stats = near_far.run(&gpu, &g, source, &mut dist, |gpu, frontier, dist, near, far, threshold, hops| {
///     relax.launch(gpu, &g, frontier, dist, near, far, threshold, hops)
/// })?;
/// ```
pub struct NearFarRelax {
    relax: CudaFunction,
    relax_wide: CudaFunction,
    per_warp: Option<u32>,
    /// The edges relaxed since the last reset, counted by the rounds while `count_edges` is on.
    relaxed: DeviceBuffer<u64>,
    count_edges: bool,
}

impl NearFarRelax {
    /// Compiles (once per process, or reads from the disk cache) the round.
    pub fn new(gpu: &Gpu) -> Result<NearFarRelax> {
        let near_far = |entry: &str| gpu.function("loops_near_far", NEAR_FAR_SOURCE, entry);
        Ok(NearFarRelax {
            relax: near_far("loops_near_far_relax")?,
            relax_wide: near_far("loops_near_far_relax_wide")?,
            per_warp: None,
            relaxed: gpu.zeros(1)?,
            count_edges: false,
        })
    }

    /// Whether the rounds count the edges they relax, every hop's (one atomic per warp and batch
    /// of frontier vertices; off by default): [`NearFarRelax::edge_count`].
    pub fn set_count_edges(&mut self, count: bool) {
        self.count_edges = count;
    }

    /// Sets the relaxed-edge count to 0.
    pub fn reset_edge_count(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.fill(&mut self.relaxed, 0)
    }

    /// The edges the rounds relaxed since the last reset (while counting).
    pub fn edge_count(&self, gpu: &Gpu) -> Result<u64> {
        Ok(gpu.download(&self.relaxed)?[0])
    }

    /// The frontier vertices a warp takes at a time (1 to 32); `None` (the default):
    /// `default_relax_per_warp` of each graph.
    pub fn set_per_warp(&mut self, per_warp: Option<u32>) {
        self.per_warp = per_warp.map(|p| p.clamp(1, 32));
    }

    /// The frontier vertices a warp takes at a time on `g`.
    pub(crate) fn per_warp_for(&self, g: &DeviceGraph) -> u32 {
        self.per_warp
            .unwrap_or_else(|| default_relax_per_warp(g.vertices(), g.edges()))
    }

    /// One round over `frontier` (a device loop's frontier, whose size is on the device, or a
    /// host loop's, of its length), as [`NearFarLoopOnDevice::run`]'s step: lowers `dist` along the
    /// frontier's out-edges and `hops` deep, flags near below `threshold[0]`, far at or above it.
    #[allow(clippy::too_many_arguments)]
    pub fn launch(
        &self,
        gpu: &Gpu,
        g: &DeviceGraph,
        frontier: &DeviceBuffer<u32>,
        dist: &mut DeviceBuffer<u32>,
        near: &mut DeviceBuffer<u32>,
        far: &mut DeviceBuffer<u32>,
        threshold: &DeviceBuffer<u32>,
        hops: Hops,
    ) -> Result<()> {
        let per_warp = self.per_warp_for(g);
        // In a device loop the frontier's size is the loop's to read on the device.
        let on_device = gpu
            .device_loop()
            .filter(|l| l.list == frontier.device_ptr() && l.list != 0);
        let (size, device_size, most) = match on_device {
            Some(l) => (0u32, l.len, g.vertices()),
            None => (frontier.len() as u32, 0u64, frontier.len()),
        };
        if most == 0 {
            return Ok(());
        }
        // A block of 256 threads takes 8 * per_warp vertices: a block per 8 * per_warp (as many
        // threads as 32 per vertex over per_warp), at most a wave.
        let threads = (most as u64 * 32).div_ceil(per_warp as u64) as usize;
        let dims = wave_dims(gpu, threads, on_device.and_then(|l| l.blocks));
        // A null counter: nothing counted.
        let relaxed = match self.count_edges {
            true => Ptr::at(&self.relaxed, 0),
            false => Ptr::null(),
        };
        let (hop_count, hop_degree) = (hops.hops.max(1), hops.max_degree);
        // The two entry points differ in their offsets' type only.
        macro_rules! relax {
            ($entry:ident, $offsets:expr) => {
                $entry::args(
                    $offsets,
                    g.adj(),
                    g.weights(),
                    frontier,
                    size,
                    device_size,
                    &*dist,
                    &*near,
                    &*far,
                    threshold,
                    hop_count,
                    hop_degree,
                    per_warp,
                    relaxed,
                )
            };
        }
        let (name, func, args) = match g.offsets().wide_offsets() {
            Some(wide) => (
                "loops_near_far_relax_wide",
                &self.relax_wide,
                relax!(loops_near_far_relax_wide, wide),
            ),
            None => (
                "loops_near_far_relax",
                &self.relax,
                relax!(loops_near_far_relax, g.offsets().offsets()),
            ),
        };
        gpu.launch_function_with(name, func, dims, args, gpu.programmatic_launch())
    }
}

/// The frontier vertices a warp of [`NearFarRelax`] takes at a time on a graph of `vertices`
/// vertices and `edges` edges: about `RELAX_EDGES_PER_WARP` first-hop edges at the mean
/// out-degree, 1 to 32: one on road networks and grids, where one per warp was 2-8% faster than
/// two and 10-20% faster than four (the warp's later hops have fewer heads to go through, and
/// the frontier is spread over more warps).
pub(crate) fn default_relax_per_warp(vertices: usize, edges: usize) -> u32 {
    if vertices == 0 {
        return 1;
    }
    let mean_degree = (edges as f64 / vertices as f64).max(1.0);
    (RELAX_EDGES_PER_WARP / mean_degree)
        .floor()
        .clamp(1.0, 32.0) as u32
}

/// See [`default_relax_per_warp`].
pub(crate) const RELAX_EDGES_PER_WARP: f64 = 4.0;

/// How far one relaxation round reaches: the near-far step relaxes its frontier's out-edges and,
/// with `hops` above 1, the out-edges of each head it lowered below the threshold at once, from
/// the new distance (up to `hops` edges from the frontier), where that head has at most
/// `max_degree` out-edges (a lane or a warp relaxes them in sequence, so a hub is flagged near
/// instead). The heads of the last hop are flagged near or far as usual. The generated rounds of
/// `src/graph/sssp_near_far.rs` do at most 3 hops; [`NearFarRelax`] does any number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hops {
    /// Edges from the frontier a round relaxes along (1: the plain round).
    pub hops: u32,
    /// The largest out-degree of a vertex whose edges a round relaxes at once (0 with one hop).
    pub max_degree: u32,
}

impl Hops {
    /// The plain round: the frontier's out-edges only.
    pub const ONE: Hops = Hops {
        hops: 1,
        max_degree: 0,
    };

    /// Two hops through heads of at most `max_degree` out-edges (the device step's
    /// `hop_degree`).
    pub fn two(max_degree: u32) -> Hops {
        Hops {
            hops: if max_degree == 0 { 1 } else { 2 },
            max_degree,
        }
    }
}

/// The near-far algorithm on the CPU, as [`NearFarLoop`] and [`NearFarLoopOnDevice`] run it on the
/// GPU with one-hop rounds, but with the relaxations of a round in order (each sees the ones
/// before it, as an atomic would) and each frontier in vertex order: the distances from `source`
/// and the counts ([`NearFarStats`], edges counted). Distances equal [`super::dijkstra`]'s for
/// any `delta >= 1`.
pub fn near_far_model(g: &Graph, source: u32, delta: u32) -> (Vec<u32>, NearFarStats) {
    near_far_model_hops(g, source, delta, Hops::ONE)
}

/// [`near_far_model`] with rounds that reach `hops` ([`Hops`]); the relaxed edges count every
/// hop's. The bucket logic is the device loop's ([`NearFarLoopOnDevice`]) as well as the host
/// loop's: the device runs each advance as a level of its own, and one more level to find both
/// piles empty, so its levels are `rounds + advances + 1`.
pub fn near_far_model_hops(
    g: &Graph,
    source: u32,
    delta: u32,
    hops: Hops,
) -> (Vec<u32>, NearFarStats) {
    let n = g.vertices();
    assert!((source as usize) < n, "source {source} of {n} vertices");
    let delta = delta.max(1);
    let mut dist = vec![UNREACHED; n];
    dist[source as usize] = 0;
    let (mut near_flag, mut far_flag) = (vec![false; n], vec![false; n]);
    let mut near = vec![source];
    let mut threshold = delta;
    let mut stats = NearFarStats::default();
    let compact = |flags: &mut [bool]| -> Vec<u32> {
        (0..n)
            .filter(|&v| std::mem::take(&mut flags[v]))
            .map(|v| v as u32)
            .collect()
    };
    loop {
        while !near.is_empty() {
            stats.rounds += 1;
            stats.frontier_vertices += near.len() as u64;
            stats.max_frontier = stats.max_frontier.max(near.len());
            let mut round = Round {
                g,
                dist: &mut dist,
                near: &mut near_flag,
                far: &mut far_flag,
                threshold,
                hops,
                relaxed: 0,
            };
            for &v in &near {
                let dv = round.dist[v as usize];
                round.relax(v as usize, dv, hops.hops);
            }
            stats.relaxed_edges += round.relaxed;
            near = compact(&mut near_flag);
        }
        // A bucket that holds every distance flags nothing far: nothing to advance to.
        if threshold == UNREACHED {
            return (dist, stats);
        }
        // The bucket advance; a second one at once if the first found only far vertices beyond
        // the new threshold (it then jumps to the nearest of them).
        let mut advance = |settled: u32, below: u32| {
            stats.advances += 1;
            let split = split_far(&dist, &mut far_flag, &mut near_flag, settled, below);
            (compact(&mut near_flag), split)
        };
        let next = threshold.saturating_add(delta);
        let (moved, split) = advance(threshold, next);
        threshold = next;
        near = moved;
        if near.is_empty() && split.far_left > 0 {
            let next = split.far_min.saturating_add(delta);
            let (moved, _) = advance(threshold, next);
            threshold = next;
            near = moved;
        }
        if near.is_empty() && split.far_left == 0 {
            return (dist, stats);
        }
    }
}

/// One round of [`near_far_model_hops`]: the distances and flags it changes.
struct Round<'a> {
    g: &'a Graph,
    dist: &'a mut [u32],
    near: &'a mut [bool],
    far: &'a mut [bool],
    threshold: u32,
    hops: Hops,
    relaxed: u64,
}

impl Round<'_> {
    /// Relaxes `v`'s out-edges from `dv`, `hops_left` hops deep: a head lowered below the
    /// threshold is relaxed from its new distance at once while hops are left and its degree
    /// allows, else flagged near; one lowered to the threshold or above is flagged far.
    fn relax(&mut self, v: usize, dv: u32, hops_left: u32) {
        self.relaxed += self.g.degree(v) as u64;
        for (u, w) in self.g.out_edges(v) {
            let nd = dv.saturating_add(w);
            if nd >= self.dist[u] {
                continue;
            }
            self.dist[u] = nd;
            if nd >= self.threshold {
                self.far[u] = true;
            } else if hops_left > 1 && self.g.degree(u) <= self.hops.max_degree as usize {
                self.relax(u, nd, hops_left - 1);
            } else {
                self.near[u] = true;
            }
        }
    }
}

/// What a pass over the far flags left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FarSplit {
    /// The far vertices still at or beyond the new threshold.
    far_left: u32,
    /// Their smallest distance (`UNREACHED` if none).
    far_min: u32,
}

/// The bucket advance of `loops_near_far_split`, on the CPU: each far vertex below `settled` is
/// dropped, each in `settled..below` moves to the near flags, the rest stay far.
fn split_far(
    dist: &[u32],
    far: &mut [bool],
    near: &mut [bool],
    settled: u32,
    below: u32,
) -> FarSplit {
    let mut split = FarSplit {
        far_left: 0,
        far_min: UNREACHED,
    };
    for v in 0..dist.len() {
        if !far[v] {
            continue;
        }
        let d = dist[v];
        if d < below {
            far[v] = false;
            if d >= settled {
                near[v] = true;
            }
        } else {
            split.far_left += 1;
            split.far_min = split.far_min.min(d);
        }
    }
    split
}

/// The Bellman-Ford frontier of `src/graph/sssp.rs` on the CPU, modelled as
/// [`near_far_model`] is (relaxations in order, frontiers in vertex order): distances and counts,
/// to compare the two algorithms' relaxed edges and rounds.
#[cfg(test)]
pub(crate) fn bellman_ford_model(g: &Graph, source: u32) -> (Vec<u32>, NearFarStats) {
    near_far_model(g, source, UNREACHED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::dijkstra;
    use rand::{Rng, SeedableRng};

    fn random_graph(n: usize, m: usize, max_w: u32, seed: u64) -> Graph {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let edges: Vec<(u32, u32, u32)> = (0..m)
            .map(|_| {
                (
                    rng.random_range(0..n as u32),
                    rng.random_range(0..n as u32),
                    rng.random_range(0..=max_w),
                )
            })
            .collect();
        Graph::from_edges(n, &edges).unwrap()
    }

    #[test]
    fn the_model_equals_dijkstra_on_random_graphs() {
        for seed in 0..60u64 {
            let n = 1 + (seed as usize * 37) % 300;
            let m = (seed as usize * 101) % (4 * n + 1);
            // Zero weights too (a relaxation that does not lower is no improvement).
            let max_w = [0, 1, 5, 64, 1000][seed as usize % 5];
            let g = random_graph(n, m, max_w, seed);
            let source = (seed % n as u64) as u32;
            let want = dijkstra(&g, source);
            for delta in [1, 2, 7, 64, 1000, default_delta_of(&g), UNREACHED] {
                let (got, stats) = near_far_model(&g, source, delta);
                assert_eq!(got, want, "seed {seed}, delta {delta}");
                assert!(stats.rounds >= 1 && (stats.advances >= 1 || delta == UNREACHED));
                for hops in [
                    Hops::two(2),
                    Hops {
                        hops: 3,
                        max_degree: 8,
                    },
                    Hops {
                        hops: 8,
                        max_degree: 8,
                    },
                ] {
                    let (got, more) = near_far_model_hops(&g, source, delta, hops);
                    assert_eq!(got, want, "seed {seed}, delta {delta}, {hops:?}");
                    assert!(more.rounds <= stats.rounds.max(1) + stats.advances);
                }
            }
        }
    }

    #[test]
    fn buckets_on_a_path_and_a_gap() {
        // A path 0 -> 1 -> 2 -> 3 of weights 10, 10, 1000 (a gap the threshold jumps over).
        let g = Graph::from_edges(4, &[(0, 1, 10), (1, 2, 10), (2, 3, 1000)]).unwrap();
        let (dist, stats) = near_far_model(&g, 0, 15);
        assert_eq!(dist, [0, 10, 20, 1020]);
        // Rounds: {0}, {1} (10 < 15); advance to 30: {2}; 1020 far: advance to 45 finds nothing
        // near, jumps to 1020 + 15: {3}; the last advance finds both piles empty.
        assert_eq!(stats.rounds, 4);
        assert_eq!(stats.advances, 4);
        assert_eq!(stats.relaxed_edges, 3);
        // Bellman-Ford: the same 4 rounds here, and no advance (its one bucket holds every
        // distance).
        let (dist, bf) = bellman_ford_model(&g, 0);
        assert_eq!(dist, [0, 10, 20, 1020]);
        assert_eq!((bf.rounds, bf.advances, bf.relaxed_edges), (4, 0, 3));
    }

    /// A far vertex lowered below the threshold later is relaxed once, not again at the advance.
    #[test]
    fn a_far_vertex_lowered_into_the_near_bucket_is_relaxed_once() {
        // 0 -> 2 (50: far under delta 10), 0 -> 1 (1), 1 -> 2 (1): 2 is flagged far, then near.
        let g = Graph::from_edges(4, &[(0, 2, 50), (0, 1, 1), (1, 2, 1), (2, 3, 1)]).unwrap();
        let (dist, stats) = near_far_model(&g, 0, 10);
        assert_eq!(dist, [0, 1, 2, 3]);
        assert_eq!(stats.relaxed_edges, 4, "each vertex's edges once");
        assert_eq!(stats.frontier_vertices, 4);
    }

    /// Hops on a path of unit weights: a round relaxes three edges, so a bucket of 10 takes 4
    /// rounds (from 0, 3, 6, 9), and a head of more out-edges than the limit is flagged instead.
    #[test]
    fn hops_shorten_the_rounds_of_a_path() {
        let edges: Vec<(u32, u32, u32)> = (0..99u32).map(|v| (v, v + 1, 1)).collect();
        let path = Graph::from_edges(100, &edges).unwrap();
        let want: Vec<u32> = (0..100).collect();
        let (dist, one) = near_far_model(&path, 0, 10);
        assert_eq!(dist, want);
        assert_eq!((one.rounds, one.advances, one.relaxed_edges), (100, 10, 99));
        let three = Hops {
            hops: 3,
            max_degree: 1,
        };
        let (dist, s) = near_far_model_hops(&path, 0, 10, three);
        assert_eq!(dist, want);
        assert_eq!((s.rounds, s.advances, s.relaxed_edges), (40, 10, 99));
        assert_eq!(
            s.frontier_vertices, 40,
            "the hops' heads are never in a frontier"
        );
        // Heads of degree 1 over a limit of 0: one hop.
        let (_, s) = near_far_model_hops(&path, 0, 10, Hops::two(0));
        assert_eq!((s.rounds, s.advances), (100, 10));
        assert_eq!(Hops::two(0), Hops::ONE);
    }

    #[test]
    fn the_device_defaults() {
        // A road network (degree 2.5, mean weight 32.5) gets eight hops and a wide bucket; a
        // Kronecker graph (degree 32) one hop and one bucket.
        assert_eq!(
            default_hops(1000, 2500),
            Hops {
                hops: 8,
                max_degree: 8
            }
        );
        assert_eq!(default_hops(1000, 32_000), Hops::ONE);
        assert_eq!(default_hops(0, 0), Hops::ONE);
        // Mean weight 32.5: 1600 * 32.5 / 6.25 = 8320 on the road network.
        assert_eq!(default_device_delta(1000, 2500, 2500 * 65 / 2), 8320);
        // At degree 32 (from 8 on): one bucket, Bellman-Ford's rounds.
        assert_eq!(
            default_device_delta(1000, 32_000, 32_000 * 65 / 2),
            UNREACHED
        );
        assert_eq!(default_device_delta(1000, 8_000, 8_000 * 65 / 2), UNREACHED);
        // Below it, at least 64 mean weights: degree 6, 1600 / 36 = 44 -> 64 (2080).
        assert_eq!(default_device_delta(1000, 6_000, 6_000 * 65 / 2), 2080);
        assert_eq!(default_relax_per_warp(1000, 2500), 1);
        assert_eq!(default_relax_per_warp(1000, 1500), 2);
        assert_eq!(default_relax_per_warp(1000, 32_000), 1);
        assert_eq!(default_relax_per_warp(0, 0), 1);
        assert_eq!(default_device_delta(0, 0, 0), 1);
    }

    #[test]
    fn split_far_drops_moves_and_keeps() {
        let dist = [5, 10, 19, 20, 40, UNREACHED];
        let mut far = [true, true, true, true, true, false];
        let mut near = [false; 6];
        let split = split_far(&dist, &mut far, &mut near, 10, 20);
        assert_eq!(far, [false, false, false, true, true, false]);
        assert_eq!(near, [false, true, true, false, false, false]);
        assert_eq!(
            split,
            FarSplit {
                far_left: 2,
                far_min: 20
            }
        );
    }

    #[test]
    fn default_delta_follows_weights_and_degree() {
        // Mean weight 32.5, mean degree 2.5: 100 * 32.5 / 6.25 = 520; degree 32: 3.17.
        assert_eq!(default_delta(1000, 2500, 2500 * 65 / 2), 520);
        assert_eq!(default_delta(1000, 32_000, 32_000 * 65 / 2), 3);
        assert_eq!(default_delta(10, 5, 5), 100, "degree under 1 counts as 1");
        assert_eq!(default_delta(0, 0, 0), 1);
        assert_eq!(default_delta(1000, 100_000, 100_000), 1);
    }

    /// The device loop's levels (`rounds + advances + 1`) and relaxed edges of near-far with one
    /// and two hops, over deltas, against Bellman-Ford's levels, on the graph classes of the
    /// delta fit (`cargo test --release -p loops-runtime --lib near_far_device_levels --
    /// --ignored --nocapture`; `LOOPS_NEAR_FAR_GRAPHS=road,grid,kron,road_held` picks some).
    #[test]
    #[ignore = "a measurement: run in release mode with --nocapture"]
    fn near_far_device_levels() {
        let pick = std::env::var("LOOPS_NEAR_FAR_GRAPHS")
            .unwrap_or_else(|_| "road,grid,kron,road_held,powerlaw".into());
        let mut graphs: Vec<(&str, Graph)> = Vec::new();
        let from = |m: &sprs::CsMat<f32>| Graph::from_pattern(m, 64, 2024).unwrap();
        for name in pick.split(',') {
            let g = match name {
                "road" => from(&crate::generate::road::<f32>(1_000_000, 2024)),
                "road_held" => from(&crate::generate::road::<f32>(300_000, 7)),
                "grid" => from(&crate::generate::grid2d::<f32>(2048, 2048, 2024)),
                "grid_held" => from(&crate::generate::grid2d::<f32>(1000, 1000, 7)),
                "kron" => from(&crate::generate::kronecker::<f32>(20, 16, 2024)),
                "kron18" => from(&crate::generate::kronecker::<f32>(18, 16, 2024)),
                "powerlaw" => from(&crate::generate::power_law::<f32>(
                    1 << 20,
                    1 << 20,
                    16.0,
                    2.0,
                    false,
                    2024,
                )),
                other => panic!("unknown graph {other}"),
            };
            graphs.push((name, g));
        }
        for (name, g) in graphs {
            let source = g.max_degree_vertex().unwrap();
            let (want, bf) = bellman_ford_model(&g, source);
            let weight_sum: u64 = g.weights().iter().map(|&w| w as u64).sum();
            let mean_w = weight_sum as f64 / g.edges().max(1) as f64;
            println!(
                "{name}: {} vertices, {} edges, mean degree {:.2}; Bellman-Ford {} levels, {} \
                 relaxed",
                g.vertices(),
                g.edges(),
                g.edges() as f64 / g.vertices() as f64,
                bf.rounds + 1,
                bf.relaxed_edges
            );
            for hops in [
                Hops::ONE,
                Hops::two(4),
                Hops::two(16),
                Hops {
                    hops: 3,
                    max_degree: 16,
                },
            ] {
                for scale in [1.0, 4.0, 16.0, 64.0, 256.0, 1024.0] {
                    let delta = (mean_w * scale).round().max(1.0) as u32;
                    let (dist, s) = near_far_model_hops(&g, source, delta, hops);
                    assert_eq!(dist, want);
                    let levels = s.rounds + s.advances + 1;
                    println!(
                        "  hops {} (degree <= {:>2}) delta {scale:>6} x mean weight: {levels:>6} \
                         levels ({:>6} rounds, {:>5} advances, {:.2}x BF's), {:>10} relaxed \
                         ({:.3}x BF's)",
                        hops.hops,
                        hops.max_degree,
                        s.rounds,
                        s.advances,
                        levels as f64 / (bf.rounds + 1) as f64,
                        s.relaxed_edges,
                        s.relaxed_edges as f64 / bf.relaxed_edges as f64
                    );
                }
            }
        }
    }

    /// The relaxed edges and rounds of near-far (default delta and others) against Bellman-Ford
    /// on a road graph and a Kronecker graph (`cargo test --release -p loops-runtime --lib
    /// near_far_relaxations -- --ignored --nocapture`).
    #[test]
    #[ignore = "a measurement: run in release mode with --nocapture"]
    fn near_far_relaxations() {
        let graphs: Vec<(String, Graph)> = vec![
            (
                "road 1e6".into(),
                Graph::from_pattern(&crate::generate::road::<f32>(1_000_000, 2024), 64, 2024)
                    .unwrap(),
            ),
            (
                "kronecker 18".into(),
                Graph::from_pattern(&crate::generate::kronecker::<f32>(18, 16, 2024), 64, 2024)
                    .unwrap(),
            ),
            (
                "road 1e6, weights 1..=1000".into(),
                Graph::from_pattern(&crate::generate::road::<f32>(1_000_000, 2024), 1000, 2024)
                    .unwrap(),
            ),
        ];
        for (name, g) in graphs {
            let source = g.max_degree_vertex().unwrap();
            let want = dijkstra(&g, source);
            let reached_edges = super::super::traversed_edges(&g, &want);
            let (_, bf) = bellman_ford_model(&g, source);
            println!(
                "{name}: {} vertices, {} edges, reached edges {reached_edges}; Bellman-Ford {} \
                 rounds, {} relaxed ({:.2}x)",
                g.vertices(),
                g.edges(),
                bf.rounds,
                bf.relaxed_edges,
                bf.relaxed_edges as f64 / reached_edges as f64
            );
            let d0 = default_delta_of(&g);
            let mut deltas = vec![d0 / 16, d0 / 4, d0, d0 * 4, d0 * 16];
            deltas.retain(|&d| d >= 1);
            for delta in deltas {
                let (dist, s) = near_far_model(&g, source, delta);
                assert_eq!(dist, want);
                println!(
                    "  delta {delta:>6}{}: {:>6} rounds {:>6} advances, {:>10} relaxed ({:.2}x \
                     reached, {:.2}x Bellman-Ford's)",
                    if delta == d0 {
                        " (default)"
                    } else {
                        "          "
                    },
                    s.rounds,
                    s.advances,
                    s.relaxed_edges,
                    s.relaxed_edges as f64 / reached_edges as f64,
                    s.relaxed_edges as f64 / bf.relaxed_edges as f64
                );
            }
        }
    }
}
