//! [`NearFarLoop`], the one near-far driver: where its loop runs ([`NearFarOn`]) is a parameter
//! of the run, the settings are the loop's, and the host and device loops (`host`, `device`) are
//! made at their first run.

use super::device::{default_device_delta, default_hops, DeviceNearFar};
use super::host::HostNearFar;
use super::{default_delta, Hops, NearFarStats};
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{LoopsError, Result};
use crate::graph::{DeviceGraph, DEFAULT_LEVELS_PER_REPLAY};

/// Where [`NearFarLoop::run`] runs its loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NearFarOn {
    /// On the host: a count read back after every round and every bucket advance (about 30 us a
    /// round on an H100). Counts relaxed edges when asked ([`NearFarLoop::set_count_edges`]).
    Host,
    /// On the device: the rounds and advances recorded as CUDA graphs and replayed, the state read
    /// back once per replay of many levels. The step must take its frontier's size from the device
    /// (see [`crate::graph::FrontierLoop`]'s rules).
    Device,
}

/// The step of [`NearFarLoop::run`]: `step(gpu, frontier, dist, near_flags, far_flags, threshold,
/// hops)`, one relaxation round. Every closure of that signature is one.
pub trait NearFarStep:
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

impl<F> NearFarStep for F where
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

/// What a [`NearFarLoop`] is set to, read by both loops.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    pub(crate) delta: Option<u32>,
    pub(crate) hops: Option<Hops>,
    pub(crate) max_iterations: Option<u64>,
    pub(crate) count_edges: bool,
    pub(crate) levels_per_replay: usize,
    pub(crate) step_blocks: Option<u32>,
    pub(crate) compact_blocks: Option<u32>,
    pub(crate) wide_scan: bool,
}

/// Near-far SSSP, reusable across runs on graphs of up to `vertices` vertices, on the host or the
/// device ([`NearFarOn`]). The step kernel (a relaxation round) is the caller's, as with
/// [`crate::graph::FrontierLoop`]:
///
/// ```ignore
/// let mut near_far = NearFarLoop::new(&gpu, g.vertices())?;
/// let stats = near_far.run(&gpu, NearFarOn::Device, &g, source, &mut dist,
///     |gpu, frontier, dist, near, far, threshold, hops| {
///         relax(gpu, &g, frontier, dist, near, far, threshold, hops)
///     })?;
/// ```
///
/// The loops' buffers (four of a slot per vertex each) are made at the first run on each side.
/// The bucket logic and why the distances come out exact are in the module documentation.
pub struct NearFarLoop {
    vertices: usize,
    settings: Settings,
    host: Option<HostNearFar>,
    device: Option<DeviceNearFar>,
}

impl NearFarLoop {
    /// A loop for graphs of up to `vertices` vertices (buffers and kernels are made at the first
    /// run on each side).
    pub fn new(_gpu: &Gpu, vertices: usize) -> Result<NearFarLoop> {
        if vertices > i32::MAX as usize {
            return Err(LoopsError::InvalidGraph {
                detail: format!("{vertices} vertices: a frontier holds at most i32::MAX"),
            });
        }
        Ok(NearFarLoop {
            vertices,
            settings: Settings {
                delta: None,
                hops: None,
                max_iterations: None,
                count_edges: false,
                levels_per_replay: DEFAULT_LEVELS_PER_REPLAY,
                step_blocks: None,
                compact_blocks: None,
                wide_scan: true,
            },
            host: None,
            device: None,
        })
    }

    /// The vertices this loop was made for.
    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// The bucket width; `None` (the default): each run's graph decides, by where the loop runs
    /// (`default_delta` on the host, `default_device_delta` on the device: a device round costs
    /// less, so the device wants fewer, fuller buckets).
    pub fn set_delta(&mut self, delta: Option<u32>) {
        self.settings.delta = delta;
    }

    /// The delta a run on `g` in the loop `on` uses.
    pub fn delta_for(&self, on: NearFarOn, g: &DeviceGraph) -> u32 {
        let (n, m, w) = (g.vertices(), g.edges(), g.weight_sum());
        let default = match on {
            NearFarOn::Host => default_delta(n, m, w),
            NearFarOn::Device => default_device_delta(n, m, w),
        };
        self.settings.delta.unwrap_or(default).max(1)
    }

    /// How far a round reaches; `None` (the default): one hop on the host, `default_hops` of the
    /// graph on the device.
    pub fn set_hops(&mut self, hops: Option<Hops>) {
        self.settings.hops = hops;
    }

    /// The hops a run on `g` in the loop `on` uses.
    pub fn hops_for(&self, on: NearFarOn, g: &DeviceGraph) -> Hops {
        self.settings.hops.unwrap_or_else(|| match on {
            NearFarOn::Host => Hops::ONE,
            NearFarOn::Device => default_hops(g.vertices(), g.edges()),
        })
    }

    /// Whether host runs count the relaxed edges ([`NearFarStats::relaxed_edges`]): one more small
    /// kernel per round (off by default, so that timings leave it out). Device runs do not count.
    pub fn set_count_edges(&mut self, count: bool) {
        self.settings.count_edges = count;
    }

    /// Stops a run with [`LoopsError::NoConvergence`] after `max` steps (rounds and advances
    /// together; on the device, levels). `None`, the default: `4 * (vertices + 1) + 1` on the host
    /// (one more level on the device, the one that finds the piles empty), more than a run can
    /// take: a bucket that settles `k` vertices takes at most `k + 1` rounds (a shortest path
    /// inside it has at most `k` hops) and at most two advances (the advance, and the jump past
    /// empty buckets), and every bucket the loop visits settles at least one vertex, so a run
    /// takes at most `vertices + 3 * vertices` steps.
    pub fn set_max_iterations(&mut self, max: Option<u64>) {
        self.settings.max_iterations = max;
    }

