//! The push step a distributed BFS runs on each part: [`PushStep`] (a launch wrapper, or a choice
//! per level) and [`ByDegree`].

use super::{Frontier, GraphPart};
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::formats::DeviceOffsets;

/// A push step: `bfs(g: Offsets, adj: &[u32], frontier: &[u32], levels: &mut [u32], next: &mut
/// [u32])`'s launch wrapper (any closure or function of that signature is one), or a choice of
/// wrappers per level ([`ByDegree`]).
pub trait PushStep {
    /// Runs one level on one part: `frontier` holds the part's frontier (global ids), `levels`
    /// and `next` (the flags) are indexed by vertex.
    #[allow(clippy::too_many_arguments)] // the launch wrapper's six, and the frontier
    fn push(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()>;

    /// Runs one level on one part where only the device knows the frontier's length: `gpu` launches
    /// over `frontier` (whose host length is its capacity) read its length from the device, which
    /// the grid-stride schedules can; any other schedule's launch is refused with
    /// [`LoopsError::LoopOnDevice`](crate::error::LoopsError::LoopOnDevice) before anything is
    /// queued (the search then waits for every level). `at` has the level, the capacity as `len`
    /// and `max_degree` 0 (unknown). By default [`PushStep::push`].
    #[allow(clippy::too_many_arguments)] // as `push`
    fn push_on_device(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()> {
        self.push(gpu, g, adj, frontier, levels, next, at)
    }
}

impl<F> PushStep for F
where
    F: Fn(
        &Gpu,
        &DeviceOffsets,
        &DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
    ) -> Result<()>,
{
    fn push(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        _at: Frontier,
    ) -> Result<()> {
        self(gpu, g, adj, frontier, levels, next)
    }
}

/// A step chosen at run time (`&dyn PushStep`, e.g. from a benchmark's list).
impl PushStep for &dyn PushStep {
    fn push(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()> {
        (**self).push(gpu, g, adj, frontier, levels, next, at)
    }

    fn push_on_device(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()> {
        (**self).push_on_device(gpu, g, adj, frontier, levels, next, at)
    }
}

/// `heavy` where the frontier holds a vertex of at least `heavy_from` out-edges, else `light`:
/// e.g. a `warp` step (one warp a vertex, no preparation) and a `work_oriented` or `merge_path`
/// one (equal shares of edges, after a prefix sum of the frontier's degrees and a read-back of
/// its total, tens of microseconds a level). One warp takes a hub of `d` edges in `d / 32`
/// rounds of atomics (a vertex of 407K edges: 11 ms on an H200).
#[derive(Clone, Copy, Debug)]
pub struct ByDegree<L, H> {
    /// The step of levels without a hub.
    pub light: L,
    /// The step of levels with one.
    pub heavy: H,
    /// The out-degree from which a vertex is a hub.
    pub heavy_from: u32,
}

/// [`ByDegree`]'s threshold where the measurements put it: below 1024 edges a warp takes at
/// most 32 rounds, about what a load-balanced step's preparation costs.
pub const HUB_DEGREE: u32 = 1024;

impl<L: PushStep, H: PushStep> PushStep for ByDegree<L, H> {
    fn push(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()> {
        if at.max_degree >= self.heavy_from {
            self.heavy.push(gpu, g, adj, frontier, levels, next, at)
        } else {
            self.light.push(gpu, g, adj, frontier, levels, next, at)
        }
    }

    /// The light step: a batch's levels come after the hubs' (see the module documentation).
    fn push_on_device(
        &self,
        gpu: &Gpu,
        g: &DeviceOffsets,
        adj: &DeviceBuffer<u32>,
        frontier: &DeviceBuffer<u32>,
        levels: &mut DeviceBuffer<u32>,
        next: &mut DeviceBuffer<u32>,
        at: Frontier,
    ) -> Result<()> {
        self.light
            .push_on_device(gpu, g, adj, frontier, levels, next, at)
    }
}

impl GraphPart {
    /// Runs `step` on this part's frontier (`at`) on `gpu`: [`PushStep::push_on_device`] where
    /// `on_device` (the frontier's length on the device), else [`PushStep::push`].
    pub(super) fn push<K: PushStep>(
        &mut self,
        step: &K,
        gpu: &Gpu,
        at: Frontier,
        on_device: bool,
    ) -> Result<()> {
        let (g, adj, frontier) = (&self.offsets, &self.adj, &self.frontier);
        let (levels, next) = (&mut self.levels, &mut self.flags);
        if on_device {
            step.push_on_device(gpu, g, adj, frontier, levels, next, at)
        } else {
            step.push(gpu, g, adj, frontier, levels, next, at)
        }
    }
}
