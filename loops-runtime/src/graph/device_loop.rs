//! [`FrontierLoopOnDevice`]: the frontier loop whose levels run without the host, recorded once per
//! run as a CUDA graph of several levels and replayed until a frontier is empty.

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaFunction, CudaGraph};

use super::{DeviceGraph, LoopStats, COMPACT_SOURCE};
use crate::device::{DeviceBuffer, DeviceList, Gpu};
use crate::error::{LoopsError, Result};
use crate::launch::entry::Ptr;
use crate::launch::{KernelArgs, Param};
use kernels_gen::schedule::LaunchDims;

mod direction;
pub use direction::{directed_run_model, direction_model, DirectedStats, DirectionState};

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

/// Levels recorded in one replay unless [`FrontierLoopOnDevice::set_levels_per_replay`] says
/// otherwise: a read-back per 48 levels costs well under 1 us a level, and a traversal that ends
/// in the middle of a replay runs at most `levels_per_replay - 1` empty levels (47 by default; two launches each that return at once).
pub const DEFAULT_LEVELS_PER_REPLAY: usize = 48;

/// The levels of a replay are a multiple of this: the frontier buffers alternate every level and
/// the size counters rotate every three, so every replay must start where the recorded one did.
const LEVEL_PERIOD: usize = 6;

/// The levels of a run launched directly, in batches of [`DIRECT_BATCH`] with a read-back after
/// each, before any is recorded: recording and instantiating a CUDA graph costs a few hundred
/// microseconds (measured on an H200: a BFS of 4 levels on a 4,096-vertex Kronecker graph took
/// 0.52 ms in the device loop whose first 6 levels were recorded, 0.14 ms in the host loop), more
/// than a short run's levels, so a traversal of a few levels (a power-law graph's, or components'
/// and PageRank's iterations) records nothing, and a long one records its replay once after these.
const DIRECT_LEVELS: u64 = 30;

/// The levels of a direct batch (see [`DIRECT_LEVELS`]).
const DIRECT_BATCH: u64 = LEVEL_PERIOD as u64;

/// The default of [`FrontierLoopOnDevice::set_walk_limit`] for a loop of `vertices` vertices: the
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
/// ([`FrontierLoopOnDevice::set_walk_limit`]), as `loops_compact_level` decides it on the device.
pub fn compaction_walks(size: u32, max_degree: u32, limit: u64) -> bool {
    if max_degree == UNKNOWN_DEGREE {
        return false;
    }
    let (lanes, chunks) = walk_plan(max_degree);
    size as u64 * chunks as u64 * lanes as u64 <= limit
}

/// The frontier loop of [`super::FrontierLoop`] without a host round trip per level: the size of
/// each frontier stays on the device, so the host neither waits for a level nor sizes its launches.
///
/// ```ignore
/// let mut frontier = FrontierLoopOnDevice::new(&gpu, g.vertices())?;
/// let stats = frontier.run_push(&gpu, &g, &[source], |gpu, current, next_flags, _level| {
///     sssp::warp::sssp(gpu, g.offsets(), g.adj(), g.weights(), current, &mut dist, next_flags)
/// })?;
/// ```
///
/// Each level is two launches: the step over the current frontier, then the compaction of the
/// flags into the other frontier buffer (`loops_compact_level`), which also counts the next
/// frontier's size on the device and keeps the run's statistics there; or, in
/// [`FrontierLoopOnDevice::run_queue`], one: a step that appends its next frontier itself. The step is given the
/// current frontier buffer with its length set to its *capacity* (the loop's vertices); a kernel
/// launched over it with `g.tiles_in(frontier)` reads the frontier's size from the device
/// (`loops_list_len`, [`kernels_gen::abi::Hidden::ListLen`]) and is launched with a grid that does
/// not depend on it ([`FrontierLoopOnDevice::set_step_blocks`]). Only the schedules whose tile loop
/// is grid-stride can do that: `thread`, `group`, `warp`, `block`, and `auto`, which then runs one
/// of its thread and group candidates, the same at every level: the one its model ranks first on
/// a frontier of the graph's degrees (one vertex per resident warp at most), given at least the
/// lanes that take nine vertices in ten through their edges in one step (a level is latency-bound:
/// `KernelDesc::device_list_variant`); any other schedule's launch over the frontier is refused with
/// [`LoopsError::LoopOnDevice`] naming it.
///
/// The compaction of [`FrontierLoopOnDevice::run`] reads all the flags every level. A *push*
/// traversal ([`FrontierLoopOnDevice::run_push`]: BFS, Bellman-Ford SSSP), whose step flags only
/// heads of out-edges of the current frontier's vertices, lets it walk those out-edges instead
/// where they are few ([`FrontierLoopOnDevice::set_walk_limit`]): work in proportion to the
/// frontier's out-edges, not to the graph. It chooses on the device, every level, from the
/// frontier's size and its largest out-degree (which the previous compaction keeps), inside the
/// same kernel, so the recorded levels are the same whatever it chooses.
///
/// A run: the first level is launched as usual (it compiles the kernels and sizes every area the
/// launches use, so that nothing is compiled or allocated later; a queue run launches it in a
/// first batch of 6, without a read-back between them, unless it runs large frontiers alone:
/// [`FrontierLoopOnDevice::set_host_sized_from`]); then the next 29 levels are
/// launched directly in batches of 6 (no recording: a traversal of a few levels records nothing),
/// and those of [`FrontierLoopOnDevice::set_levels_per_replay`] levels (48 by default) are recorded
/// once by stream capture into a CUDA graph and replayed until the end. After each batch or replay
/// the host reads the state back once (48 bytes): the frontier's size, the levels run and the
/// statistics. Levels after the one whose frontier is empty find size 0 and return at once. Near
/// the iteration limit the remaining levels are launched directly, never past it, so that a run
/// stops with [`LoopsError::NoConvergence`] after exactly `max_iterations` levels, as
/// [`super::FrontierLoop`] does.
///
/// The step is called once per level outside the graph and once per level of the recorded replay,
/// with the buffers of that level, and must queue the same work each time: stream-ordered work on
/// the `gpu` it is given only (launches of kernels under the schedules above, fills, copies between
/// device buffers), nothing that waits for the GPU or allocates, and no buffer of another handle
/// (its stream would have to be waited for). That `gpu` is the loop's handle with the level as the
/// context of its launches; a handle the closure captured knows nothing of the loop. It must not depend on the level as a host number:
/// the level it runs is in the device buffer it is given (element 0, counting from 0). Checked
/// mode cannot run here (a checked launch waits for its kernel): asked for by `LOOPS_CHECKED=1` or
/// [`crate::launch::set_checked_mode`], every launch of the step is refused; by default (a debug
/// build) the plain variants run, over the frontier or not.
pub struct FrontierLoopOnDevice {
    vertices: usize,
    frontiers: [DeviceBuffer<u32>; 2],
    flags: DeviceBuffer<u32>,
    /// The device state ([`STATE_SLOTS`]).
    state: DeviceBuffer<u32>,
    /// The level the next step runs (element 0), written by each compaction.
    level: DeviceBuffer<u32>,
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
    queue: Option<QueueBuffers>,
    queue_begin: Option<CudaFunction>,
    queue_end: Option<CudaFunction>,
    /// The buffers and kernel of a direction-optimizing run, made by the first one.
    directed: Option<direction::DirectedBuffers>,
    /// See [`Self::set_host_sized_from`].
    host_sized_from: Option<u64>,
    /// The device's resident warps (SMs x warps per SM).
    resident_warps: u64,
}

