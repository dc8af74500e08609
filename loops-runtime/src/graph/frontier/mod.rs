//! [`FrontierLoop`]: the one driver of the frontier algorithms (BFS, Bellman-Ford SSSP, a user's
//! own step): from a set of sources, a step over the current frontier that marks the next, until
//! a frontier is empty, the loop strategy a parameter of the run ([`LoopOn`]):
//!
//! | [`LoopOn`] | each level | schedules |
//! |---|---|---|
//! | `Host` | the step, the compaction of its flags, a 4-byte read-back of the next size | all |
//! | `DeviceScan` | the step, the compaction (every flag scanned); no host round trip, levels replayed as a CUDA graph | grid-stride (`thread`, the groups, `warp`, `block`, `auto`, `lanes*`) |
//! | `DevicePush(graph)` | as `DeviceScan`, the compaction walking the frontier's out-edges in `graph` while they are few | grid-stride; push steps only |
//! | `DeviceQueue` | the step alone, appending the next frontier itself | grid-stride |
//!
//! The step is one closure for every strategy: `step(gpu, frontier, next, level)`, where
//! [`Next`] says how this run takes the next frontier (flags to set, or a queue to append to) and
//! [`Level`] gives the level's number (on the host in the host loop; always on the device). A
//! step that only flags runs in the first three (and errors with [`Next::flags`] in a queue run).
//! Direction-optimizing BFS, whose levels are two steps, runs on the same loop
//! ([`FrontierLoop::run_directed`]). The strategy `auto` (measured per graph) is the facade's
//! (`loops::graph::Strategy`).
//!
//! Rooms: this file (the type, its options, the run's dispatch), `host.rs` (the host loop and
//! [`Compaction`]), `flags.rs` (the device levels that compact flags), `queue.rs` (the device
//! queue levels), `direction.rs` (direction-optimizing BFS), `replay.rs` (direct batches and
//! recorded replays, shared with the near-far and iteration loops), `tests.rs`.

use cudarc::driver::CudaFunction;

use super::DeviceGraph;
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{LoopsError, Result};

mod direction;
mod flags;
mod host;
mod queue;
pub(crate) mod replay;
#[cfg(test)]
mod tests;

pub use direction::{
    directed_run_model, direction_model, DirectedPull, DirectedPush, DirectionState,
};
pub(crate) use host::compact_dims;
pub use host::Compaction;
pub use replay::DEFAULT_LEVELS_PER_REPLAY;
use replay::LEVEL_PERIOD;

/// The slots of the loop's device state (see `loops_compact_level` in `compact.cuh`): three
/// frontier sizes in turn, the levels run, the frontier vertices added up (two halves), the
/// largest frontier, the levels whose compaction walked, the largest out-degrees of three
/// frontiers in turn (push runs), and one unused.
const STATE_SLOTS: usize = 12;
/// Where the levels run are counted in the state.
const LEVELS_SLOT: usize = 3;
/// Where the levels whose compaction walked the frontier's out-edges are counted.
const WALKED_SLOT: usize = 7;
/// The first of the three largest out-degrees.
const DEGREE_SLOTS: usize = 8;
/// A largest out-degree the compaction does not know (`LOOPS_UNKNOWN_DEGREE`): the sources'
/// (the host does not read the graph's offsets), or where a flagged vertex is not in the graph.
const UNKNOWN_DEGREE: u32 = u32::MAX;

/// The default of [`FrontierLoop::set_walk_limit`] for a loop of `vertices` vertices: the
/// lanes of the neighbour walk against the vertices of the scan. The scan reads 4 bytes per vertex,
/// coalesced; a lane of the walk reads one head (4 bytes, next to its group's) and one flag at a
/// random place (a 32-byte sector), plus its item's share of the frontier and offsets: about 32
/// bytes. The two move the same bytes at `vertices / 8` lanes; below that the walk moves fewer, and
/// on small frontiers its chain of dependent reads (frontier, offsets, head, flag) is shorter than
/// the scan's rounds.
pub fn default_walk_limit(vertices: usize) -> u64 {
    vertices as u64 / 8
}

