//! [`NearFarRelax`], the built-in near-far round (hand-written CUDA: a warp prefix sum per hop).

use cudarc::driver::CudaFunction;

use super::{loops_near_far_relax, loops_near_far_relax_wide, Hops, NEAR_FAR_SOURCE};
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::graph::frontier::replay::wave_dims;
use crate::graph::DeviceGraph;
use crate::launch::entry::Ptr;

/// The built-in near-far round (`loops_near_far_relax` in `near_far.cuh`), a step for either loop
/// ([`NearFarLoop::run`](super::NearFarLoop::run) on the device, or on the host with
/// [`Hops::ONE`]): what the generated
/// `sssp_near_far_hops` round does, with a head's out-edges spread over the lanes of a warp at
/// every hop instead of walked by one lane. A warp takes a few frontier vertices at a time
/// ([`NearFarRelax::set_per_warp`]); each hop spreads all its heads' edges over the 32 lanes (a
/// warp prefix sum of their degrees), so a hop costs a pass of dependent reads per 32 edges, not
/// one per edge of the longest chain. The heads of the next hop wait in shared memory (64 per warp;
/// more are flagged near, for the next round). Made by hand: the kernel language has no warp prefix
/// sum over a loop's items.
///
/// ```ignore
/// let relax = NearFarRelax::new(&gpu)?;
/// let stats = near_far.run(&gpu, &g, source, &mut dist, |gpu, frontier, dist, near, far,
/// threshold, hops| { relax.launch(gpu, &g, frontier, dist, near, far, threshold, hops) })?;
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

    /// One round over `frontier` (a device loop's frontier, whose size is on the device, or a host
    /// loop's, of its length), as [`NearFarLoop::run`](super::NearFarLoop::run)'s step: lowers
    /// `dist` along the frontier's out-edges and `hops` deep, flags near below `threshold[0]`, far
    /// at or above it.
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