/// A loop whose levels run on the device without the host, as [`replay_levels`] drives it (the
/// device near-far loop, [`super::NearFarLoopOnDevice`]): each level's launches, queued the same way
/// whether the stream is recorded or not, and what the host reads back between replays.
pub(super) trait LevelsOnDevice {
    /// Queues what comes before a batch of `count` levels from level `first`: a recorded replay
    /// (`capturing`; replayed later from other levels of the same parity and rotation, so what it
    /// queues must not depend on `first` otherwise) or a level launched alone. Nothing by default.
    fn begin_batch(
        &mut self,
        _gpu: &Gpu,
        _first: u64,
        _count: u64,
        _capturing: bool,
    ) -> Result<()> {
        Ok(())
    }

    /// Queues level `level` (counting from 0): stream-ordered launches only, none that waits
    /// for the GPU when `capturing` (the stream is being recorded).
    fn queue_level(&mut self, gpu: &Gpu, level: u64, capturing: bool) -> Result<()>;

    /// The levels of the next batch launched directly from level `issued` (1 to
    /// [`DIRECT_BATCH`]; fewer near the iteration limit), whose frontier holds `frontier` vertices
    /// by the last read-back (0 before the first). By default the first level alone (it compiles
    /// the kernels and sizes every area before the next batch), then [`DIRECT_BATCH`]. A queue
    /// run takes a whole first batch (its empty levels return at once, and a power-law graph's
    /// BFS is 4 to 8 levels: one read-back less), and runs a large frontier alone, sized on the
    /// host ([`FrontierLoopOnDevice::set_host_sized_from`]).
    fn direct_batch(&mut self, issued: u64, _frontier: usize) -> u64 {
        if issued == 0 {
            1
        } else {
            DIRECT_BATCH
        }
    }

    /// Queues what comes after the batch [`Self::begin_batch`] began. Nothing by default.
    fn end_batch(&mut self, _gpu: &Gpu, _capturing: bool) -> Result<()> {
        Ok(())
    }

    /// Makes room for batches of `levels` levels, before the first is recorded (nothing may be
    /// allocated while the stream is). Nothing by default.
    fn reserve(&mut self, _gpu: &Gpu, _levels: u64) -> Result<()> {
        Ok(())
    }

    /// Which of two ways the next batch's levels are queued (0 or 1), chosen from the last
    /// read-back: each is recorded once, when a replay first needs it. 0 by default.
    fn variant(&self) -> usize {
        0
    }

    /// After the first `issued` levels: reads the device state back; `None` when the loop is
    /// done, else the size of the frontier the next level runs (for [`LoopsError::NoConvergence`]).
    fn read_back(&mut self, gpu: &Gpu, issued: u64) -> Result<Option<usize>>;
}

/// Runs `levels` until its state says it is done, as [`FrontierLoopOnDevice`] runs its levels: the
/// first level launched as usual (it compiles the kernels and sizes every area the launches use;
/// alone, or as [`LevelsOnDevice::direct_batch`] says), then the levels below [`DIRECT_LEVELS`] launched directly in batches of [`DIRECT_BATCH`], then
/// `per_replay` levels (a multiple of 6) recorded once and replayed until the end, the state read
/// back after each batch or replay; the levels within `per_replay` of `max` launched directly,
/// never past it, so that a loop not done after `max` levels stops with
/// [`LoopsError::NoConvergence`] after exactly `max`. `what` names the loop in errors.
pub(super) fn replay_levels<L: LevelsOnDevice>(
    gpu: &Gpu,
    levels: &mut L,
    per_replay: u64,
    max: u64,
    what: &str,
) -> Result<()> {
    // One recorded replay per variant of the levels (`LevelsOnDevice::variant`).
    let mut graphs: [Option<CudaGraph>; 2] = [None, None];
    let mut issued = 0u64;
    let mut frontier = 0usize;
    loop {
        if issued >= max {
            return Err(LoopsError::NoConvergence {
                iterations: issued,
                frontier,
            });
        }
        if issued < DIRECT_LEVELS || max - issued < per_replay {
            // Launched directly: the first level alone or in the loop's first batch (it compiles
            // the kernels and sizes every area the launches use), then batches of a few levels,
            // never past `max`.
            let count = levels
                .direct_batch(issued, frontier)
                .clamp(1, DIRECT_BATCH)
                .min(max - issued);
            levels.begin_batch(gpu, issued, count, false)?;
            (issued..issued + count).try_for_each(|l| levels.queue_level(gpu, l, false))?;
            levels.end_batch(gpu, false)?;
            issued += count;
        } else {
            // The replay is recorded once, from this level, and replayed every `per_replay`
            // levels after it (a multiple of the parity and the counter rotation).
            let graph = &mut graphs[levels.variant().min(1)];
            if graph.is_none() {
                let first = issued;
                levels.reserve(gpu, per_replay)?;
                *graph = Some(capture(gpu, what, || {
                    levels.begin_batch(gpu, first, per_replay, true)?;
                    (first..first + per_replay)
                        .try_for_each(|l| levels.queue_level(gpu, l, true))?;
                    levels.end_batch(gpu, true)
                })?);
            }
            let replay = graph.as_ref().expect("recorded above");
            replay.launch().map_err(LoopsError::driver(format!(
                "replaying {per_replay} levels of the {what}"
            )))?;
            issued += per_replay;
        }
        match levels.read_back(gpu, issued)? {
            None => return Ok(()),
            Some(size) => frontier = size,
        }
    }
}