/// The neighbour walk's plan for a frontier whose largest out-degree is `max_degree`, as
/// `loops_walk_plan` in `compact.cuh` makes it: lanes of a warp per item (the smallest power of
/// two up to 32 that covers the degree) and items per vertex (`ceil(max_degree / lanes)`, at
/// least 1); item `c` of a vertex is its edges `c * lanes..(c + 1) * lanes`, one per lane.
pub(crate) fn walk_plan(max_degree: u32) -> (u32, u32) {
    let mut lanes = 1u32;
    while lanes < 32 && lanes < max_degree {
        lanes <<= 1;
    }
    (lanes, max_degree.div_ceil(lanes).max(1))
}

/// Whether a push run's compaction walks a frontier of `size` vertices whose largest out-degree is
/// `max_degree` (`u32::MAX`, unknown: no) under the walk limit `limit`
/// ([`FrontierLoop::set_walk_limit`]), as `loops_compact_level` decides it on the device.
pub fn compaction_walks(size: u32, max_degree: u32, limit: u64) -> bool {
    if max_degree == UNKNOWN_DEGREE {
        return false;
    }
    let (lanes, chunks) = walk_plan(max_degree);
    size as u64 * chunks as u64 * lanes as u64 <= limit
}

/// What a run of a frontier loop did (every strategy's, direction-optimizing runs' too; the
/// facade's algorithms turn it into their one stats type, `loops::graph::GraphStats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopStats {
    /// Steps run (frontiers processed).
    pub iterations: u32,
    /// The frontiers' sizes added up: vertices processed, a vertex counted once per frontier it is in.
    pub frontier_vertices: u64,
    /// The largest frontier.
    pub max_frontier: usize,
    /// A direction-optimizing run's levels that pulled ([`FrontierLoop::run_directed`]); 0 for
    /// the others.
    pub pull_levels: u32,
}

/// The loop strategy of a [`FrontierLoop::run`] (see the module's table).
#[derive(Clone, Copy)]
pub enum LoopOn<'a> {
    /// The host loop: a count read back per level; every schedule.
    Host,
    /// On the device, every level's compaction scanning every flag.
    DeviceScan,
    /// On the device, a push traversal along this graph's edges: every vertex the step flags is
    /// the head of an out-edge, in the graph, of a vertex of its frontier (BFS, Bellman-Ford; not
    /// checked: a flag set against it may be missed by a walk, left for a later level). The
    /// compaction then walks the frontier's out-edges where they are few
    /// ([`FrontierLoop::set_walk_limit`]); the results and statistics are `DeviceScan`'s.
    DevicePush(&'a DeviceGraph),
    /// On the device, the step appending its next frontier itself ([`Next::Queue`]): one launch a
    /// level, no compaction.
    DeviceQueue,
}

impl LoopOn<'_> {
    /// Its name: `host`, `device-scan`, `device-push`, `device-queue`.
    pub fn name(&self) -> &'static str {
        match self {
            LoopOn::Host => "host",
            LoopOn::DeviceScan => "device-scan",
            LoopOn::DevicePush(_) => "device-push",
            LoopOn::DeviceQueue => "device-queue",
        }
    }
}

/// How a step gives its next frontier.
pub enum Next<'a> {
    /// Flags, one per vertex, all 0 when the step starts: the step sets `flags[u]` to a non-zero
    /// value for each vertex `u` of the next frontier (a vertex flagged several times enters it
    /// once) and touches no other flag. The loop compacts them.
    Flags(&'a mut DeviceBuffer<u32>),
    /// A queue: the step appends each vertex of the next frontier once, at the index
    /// `atomic_add(&mut size[0], 1)` returns, where it is below `next.len()` (the loop's
    /// vertices): `if slot < next.len() { next[slot] = u; }` (the language's `push` does both).
    /// A step that may append a vertex twice in a level (Bellman-Ford) belongs in a flag run.
    Queue {
        /// The next frontier, its length the loop's vertices.
        next: &'a mut DeviceBuffer<u32>,
        /// Its count (element 0), 0 when the step starts.
        size: &'a mut DeviceBuffer<u32>,
    },
}

