//! Delta-stepping SSSP with two buckets, "near" and "far" (the near-far variant of Davidson et
//! al.'s work-efficient GPU SSSP, as in Gunrock and cuGraph): [`NearFarLoop`], one driver whose
//! loop runs on the host or stays on the device ([`NearFarOn`]), and [`near_far_model`] /
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
//! The host loop reads a count back after every round and advance (`loops_near_far_split` is its
//! advance); the device loop does both in `loops_near_far_level` ([`NEAR_FAR_SOURCE`]), every
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
//! Where one bucket holds every distance (delta [`UNREACHED`](crate::graph::UNREACHED), the device
//! loop's default on dense graphs, `default_device_delta`), no vertex is ever far and near-far is
//! Bellman-Ford: the loops end at the first empty frontier without an advance, and
//! the device loop runs such a run as [`super::FrontierLoop`] (its walk of small
//! frontiers' out-edges included).
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
//!
//! Rooms: `driver` ([`NearFarLoop`], its settings and step), `host` (the host loop), `device`
//! (the device loop and its defaults), `relax` (the built-in round), `model` (the CPU model and
//! [`Hops`]), `tests`.

#[cfg(test)]
use super::{Graph, COMPACT_SOURCE};
use crate::launch::entry::entries;

mod device;
mod driver;
mod host;
mod model;
mod relax;
#[cfg(test)]
mod tests;

use driver::Settings;
pub use driver::{NearFarLoop, NearFarOn, NearFarStep};
pub use model::{near_far_model, near_far_model_hops, Hops};
pub use relax::NearFarRelax;

/// The host loop's bucket advance (`loops_near_far_split`), the relaxed-edge count
/// (`loops_frontier_degrees`, `_wide`) and the device loop's level (`loops_near_far_level`), after
/// the compaction it builds on ([`COMPACT_SOURCE`](crate::graph::COMPACT_SOURCE)). The near-far
/// CUDA text is kept in `near_far.cuh`, next to this file.
pub const NEAR_FAR_SOURCE: &str = concat!(
    include_str!("../compact.cuh"),
    "\n",
    include_str!("../near_far.cuh")
);

entries! {
    // The near-far entry points (the source also holds compact.cuh's, declared in `graph`).
    source: include_str!("../near_far.cuh"), after COMPACT_SOURCE;
    undeclared: [];
    /// The host loop's bucket advance: far vertices below the next threshold moved to near.
    fn loops_near_far_split(
        far: *mut u32, near: *mut u32, dist: *const u32, n: u32, settled: u32, below: u32,
        counts: *mut u32,
    );
    /// The out-degrees of `frontier` added to `*total`.
    pub(crate) fn loops_frontier_degrees(
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
    /// device only when asked ([`NearFarLoop::set_count_edges`], host runs), else 0.
    pub relaxed_edges: u64,
}

impl From<NearFarStats> for super::LoopStats {
    /// A near-far run as a frontier loop's: its rounds are the iterations.
    fn from(s: NearFarStats) -> super::LoopStats {
        super::LoopStats {
            iterations: s.rounds,
            frontier_vertices: s.frontier_vertices,
            max_frontier: s.max_frontier,
            pull_levels: 0,
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
/// [`NearFarLoop::set_delta`] where the per-round cost differs (the device loop has its own,
/// `default_device_delta`).
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