/// Records what `queue` queues on `gpu`'s stream into a CUDA graph (stream capture); the capture
/// is ended whatever happens, a panic included (a stream left capturing would fail every later
/// call on the handle). `what` names the loop in errors.
pub(super) fn capture(
    gpu: &Gpu,
    what: &str,
    queue: impl FnOnce() -> Result<()>,
) -> Result<CudaGraph> {
    let what = format!("recording the levels of the {what} (stream capture)");
    let stream = gpu.stream();
    // Thread-local: another thread's work on its own handles is not affected by this capture.
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .map_err(LoopsError::driver(what.clone()))?;
    let queued = std::panic::catch_unwind(std::panic::AssertUnwindSafe(queue));
    let ended = stream.end_capture(CUgraphInstantiate_flags(0));
    let queued = queued.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    queued?;
    ended
        .map_err(LoopsError::driver(what.clone()))?
        .ok_or_else(|| LoopsError::Driver {
            context: format!("{what}: the capture recorded no graph"),
            source: cudarc::driver::DriverError(
                cudarc::driver::sys::CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
            ),
        })
}

/// One wave of resident blocks of 256 threads (fewer on a loop of fewer `vertices`), or `blocks`:
/// the grid of a device loop's compaction ([`FrontierLoopOnDevice::set_compact_blocks`]).
pub(super) fn wave_dims(gpu: &Gpu, vertices: usize, blocks: Option<u32>) -> LaunchDims {
    let limits = gpu.limits();
    let wave = (limits.sm_count as usize * (limits.max_threads_per_sm as usize / 256)).max(1);
    let grid = match blocks {
        Some(blocks) => blocks.min(i32::MAX as u32),
        None => vertices.div_ceil(256).clamp(1, wave) as u32,
    };
    LaunchDims {
        grid,
        block: 256,
        shared_bytes: 0,
    }
}