impl<'a> Next<'a> {
    /// The flags of a flag run; an error naming the queue run otherwise (a step that only flags).
    pub fn flags(self) -> Result<&'a mut DeviceBuffer<u32>> {
        match self {
            Next::Flags(flags) => Ok(flags),
            Next::Queue { .. } => Err(LoopsError::InvalidArgument {
                op: "FrontierLoop::run",
                detail: "this step sets flags; `LoopOn::DeviceQueue` needs a step that appends \
                         to `Next::Queue` (run it on `Host`, `DeviceScan` or `DevicePush`)"
                    .into(),
            }),
        }
    }
}

/// The level a step runs, counting from 0.
#[derive(Clone, Copy)]
pub struct Level<'a> {
    /// Its number on the host: in the host loop only (`None` on the device, where a recorded
    /// level is replayed as another).
    pub number: Option<u32>,
    /// Its number on the device (element 0), in every loop: what a kernel that reads its level
    /// takes.
    pub device: &'a DeviceBuffer<u32>,
}

/// A step of [`FrontierLoop::run`]: `step(gpu, frontier, next, level)`.
pub trait FrontierStep: FnMut(&Gpu, &DeviceBuffer<u32>, Next<'_>, Level<'_>) -> Result<()> {}
impl<T> FrontierStep for T where
    T: FnMut(&Gpu, &DeviceBuffer<u32>, Next<'_>, Level<'_>) -> Result<()>
{
}