    /// The device loop's levels recorded in one replay but the first: `levels` rounded up to a
    /// multiple of 6 (see [`crate::graph::FrontierLoop::set_levels_per_replay`]).
    pub fn set_levels_per_replay(&mut self, levels: usize) {
        self.settings.levels_per_replay = levels.max(1).div_ceil(6) * 6;
    }

    /// The blocks of each device step launch (see
    /// [`crate::graph::FrontierLoop::set_step_blocks`]).
    pub fn set_step_blocks(&mut self, blocks: Option<u32>) {
        self.settings.step_blocks = blocks.map(|b| b.max(1));
    }

    /// The blocks of each device level kernel (see
    /// [`crate::graph::FrontierLoop::set_compact_blocks`]).
    pub fn set_compact_blocks(&mut self, blocks: Option<u32>) {
        self.settings.compact_blocks = blocks.map(|b| b.max(1));
    }

    /// Whether a device round's compaction reads four near flags per thread at a time (the
    /// default) or one, as [`crate::graph::FrontierLoop`]'s scan does: a scan of a graph's flags
    /// then takes a quarter of the rounds (each a load and two block barriers).
    pub fn set_wide_scan(&mut self, wide: bool) {
        self.settings.wide_scan = wide;
    }

    /// Shortest distances from `source` into `dist` (initialised here: `UNREACHED`, 0 at the
    /// source), in the loop `on`, relaxing with `step(gpu, frontier, dist, near_flags, far_flags,
    /// threshold, hops)`, which must, for each edge `v -> u` of each frontier vertex `v`, lower
    /// `dist[u]` to `dist[v] + w` where that is smaller (atomically) and flag `u` (a non-zero
    /// value) in `near_flags` if the new distance is below `threshold[0]`, else in `far_flags`,
    /// touching no other flag; relaxing `hops` deep ([`Hops`]: heads of the last hop, or of more
    /// than `hops.max_degree` out-edges, flagged). On the device the step gets the near frontier
    /// with its length set to the loop's vertices (its size is on the device), and with delta
    /// `UNREACHED` (one bucket, the device default on dense graphs) the run is Bellman-Ford in a
    /// [`crate::graph::FrontierLoop`]: the step gets that loop's frontier and flags as `frontier`
    /// and `near_flags`, `threshold[0]` is `UNREACHED`, no far flag may be set, and no advance
    /// is counted. Errors if the graph has more vertices than this loop, `dist` has fewer than
    /// the graph, or `source` is not a vertex.
    pub fn run<F: NearFarStep>(
        &mut self,
        gpu: &Gpu,
        on: NearFarOn,
        g: &DeviceGraph,
        source: u32,
        dist: &mut DeviceBuffer<u32>,
        step: F,
    ) -> Result<NearFarStats> {
        self.check_run(g, source, dist)?;
        let chosen = (self.delta_for(on, g), self.hops_for(on, g));
        let settings = self.settings;
        match on {
            NearFarOn::Host => {
                let host = self.host(gpu)?;
                host.run(gpu, g, source, dist, step, chosen, &settings)
            }
            NearFarOn::Device => {
                if self.device.is_none() {
                    self.device = Some(DeviceNearFar::new(gpu, self.vertices)?);
                }
                let device = self.device.as_mut().expect("made above");
                device.run(gpu, g, source, dist, step, chosen, &settings)
            }
        }
    }

    /// Sets the relaxed-edge count of host runs to 0 (a run that counts does it itself).
    pub fn reset_edge_count(&mut self, gpu: &Gpu) -> Result<()> {
        self.host(gpu)?.reset_edge_count(gpu)
    }

    /// The relaxed-edge count of host runs so far.
    pub fn edge_count(&mut self, gpu: &Gpu) -> Result<u64> {
        self.host(gpu)?.edge_count(gpu)
    }

    /// Adds the out-degrees of `frontier`'s vertices in `g` to the relaxed-edge count, on the
    /// device: how another frontier algorithm (the Bellman-Ford step of
    /// [`crate::graph::FrontierLoop`]) is counted the same way.
    pub fn count_frontier_edges(
        &mut self,
        gpu: &Gpu,
        g: &DeviceGraph,
        frontier: &DeviceBuffer<u32>,
    ) -> Result<()> {
        self.host(gpu)?.count_frontier_edges(gpu, g, frontier)
    }

    /// The host loop, made at its first use.
    fn host(&mut self, gpu: &Gpu) -> Result<&mut HostNearFar> {
        if self.host.is_none() {
            self.host = Some(HostNearFar::new(gpu, self.vertices)?);
        }
        Ok(self.host.as_mut().expect("made above"))
    }

    /// The graph fits the loop, the source is one of its vertices, `dist` holds a distance per
    /// vertex.
    fn check_run(&self, g: &DeviceGraph, source: u32, dist: &DeviceBuffer<u32>) -> Result<()> {
        let (n, capacity) = (g.vertices(), self.vertices);
        let detail = if n > capacity {
            format!("a graph of {n} vertices in a near-far loop made for {capacity}")
        } else if source as usize >= n {
            format!("source {source} of a graph of {n} vertices")
        } else if dist.len() < n {
            format!("{} distances for {n} vertices", dist.len())
        } else {
            return Ok(());
        };
        Err(LoopsError::InvalidGraph { detail })
    }
}