impl FrontierLoopOnDevice {
    /// Buffers for graphs of up to `vertices` vertices; compiles (once per process, or reads from
    /// the disk cache) the compaction kernel.
    pub fn new(gpu: &Gpu, vertices: usize) -> Result<FrontierLoopOnDevice> {
        if vertices > i32::MAX as usize {
            return Err(LoopsError::InvalidGraph {
                detail: format!("{vertices} vertices: a frontier holds at most i32::MAX"),
            });
        }
        let compact = |entry| gpu.function("loops_compact_flags", COMPACT_SOURCE, entry);
        // Not zeroed: a frontier is written before it is read, and a flag run clears the flags
        // when it starts (`prepare`); a queue run reads no flag, so it writes none either.
        Ok(FrontierLoopOnDevice {
            vertices,
            frontiers: [gpu.uninit(vertices)?, gpu.uninit(vertices)?],
            flags: gpu.uninit(vertices)?,
            state: gpu.zeros(STATE_SLOTS)?,
            level: gpu.zeros(1)?,
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

    /// In a queue run ([`Self::run_queue`]), a level among the first 30 (launched directly, not
    /// recorded) whose frontier has at least `from` vertices by the last read-back (and the
    /// first level, where the loop has at least `from` vertices) runs alone,
    /// its step given the frontier cut to its size and the loop's handle outside the loop's
    /// context, so that its launches are sized on the host as in the host loop (`auto` choosing
    /// its variant from that frontier), and its next frontier's size is read back after it.
    /// `None` (the default): never (a step over all vertices, PageRank's or components', would
    /// run alone every time). BFS (`loops::graph::bfs::run_device_queue`) asks for
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
    }

    /// The levels recorded in one replay.
    pub fn levels_per_replay(&self) -> usize {
        self.levels_per_replay
    }

    /// In a push run ([`Self::run_push`]), the compaction walks the frontier's out-edges instead
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
    /// others scanned the flags); 0 after [`Self::run`].
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
    }

    /// The blocks of each compaction launch. `None` (the default): one wave of resident blocks
    /// (fewer on a graph of fewer vertices): the scan strides over the flags with the loads of
    /// every resident thread in flight, which more waves would not add to, and a walk over a small
    /// frontier leaves the blocks past it to return at once.
    pub fn set_compact_blocks(&mut self, blocks: Option<u32>) {
        self.compact_blocks = blocks.map(|b| b.max(1));
    }

    /// Runs `step` from the frontier `sources` until a frontier is empty. `step(gpu, frontier,
    /// next_flags, level)` must set `next_flags[u]` to a non-zero value for each vertex `u` of the
    /// next frontier and touch no other element of the flags, as for [`super::FrontierLoop::run`];
    /// `frontier.len()` is the loop's vertices, the frontier's size is on the device (see the type's
    /// documentation for what the step may do), and `level` holds the level's number, from 0. The
    /// sources are taken as given. Errors if a source is not a vertex. Every level's compaction
    /// reads all the flags; see [`Self::run_push`] for one that need not.
    pub fn run<F>(&mut self, gpu: &Gpu, sources: &[u32], step: F) -> Result<LoopStats>
    where
        F: FnMut(
            &Gpu,
            &DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &DeviceBuffer<u32>,
        ) -> Result<()>,
    {
        self.run_in(gpu, None, sources, step)
    }

    /// [`Self::run`] for a push traversal on `graph`. The contract, which the loop relies on and
    /// does not check: every vertex the step flags is the head of an out-edge, in `graph`, of a
    /// vertex of the frontier it was given (BFS and Bellman-Ford SSSP pushing along `graph`'s
    /// edges keep it; a pull step, or one that flags a vertex for any other reason, does not).
    /// A flag set against it may be missed by a walk: the vertex is left out of the next frontier
    /// and its flag stays set for a later level. The compaction may then walk the frontier's
    /// out-edges and claim each flagged head once, instead of scanning every flag
    /// ([`Self::set_walk_limit`]); the results and statistics are those of [`Self::run`].
    /// Errors also if `graph` has more vertices than the loop, or a source is not a vertex of it.
    pub fn run_push<F>(
        &mut self,
        gpu: &Gpu,
        graph: &DeviceGraph,
        sources: &[u32],
        step: F,
    ) -> Result<LoopStats>
    where
        F: FnMut(
            &Gpu,
            &DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &DeviceBuffer<u32>,
        ) -> Result<()>,
    {
        let gn = graph.vertices();
        if gn > self.vertices {
            return Err(LoopsError::InvalidGraph {
                detail: format!(
                    "a graph of {gn} vertices in a device frontier loop made for {}",
                    self.vertices
                ),
            });
        }
        if let Some(&s) = sources.iter().find(|&&s| s as usize >= gn) {
            return Err(LoopsError::InvalidGraph {
                detail: format!("source {s} of a graph of {gn} vertices"),
            });
        }
        self.run_in(gpu, Some(graph), sources, step)
    }

    /// Runs `step` from the frontier `sources` until a frontier is empty, the step appending the
    /// next frontier itself: one launch a level, no compaction. `step(gpu, frontier, next,
    /// next_size, level)` must append each vertex `u` of the next frontier once, at the index
    /// `atomic_add(&mut next_size[0], 1)` returns, where that index is below `next.len()` (the
    /// loop's vertices): `if slot < next.len() { next[slot] = u; }`. A step that appends a vertex
    /// only when it lowers it from "unreached" (BFS: `atomic_min` returned `UNREACHED`) appends
    /// each vertex at most once a run. A step that may append a vertex twice in a level
    /// (Bellman-Ford SSSP, which may lower a distance twice) belongs in [`Self::run`] or
    /// [`Self::run_push`], whose flags hold each vertex once. A count past `next.len()` (vertices
    /// the step could not write) ends the run with [`LoopsError::InvalidGraph`] after the replay
    /// it happened in. `frontier.len()` is the loop's vertices, its size is on the device, `level`
    /// holds the level's number, from 0; what the step may queue is as for [`Self::run`].
    ///
    /// Levels run in batches, as [`Self::run`]'s, but the first batch is 6 levels launched
    /// directly, the first level among them (a BFS of a power-law graph runs 4 to 8 levels: one
    /// read-back less), then recorded replays; where large frontiers run alone
    /// ([`Self::set_host_sized_from`]) and the loop has that many vertices, the first level runs
    /// alone instead, and so does each direct level whose frontier is that large.
    /// A kernel before each batch (`loops_queue_begin`) sets the batch's counts, one buffer per
    /// level of it, and numbers its levels; one after it (`loops_queue_end`) adds the batch's
    /// frontiers to the statistics and carries the last count to the next batch. No kernel runs
    /// between two steps.
    pub fn run_queue<F>(&mut self, gpu: &Gpu, sources: &[u32], mut step: F) -> Result<LoopStats>
    where
        F: FnMut(
            &Gpu,
            &DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &DeviceBuffer<u32>,
        ) -> Result<()>,
    {
        if !self.prepare_queue(gpu, sources)? {
            return Ok(LoopStats::default());
        }
        let per_replay = self.levels_per_replay;
        let max = self.max_iterations.unwrap_or(self.vertices as u64 + 1);
        let mut levels = QueueLevels {
            lp: self,
            step: &mut step,
            batch_first: 0,
            batch_count: 0,
            sources: sources.len(),
            alone: None,
            stats: LoopStats::default(),
        };
        replay_levels(
            gpu,
            &mut levels,
            per_replay as u64,
            max,
            "device frontier loop",
        )?;
        Ok(levels.stats)
    }

    /// [`Self::prepare`] for a queue run, and its batch buffers and kernels; false for no
    /// sources (nothing to run).
    fn prepare_queue(&mut self, gpu: &Gpu, sources: &[u32]) -> Result<bool> {
        self.walked_levels = 0;
        self.prepare(gpu, sources, false)?;
        if sources.is_empty() {
            return Ok(false);
        }
        // Room for the direct batches; a run that records grows it first (`reserve_queue`): 2
        // one-element buffers a level, which a run of a few levels need not allocate.
        if self.queue.is_none() {
            self.queue = Some(QueueBuffers::new(gpu, DIRECT_BATCH as usize)?);
        }
        if self.queue_begin.is_none() || self.queue_end.is_none() {
            let compile = |entry| gpu.function("loops_compact_flags", COMPACT_SOURCE, entry);
            self.queue_begin = Some(compile("loops_queue_begin")?);
            self.queue_end = Some(compile("loops_queue_end")?);
        }
        Ok(true)
    }

    /// Grows the queue run's batch buffers to batches of `levels` levels.
    fn reserve_queue(&mut self, gpu: &Gpu, levels: u64) -> Result<()> {
        if self
            .queue
            .as_ref()
            .is_none_or(|q| (q.batch as u64) < levels)
        {
            self.queue = Some(QueueBuffers::new(gpu, levels as usize)?);
        }
        Ok(())
    }

    /// Checks `sources` and the handle, then sets the first frontier to `sources` and the device
    /// state to a run's start, and with `flags` (a run that compacts flags) clears the flags
    /// (nothing is written for no sources).
    fn prepare(&mut self, gpu: &Gpu, sources: &[u32], flags: bool) -> Result<()> {
        super::check_sources(sources, self.vertices)?;
        if sources.is_empty() {
            return Ok(());
        }
        // A capture records this handle's stream only: another stream's buffers would have to be
        // waited for.
        if self
            .flags
            .cuda_stream()
            .is_some_and(|s| !std::sync::Arc::ptr_eq(s, gpu.stream()))
        {
            return Err(LoopsError::InvalidGraph {
                detail: "a device frontier loop runs on the Gpu handle that made it".into(),
            });
        }
        // A run that failed half-way may have left flags set (and a new loop's are not zeroed).
        if flags {
            gpu.fill(&mut self.flags, 0)?;
        }
        gpu.write_at(&mut self.frontiers[0], 0, sources)?;
        let mut state = [0u32; STATE_SLOTS];
        state[0] = sources.len() as u32;
        // The sources' degrees are not read on the host: the first level scans.
        state[DEGREE_SLOTS] = UNKNOWN_DEGREE;
        gpu.write_at(&mut self.state, 0, &state)?;
        gpu.write_at(&mut self.level, 0, &[0])
    }

    /// [`Self::run`], or with `push`, [`Self::run_push`] on that graph.
    fn run_in<F>(
        &mut self,
        gpu: &Gpu,
        push: Option<&DeviceGraph>,
        sources: &[u32],
        mut step: F,
    ) -> Result<LoopStats>
    where
        F: FnMut(
            &Gpu,
            &DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &DeviceBuffer<u32>,
        ) -> Result<()>,
    {
        let n = self.vertices;
        self.walked_levels = 0;
        self.prepare(gpu, sources, true)?;
        if sources.is_empty() {
            return Ok(LoopStats::default());
        }
        let max = self.max_iterations.unwrap_or(n as u64 + 1);
        let per_replay = self.levels_per_replay as u64;
        let mut levels = FlagLevels {
            lp: self,
            push,
            step: &mut step,
            stats: LoopStats::default(),
        };
        replay_levels(gpu, &mut levels, per_replay, max, "device frontier loop")?;
        Ok(levels.stats)
    }

    /// The grid of the compaction ([`Self::set_compact_blocks`]).
    fn compact_dims(&self, gpu: &Gpu) -> LaunchDims {
        wave_dims(gpu, self.vertices, self.compact_blocks)
    }

    /// Queues level `level`: the step over the frontier of its parity, then its compaction into
    /// the other (walking `push`'s edges where it chooses to). `capturing`: the stream is being
    /// recorded, so the launches must not wait for it.
    fn level<F>(
        &mut self,
        gpu: &Gpu,
        push: Option<&DeviceGraph>,
        level: u64,
        capturing: bool,
        step: &mut F,
    ) -> Result<()>
    where
        F: FnMut(
            &Gpu,
            &DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &DeviceBuffer<u32>,
        ) -> Result<()>,
    {
        let n = self.vertices;
        let (current, next) = ((level % 2) as usize, ((level + 1) % 2) as usize);
        let slot = |k: u64| ((level + k) % 3) as u32;
        // The step and the compaction launch on the handle in the level's context: over the
        // frontier, with its size on the device; never waiting for a stream being recorded.
        let gpu = &gpu.in_device_loop(DeviceList {
            list: self.frontiers[current].device_ptr(),
            len: self.state.device_ptr() + 4 * slot(0) as u64,
            capturing,
            blocks: self.step_blocks,
        });
        step(gpu, &self.frontiers[current], &mut self.flags, &self.level)?;
        let (flags, out, state) = (&self.flags, &self.frontiers[next], &self.state);
        let (level_arg, frontier) = (&self.level, &self.frontiers[current]);
        let (slots, walk_limit) = ((slot(0), slot(1), slot(2)), self.walk_limit());
        let (entry, function, args) = match push.map(|g| (g, g.offsets().wide_offsets())) {
            Some((g, Some(wide))) => (
                "loops_compact_level_wide",
                &self.compact_wide,
                super::loops_compact_level_wide::args(
                    flags,
                    n as u32,
                    out,
                    state,
                    slots.0,
                    slots.1,
                    slots.2,
                    level_arg,
                    frontier,
                    wide,
                    g.adj(),
                    g.vertices() as u32,
                    walk_limit,
                ),
            ),
            narrow => {
                // No graph: null offsets and adjacency, and the kernel scans every level.
                let (offsets, adj, vertices) = match narrow {
                    Some((g, _)) => (
                        Ptr::at(g.offsets().offsets(), 0),
                        Ptr::at(g.adj(), 0),
                        g.vertices() as u32,
                    ),
                    None => (Ptr::null(), Ptr::null(), 0),
                };
                let args = super::loops_compact_level::args(
                    flags, n as u32, out, state, slots.0, slots.1, slots.2, level_arg, frontier,
                    offsets, adj, vertices, walk_limit,
                );
                ("loops_compact_level", &self.compact, args)
            }
        };
        // The compaction begins with `loops_grid_dependency`, as the generated kernels do.
        let programmatic = gpu.programmatic_launch();
        gpu.launch_function_with(entry, function, self.compact_dims(gpu), args, programmatic)
    }
}

/// The levels of a run of [`FrontierLoopOnDevice::run`] or [`FrontierLoopOnDevice::run_push`]: the
/// step and the compaction of its flags, as [`replay_levels`] drives them.
struct FlagLevels<'a, F> {
    lp: &'a mut FrontierLoopOnDevice,
    push: Option<&'a DeviceGraph>,
    step: &'a mut F,
    stats: LoopStats,
}