/// The frontier loop, reusable across runs on graphs of up to `vertices` vertices and across
/// strategies: it owns the two frontier buffers, the flags, the device state of the levels and
/// the compaction kernels.
///
/// ```ignore
/// let mut frontier = FrontierLoop::new(&gpu, g.vertices())?;
/// let stats = frontier.run(&gpu, LoopOn::DevicePush(&g), &[source], |gpu, current, next, _level| {
///     sssp::warp::sssp(gpu, g.offsets(), g.adj(), g.weights(), current, &mut dist, next.flags()?)
/// })?;
/// ```
///
/// **Host** ([`LoopOn::Host`]): each level the step (given the current frontier, whose `len()`
/// is its size), the compaction of the flags into the next frontier on the GPU (clearing them),
/// and a 4-byte read of its size, which waits for the GPU.
///
/// **On the device** (the other strategies): the size of each frontier stays on the device, so
/// the host neither waits for a level nor sizes its launches. The step is given the current
/// frontier buffer with its length set to its *capacity* (the loop's vertices); a kernel launched
/// over it with `g.tiles_in(frontier)` reads the frontier's size from the device
/// (`loops_list_len`, [`kernels_gen::abi::Hidden::ListLen`]) and is launched with a grid that does
/// not depend on it ([`FrontierLoop::set_step_blocks`]). Only the schedules whose tile loop is
/// grid-stride can do that: `thread`, `group`, `warp`, `block`, and `auto`, which then runs one
/// of its thread and group candidates, the same at every level (`KernelDesc::device_list_variant`);
/// any other schedule's launch over the frontier is refused with [`LoopsError::LoopOnDevice`]
/// naming it. A flag level is two launches: the step, then the compaction of the flags into the
/// other frontier buffer (`loops_compact_level`), which counts the next frontier's size on the
/// device and keeps the run's statistics there; a queue level is the step's one launch.
///
/// A device run: the first level launched as usual (it compiles the kernels and sizes every area
/// the launches use; a queue run launches a first batch of 6, unless it runs large frontiers
/// alone: [`FrontierLoop::set_host_sized_from`]); then the next 29 levels launched directly in
/// batches of 6 (a traversal of a few levels records nothing), and those of
/// [`FrontierLoop::set_levels_per_replay`] levels (48 by default) recorded once by stream capture
/// into a CUDA graph and replayed until the end. After each batch or replay the host reads the
/// state back once (48 bytes). Levels after the one whose frontier is empty find size 0 and
/// return at once. Near the iteration limit the remaining levels are launched directly, never
/// past it, so that every strategy stops with [`LoopsError::NoConvergence`] after exactly
/// `max_iterations` levels.
///
/// On the device the step is called once per level outside the graph and once per level of the
/// recorded replay, with the buffers of that level, and must queue the same work each time:
/// stream-ordered work on the `gpu` it is given only (launches under the schedules above, fills,
/// copies between device buffers), nothing that waits for the GPU or allocates, and no buffer of
/// another handle. That `gpu` is the loop's handle with the level as the context of its launches.
/// It must not depend on the level as a host number ([`Level::number`] is `None` there). Checked
/// mode cannot run on the device (a checked launch waits for its kernel): asked for by
/// `LOOPS_CHECKED=1` or [`crate::launch::set_checked_mode`], every launch of the step is refused.
pub struct FrontierLoop {
    vertices: usize,
    frontiers: [DeviceBuffer<u32>; 2],
    flags: DeviceBuffer<u32>,
    /// The device state ([`STATE_SLOTS`]).
    state: DeviceBuffer<u32>,
    /// The level the next step runs (element 0), written by each device compaction.
    level: DeviceBuffer<u32>,
    /// The host loop's level (element 0, the step's [`Level::device`]) and its compaction's count
    /// of the next frontier (element 1).
    count: DeviceBuffer<u32>,
    /// The host loop's compaction.
    compact_host: CudaFunction,
    compact: CudaFunction,
    /// The same over 64-bit offsets (a push run on a graph of more than `i32::MAX` edges).
    compact_wide: CudaFunction,
    max_iterations: Option<u64>,
    levels_per_replay: usize,
    walk_limit: Option<u64>,
    step_blocks: Option<u32>,
    compact_blocks: Option<u32>,
    /// The levels of the last run whose compaction walked.
    walked_levels: u32,
    /// The counts and level numbers of a queue run's batches, made by the first one.
    queue: Option<queue::QueueBuffers>,
    queue_begin: Option<CudaFunction>,
    queue_end: Option<CudaFunction>,
    /// The buffers and kernel of a direction-optimizing run, made by the first one.
    directed: Option<direction::DirectedBuffers>,
    /// See [`Self::set_host_sized_from`].
    host_sized_from: Option<u64>,
    /// The device's resident warps (SMs x warps per SM).
    resident_warps: u64,
}

impl FrontierLoop {
    /// Buffers for graphs of up to `vertices` vertices; compiles (once per process, or reads from
    /// the disk cache) the compaction kernels.
    pub fn new(gpu: &Gpu, vertices: usize) -> Result<FrontierLoop> {
        if vertices > i32::MAX as usize {
            return Err(LoopsError::InvalidGraph {
                detail: format!("{vertices} vertices: a frontier holds at most i32::MAX"),
            });
        }
        let compact = |entry| gpu.function("loops_compact_flags", super::COMPACT_SOURCE, entry);
        // Not zeroed: a frontier is written before it is read, and a flag run clears the flags
        // when it starts; a queue run reads no flag, so it writes none either.
        Ok(FrontierLoop {
            vertices,
            frontiers: [gpu.uninit(vertices)?, gpu.uninit(vertices)?],
            flags: gpu.uninit(vertices)?,
            state: gpu.zeros(STATE_SLOTS)?,
            level: gpu.zeros(1)?,
            count: gpu.zeros(2)?,
            compact_host: compact("loops_compact_flags")?,
            compact: compact("loops_compact_level")?,
            compact_wide: compact("loops_compact_level_wide")?,
            max_iterations: None,
            levels_per_replay: DEFAULT_LEVELS_PER_REPLAY,
            walk_limit: None,
            step_blocks: None,
            compact_blocks: None,
            walked_levels: 0,
            queue: None,
            queue_begin: None,
            queue_end: None,
            directed: None,
            host_sized_from: None,
            resident_warps: {
                let limits = gpu.limits();
                (limits.sm_count as u64 * limits.max_threads_per_sm as u64 / 32).max(1)
            },
        })
    }