impl<F> LevelsOnDevice for FlagLevels<'_, F>
where
    F: FnMut(&Gpu, &DeviceBuffer<u32>, &mut DeviceBuffer<u32>, &DeviceBuffer<u32>) -> Result<()>,
{
    fn queue_level(&mut self, gpu: &Gpu, level: u64, capturing: bool) -> Result<()> {
        self.lp.level(gpu, self.push, level, capturing, self.step)
    }

    fn read_back(&mut self, gpu: &Gpu, issued: u64) -> Result<Option<usize>> {
        let n = self.lp.vertices;
        let state = gpu.download(&self.lp.state)?;
        let size = state[(issued % 3) as usize] as usize;
        if size > n {
            return Err(LoopsError::InvalidGraph {
                detail: format!("the compaction counted {size} vertices of {n}"),
            });
        }
        self.stats = stats_of(&state);
        self.lp.walked_levels = state[WALKED_SLOT];
        Ok((size != 0).then_some(size))
    }
}

/// The statistics a loop's device state holds (see `loops_compact_level` and `loops_queue_end`).
fn stats_of(state: &[u32]) -> LoopStats {
    LoopStats {
        iterations: state[LEVELS_SLOT],
        frontier_vertices: (state[5] as u64) << 32 | state[4] as u64,
        max_frontier: state[6] as usize,
    }
}

/// Where a queue run's device state holds the largest count past a frontier's capacity.
const OVERFLOW_SLOT: usize = 7;

/// A queue run's one-element buffers ([`FrontierLoopOnDevice::run_queue`]), for batches of up to
/// `batch` levels: level `i` of a batch runs the frontier of `counts[i]` vertices, appends to the
/// count `counts[i + 1]` and is numbered by `levels[i]`; `count_ptrs` and `level_ptrs` hold their
/// addresses for the kernels before and after a batch (`loops_queue_begin`, `loops_queue_end` in
/// compact.cuh). One element each, not one buffer for all, because a step is given them as
/// buffers whose element 0 is the one it uses.
struct QueueBuffers {
    batch: usize,
    counts: Vec<DeviceBuffer<u32>>,
    levels: Vec<DeviceBuffer<u32>>,
    count_ptrs: DeviceBuffer<u64>,
    level_ptrs: DeviceBuffer<u64>,
}

impl QueueBuffers {
    fn new(gpu: &Gpu, batch: usize) -> Result<QueueBuffers> {
        // Not zeroed: `loops_queue_begin` writes every count and level of a batch before its
        // first level.
        let counts = (0..=batch)
            .map(|_| gpu.uninit(1))
            .collect::<Result<Vec<DeviceBuffer<u32>>>>()?;
        let levels = (0..batch)
            .map(|_| gpu.uninit(1))
            .collect::<Result<Vec<DeviceBuffer<u32>>>>()?;
        let addresses =
            |bufs: &[DeviceBuffer<u32>]| bufs.iter().map(|b| b.device_ptr()).collect::<Vec<u64>>();
        Ok(QueueBuffers {
            batch,
            count_ptrs: gpu.upload(&addresses(&counts))?,
            level_ptrs: gpu.upload(&addresses(&levels))?,
            counts,
            levels,
        })
    }
}

/// The levels of a run of [`FrontierLoopOnDevice::run_queue`]: one launch each, the step's, between
/// the kernels before and after each batch.
struct QueueLevels<'a, F> {
    lp: &'a mut FrontierLoopOnDevice,
    step: &'a mut F,
    /// The first level of the batch being queued.
    batch_first: u64,
    /// The levels of that batch.
    batch_count: u64,
    /// The run's sources (the first frontier's size).
    sources: usize,
    /// The size of the frontier of the level the next batch runs alone, sized on the host (see
    /// [`FrontierLoopOnDevice::set_host_sized_from`]); `None`: the batch's levels are sized on
    /// the device.
    alone: Option<usize>,
    stats: LoopStats,
}

/// Launches `loops_queue_begin` or `loops_queue_end` (`begin`) over a batch of `count` levels of
/// `lp`'s queue run.
fn queue_batch_kernel(
    lp: &FrontierLoopOnDevice,
    gpu: &Gpu,
    begin: bool,
    count: u64,
    capturing: bool,
) -> Result<()> {
    // In the loop's context with no list: only so that the launch does not wait for a stream
    // being recorded.
    let gpu = &gpu.in_device_loop(DeviceList {
        list: 0,
        len: 0,
        capturing,
        blocks: None,
    });
    let q = lp.queue.as_ref().expect("made by run_queue");
    let read = |ty| Param::Ptr { ty, mutable: false };
    let mut args = KernelArgs::new();
    args.push_buffer(&q.count_ptrs, read("unsigned int*"));
    if begin {
        args.push_buffer(&q.level_ptrs, read("unsigned int*"));
    }
    args.scalar(count as u32);
    args.push_buffer(
        &lp.state,
        Param::Ptr {
            ty: "unsigned int",
            mutable: !begin,
        },
    );
    let (entry, function, block) = if begin {
        ("loops_queue_begin", lp.queue_begin.as_ref(), 256)
    } else {
        args.scalar(lp.vertices as u32);
        ("loops_queue_end", lp.queue_end.as_ref(), 32)
    };
    let dims = LaunchDims {
        grid: 1,
        block,
        shared_bytes: 0,
    };
    let function = function.expect("compiled by run_queue");
    // Both begin with `loops_grid_dependency`, as the generated kernels do.
    gpu.launch_function_with(entry, function, dims, args, gpu.programmatic_launch())
}