    /// Runs `step` from the frontier `sources` until a frontier is empty, in the loop `on`
    /// (see the type's documentation): `step(gpu, frontier, next, level)`. The sources are taken
    /// as given (a repeated one is processed twice in the first step). Errors if a source is not
    /// a vertex, if there are more sources than vertices, with a push graph larger than the loop,
    /// and with [`LoopsError::NoConvergence`] after `max_iterations` levels (default: a step per
    /// vertex plus one, more than any monotone relaxation needs).
    pub fn run<F: FrontierStep>(
        &mut self,
        gpu: &Gpu,
        on: LoopOn<'_>,
        sources: &[u32],
        step: F,
    ) -> Result<LoopStats> {
        self.walked_levels = 0;
        match on {
            LoopOn::Host => self.run_host(gpu, sources, step),
            LoopOn::DeviceScan => self.run_flags(gpu, None, sources, step),
            LoopOn::DevicePush(graph) => {
                let gn = graph.vertices();
                if gn > self.vertices {
                    return Err(LoopsError::InvalidGraph {
                        detail: format!(
                            "a graph of {gn} vertices in a frontier loop made for {}",
                            self.vertices
                        ),
                    });
                }
                check_sources(sources, gn)?;
                self.run_flags(gpu, Some(graph), sources, step)
            }
            LoopOn::DeviceQueue => self.run_queue(gpu, sources, step),
        }
    }

    /// In a queue run ([`LoopOn::DeviceQueue`]), a level among the first 30 (launched directly, not
    /// recorded) whose frontier has at least `from` vertices by the last read-back (and the
    /// first level, where the loop has at least `from` vertices) runs alone,
    /// its step given the frontier cut to its size and the loop's handle outside the loop's
    /// context, so that its launches are sized on the host as in the host loop (`auto` choosing
    /// its variant from that frontier), and its next frontier's size is read back after it.
    /// `None` (the default): never (a step over all vertices, PageRank's or components', would
    /// run alone every time). BFS (`loops::graph::bfs::run` with `LoopOn::DeviceQueue`) asks for
    /// [`Self::resident_warps`] (about 8,000 on an H100 or H200): a power-law graph's middle
    /// levels, whose one step takes hundreds of microseconds under the one schedule of the
    /// device-sized levels (a block or a group per vertex for the whole run) and a fraction of
    /// that under the host's per-level choice, a read-back costing about 10 us; road networks,
    /// grids and small graphs never reach it. `Some(0)` runs every direct level alone.
    pub fn set_host_sized_from(&mut self, from: Option<u64>) {
        self.host_sized_from = from;
    }

    /// The frontier size from which a queue run's direct level runs alone, sized on the host, as
    /// set ([`Self::set_host_sized_from`]; `None`: never).
    pub fn host_sized_from(&self) -> Option<u64> {
        self.host_sized_from
    }

    /// The device's resident warps (SMs x warps per SM).
    pub fn resident_warps(&self) -> u64 {
        self.resident_warps
    }

    /// The vertices this loop was made for.
    pub fn vertices(&self) -> usize {
        self.vertices
    }

    /// Stops a run with [`LoopsError::NoConvergence`] after `max` iterations (`None`: the default, a
    /// step per vertex plus one).
    pub fn set_max_iterations(&mut self, max: Option<u64>) {
        self.max_iterations = max;
    }

    /// The levels recorded in one replay (after a run's first 30, launched directly): `levels`
    /// rounded up to a multiple of 6 (at least 6).
    pub fn set_levels_per_replay(&mut self, levels: usize) {
        self.levels_per_replay = levels.max(1).div_ceil(LEVEL_PERIOD) * LEVEL_PERIOD;
        self.forget_recorded();
    }