impl<F> LevelsOnDevice for QueueLevels<'_, F>
where
    F: FnMut(
        &Gpu,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
    ) -> Result<()>,
{
    fn begin_batch(&mut self, gpu: &Gpu, first: u64, count: u64, capturing: bool) -> Result<()> {
        (self.batch_first, self.batch_count) = (first, count);
        queue_batch_kernel(self.lp, gpu, true, count, capturing)
    }

    fn queue_level(&mut self, gpu: &Gpu, level: u64, capturing: bool) -> Result<()> {
        let lp = &mut *self.lp;
        let i = (level - self.batch_first) as usize;
        let q = lp.queue.as_mut().expect("made by run_queue");
        let capacity = lp.vertices;
        // A large frontier alone in its batch, its size read back: the step's launches are sized
        // on the host, as in the host loop (`auto` choosing from the frontier itself), over the
        // frontier cut to its size. Never recorded.
        let alone = self.alone.filter(|_| !capturing && self.batch_count == 1);
        let [even, odd] = &mut lp.frontiers;
        let (current, next) = if level.is_multiple_of(2) {
            (even, odd)
        } else {
            (odd, even)
        };
        let (counts, appended) = q.counts.split_at_mut(i + 1);
        if let Some(size) = alone {
            current.set_len(size.min(capacity));
            let ran = (self.step)(gpu, current, next, &mut appended[0], &q.levels[i]);
            current.set_len(capacity);
            return ran;
        }
        let gpu = &gpu.in_device_loop(DeviceList {
            list: current.device_ptr(),
            len: counts[i].device_ptr(),
            capturing,
            blocks: lp.step_blocks,
        });
        (self.step)(gpu, current, next, &mut appended[0], &q.levels[i])
    }

    fn end_batch(&mut self, gpu: &Gpu, capturing: bool) -> Result<()> {
        queue_batch_kernel(self.lp, gpu, false, self.batch_count, capturing)
    }

    fn direct_batch(&mut self, issued: u64, frontier: usize) -> u64 {
        let (lp, sources) = (&*self.lp, self.sources);
        self.alone = runs_alone(issued, frontier, sources, lp.vertices, lp.host_sized_from);
        if self.alone.is_some() {
            1
        } else {
            DIRECT_BATCH
        }
    }

    fn reserve(&mut self, gpu: &Gpu, levels: u64) -> Result<()> {
        self.lp.reserve_queue(gpu, levels)
    }

    fn read_back(&mut self, gpu: &Gpu, _issued: u64) -> Result<Option<usize>> {
        let (stats, size) = queue_read_back(self.lp, gpu)?;
        self.stats = stats;
        Ok(size)
    }
}

/// Whether a queue run's next direct batch, from level `issued` over a frontier of `frontier`
/// vertices (by the last read-back), is one level alone sized on the host, and that frontier's
/// size: in a loop of `vertices` whose large frontiers run alone from `from` vertices
/// ([`FrontierLoopOnDevice::set_host_sized_from`]; `None`: never), a frontier that large; and the
/// first level (of `sources` vertices) where the loop has that many vertices, so that the
/// read-back after it says whether the next one is large (a loop of fewer vertices runs a whole
/// first batch, with no read-back between its levels).
fn runs_alone(
    issued: u64,
    frontier: usize,
    sources: usize,
    vertices: usize,
    from: Option<u64>,
) -> Option<usize> {
    let from = from?;
    if issued == 0 {
        (vertices as u64 >= from).then_some(sources)
    } else {
        (frontier as u64 >= from).then_some(frontier)
    }
}

/// After a batch of a queue run: the run's statistics, and the size of the next frontier (`None`:
/// empty, the run is over). Errors if a step appended past a frontier's capacity.
fn queue_read_back(lp: &FrontierLoopOnDevice, gpu: &Gpu) -> Result<(LoopStats, Option<usize>)> {
    {
        let n = lp.vertices;
        let state = gpu.download(&lp.state)?;
        if state[OVERFLOW_SLOT] != 0 {
            return Err(LoopsError::InvalidGraph {
                detail: format!(
                    "a queue step appended {} vertices to a frontier of {n}: it must append each \
                     vertex at most once a level, and only below the next frontier's length",
                    state[OVERFLOW_SLOT]
                ),
            });
        }
        let size = state[0] as usize;
        Ok((stats_of(&state), (size != 0).then_some(size)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};

    #[test]
    fn large_frontiers_run_alone_from_the_limit() {
        // Never without a limit, whatever the sizes.
        assert_eq!(runs_alone(0, 0, 1, 1 << 20, None), None);
        assert_eq!(runs_alone(3, 1 << 20, 1, 1 << 20, None), None);
        // The first level: alone where the loop could hold a large frontier, with the sources'
        // size; else in a whole batch (a small graph).
        assert_eq!(runs_alone(0, 0, 1, 100_000, Some(8448)), Some(1));
        assert_eq!(runs_alone(0, 0, 3, 4096, Some(8448)), None);
        // Later levels: by the frontier read back.
        assert_eq!(runs_alone(1, 8448, 1, 100_000, Some(8448)), Some(8448));
        assert_eq!(runs_alone(7, 8447, 1, 100_000, Some(8448)), None);
        // 0: every direct level alone, the first one too.
        assert_eq!(runs_alone(0, 0, 1, 1, Some(0)), Some(1));
        assert_eq!(runs_alone(5, 0, 1, 1, Some(0)), Some(0));
    }

    #[test]
    fn the_walk_plan_covers_the_largest_degree() {
        assert_eq!(walk_plan(0), (1, 1));
        assert_eq!(walk_plan(1), (1, 1));
        assert_eq!(walk_plan(5), (8, 1));
        assert_eq!(walk_plan(32), (32, 1));
        assert_eq!(walk_plan(33), (32, 2));
        assert_eq!(walk_plan(100_000), (32, 3125));
        assert_eq!(walk_plan(u32::MAX - 1), (32, u32::MAX / 32 + 1));
        for d in 0..2000u32 {
            let (lanes, chunks) = walk_plan(d);
            assert!(lanes.is_power_of_two() && lanes <= 32, "{d}");
            assert!(lanes * chunks >= d, "{d}");
            // No smaller plan covers it: a vertex of the largest degree leaves no item empty.
            assert!(lanes * (chunks - 1) < d.max(1), "{d}");
        }
        // The choice: unknown degrees scan; the limit bounds the lanes.
        assert!(!compaction_walks(1, UNKNOWN_DEGREE, u64::MAX));
        assert!(compaction_walks(2_000, 5, default_walk_limit(1 << 22)));
        assert!(!compaction_walks(100_000, 5, default_walk_limit(1 << 20)));
        assert!(compaction_walks(1, 100_000, default_walk_limit(1 << 20)));
        assert!(!compaction_walks(1, 1, 0));
        assert!(compaction_walks(0, 1, 0));
    }

    /// The lanes of the walk, as `loops_walk_rounds` runs them on a grid of `warps` warps: for
    /// each lane that has an item, the frontier position and the edge index within the vertex it
    /// reads (if the vertex has that many edges).
    fn walk_lanes(size: u32, max_degree: u32, warps: u64) -> Vec<(usize, u64)> {
        let (lanes, chunks) = walk_plan(max_degree);
        let items_per_warp = (32 / lanes) as u64;
        let items = size as u64 * chunks as u64;
        let mut out = Vec::new();
        for w in 0..warps {
            let mut first = w * items_per_warp;
            while first < items {
                for lane in 0..32u32 {
                    let item = first + (lane / lanes) as u64;
                    if item < items {
                        let k = (item % chunks as u64) * lanes as u64 + (lane & (lanes - 1)) as u64;
                        out.push(((item / chunks as u64) as usize, k));
                    }
                }
                first += warps * items_per_warp;
            }
        }
        out
    }

    /// The walk on the CPU: every lane's claim (a plain read, which may see the flag as the level
    /// left it or as another lane's exchange left it, then the exchange) in a random order,
    /// as the lanes of a grid may interleave. Returns the claimed heads and their largest degree.
    fn walk_model(
        offsets: &[usize],
        adj: &[u32],
        frontier: &[u32],
        flags: &mut [u32],
        warps: u64,
        rng: &mut impl Rng,
    ) -> (Vec<u32>, u32) {
        let degree = |v: u32| (offsets[v as usize + 1] - offsets[v as usize]) as u32;
        let max_degree = frontier.iter().map(|&v| degree(v)).max().unwrap_or(0);
        let mut lanes = walk_lanes(frontier.len() as u32, max_degree, warps);
        lanes.shuffle(rng);
        let before = flags.to_vec();
        let (mut claimed, mut largest) = (Vec::new(), 0);
        for (pos, k) in lanes {
            let v = frontier[pos];
            if k >= degree(v) as u64 {
                continue;
            }
            let u = adj[offsets[v as usize] + k as usize] as usize;
            let seen = if rng.random() { before[u] } else { flags[u] };
            if seen != 0 && std::mem::replace(&mut flags[u], 0) != 0 {
                claimed.push(u as u32);
                largest = largest.max(degree(u as u32));
            }
        }
        (claimed, largest)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Each position and edge of the frontier is read by exactly one lane, for any grid.
        #[test]
        fn the_walk_reads_each_edge_once(
            degrees in proptest::collection::vec(0u32..200, 0..40),
            warps in 1u64..9,
        ) {
            let max_degree = degrees.iter().copied().max().unwrap_or(0);
            let mut seen = std::collections::HashMap::new();
            for (pos, k) in walk_lanes(degrees.len() as u32, max_degree, warps) {
                *seen.entry((pos, k)).or_insert(0u32) += 1;
            }
            for (pos, &d) in degrees.iter().enumerate() {
                for k in 0..d as u64 {
                    prop_assert_eq!(seen.get(&(pos, k)).copied(), Some(1), "{} {}", pos, k);
                }
            }
            // The lanes past a vertex's degree read nothing; no lane is counted twice.
            prop_assert!(seen.values().all(|&c| c == 1));
        }

        /// A push step's flags (heads of out-edges of the frontier) are each claimed once, all
        /// cleared, and the largest degree of the claimed is kept.
        #[test]
        fn the_walk_claims_each_flag_once(
            n in 1usize..60,
            seed in any::<u64>(),
            warps in 1u64..6,
        ) {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            // Degrees up to 80: items of one and of several chunks; repeated edges, self-loops.
            let mut offsets = vec![0usize];
            let mut adj = Vec::new();
            for _ in 0..n {
                let d = if rng.random_bool(0.1) { rng.random_range(33..80) } else { rng.random_range(0..6) };
                adj.extend((0..d).map(|_| rng.random_range(0..n as u32)));
                offsets.push(adj.len());
            }
            // A frontier with repeats, and flags on some of its out-neighbours.
            let frontier: Vec<u32> = (0..rng.random_range(1..n + 3))
                .map(|_| rng.random_range(0..n as u32))
                .collect();
            let mut flags = vec![0u32; n];
            for &v in &frontier {
                for &u in &adj[offsets[v as usize]..offsets[v as usize + 1]] {
                    if rng.random_bool(0.4) {
                        flags[u as usize] = rng.random_range(1..4);
                    }
                }
            }
            let mut want: Vec<u32> = (0..n as u32).filter(|&u| flags[u as usize] != 0).collect();
            let want_degree = want
                .iter()
                .map(|&u| (offsets[u as usize + 1] - offsets[u as usize]) as u32)
                .max()
                .unwrap_or(0);
            let (mut got, degree) = walk_model(&offsets, &adj, &frontier, &mut flags, warps, &mut rng);
            got.sort_unstable();
            want.sort_unstable();
            prop_assert_eq!(got, want);
            prop_assert!(flags.iter().all(|&f| f == 0));
            prop_assert_eq!(degree, want_degree);
        }
    }
}