    /// Forgets the batches a direction-optimizing run kept recorded
    /// ([`Self::run_directed_kept`]): an option that changes their launches changed.
    fn forget_recorded(&mut self) {
        if let Some(d) = self.directed.as_mut() {
            d.forget();
        }
    }

    /// The levels recorded in one replay.
    pub fn levels_per_replay(&self) -> usize {
        self.levels_per_replay
    }

    /// In a push run ([`LoopOn::DevicePush`]), the compaction walks the frontier's out-edges instead
    /// of scanning all the flags where the walk's lanes are at most `limit`: the frontier's size
    /// times its largest out-degree, rounded up to a power of two below 32 and to a multiple of
    /// 32 above. `None` (the default): [`default_walk_limit`] of the loop's vertices. `Some(0)`
    /// never walks, `Some(u64::MAX)` always does (but for the first level, whose degrees the loop
    /// does not know).
    pub fn set_walk_limit(&mut self, limit: Option<u64>) {
        self.walk_limit = limit;
    }

    /// The walk limit in force ([`Self::set_walk_limit`]).
    pub fn walk_limit(&self) -> u64 {
        self.walk_limit
            .unwrap_or_else(|| default_walk_limit(self.vertices))
    }

    /// The levels of the last push run whose compaction walked the frontier's out-edges (the
    /// others scanned the flags); 0 after any other run.
    pub fn walked_levels(&self) -> u32 {
        self.walked_levels
    }

    /// The blocks of each step launch over the frontier. `None` (the default): one wave of
    /// resident blocks (SMs x blocks per SM), which strides over any frontier. The grid is fixed
    /// when the levels are recorded while the frontier's size is only known on the device, so no
    /// rule fits every level: a block past the frontier returns at once, but it is still
    /// dispatched, and a level of a road network or a grid (10^3 to 10^4 vertices, a fraction of
    /// one wave) would pay for every block beyond the first wave; one wave keeps that cost to the
    /// blocks that can be resident at once. A large frontier on a power-law graph may balance
    /// better over more blocks (the hardware hands a block to an SM that is free, where a
    /// grid-stride loop gives each block a fixed share): `Some(blocks)` launches that many, to be
    /// measured per graph.
    pub fn set_step_blocks(&mut self, blocks: Option<u32>) {
        self.step_blocks = blocks.map(|b| b.max(1));
        self.forget_recorded();
    }

    /// The blocks of each compaction launch. `None` (the default): one wave of resident blocks
    /// (fewer on a graph of fewer vertices): the scan strides over the flags with the loads of
    /// every resident thread in flight, which more waves would not add to, and a walk over a small
    /// frontier leaves the blocks past it to return at once.
    pub fn set_compact_blocks(&mut self, blocks: Option<u32>) {
        self.compact_blocks = blocks.map(|b| b.max(1));
    }

    /// The iteration limit of a run: as set, or a step per vertex plus one.
    fn max_levels(&self) -> u64 {
        self.max_iterations.unwrap_or(self.vertices as u64 + 1)
    }
}

/// Errors unless every source is a vertex of a graph of `n` vertices and there are at most `n` of
/// them (a frontier holds at most one slot per vertex): what the frontier loops check first.
pub(crate) fn check_sources(sources: &[u32], n: usize) -> Result<()> {
    if let Some(&s) = sources.iter().find(|&&s| s as usize >= n) {
        return Err(LoopsError::InvalidGraph {
            detail: format!("source {s} of a graph of {n} vertices"),
        });
    }
    if sources.len() > n {
        return Err(LoopsError::InvalidGraph {
            detail: format!("{} sources for {n} vertices", sources.len()),
        });
    }
    Ok(())
}

/// The statistics a loop's device state holds (see `loops_compact_level` and `loops_queue_end`).
fn stats_of(state: &[u32]) -> LoopStats {
    LoopStats {
        iterations: state[LEVELS_SLOT],
        frontier_vertices: (state[5] as u64) << 32 | state[4] as u64,
        max_frontier: state[6] as usize,
        pull_levels: 0,
    }
}
