//! How the device loops run their levels without the host: [`replay_levels`] drives a
//! [`LevelsOnDevice`] (the frontier loop's flag and queue runs, direction-optimizing BFS, the
//! near-far loop) through direct batches and recorded replays; [`capture`] records a stream.

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::CudaGraph;

use crate::device::Gpu;
use crate::error::{LoopsError, Result};
use kernels_gen::schedule::LaunchDims;

/// Levels recorded in one replay unless [`FrontierLoop::set_levels_per_replay`](super::FrontierLoop::set_levels_per_replay) says
/// otherwise: a read-back per 48 levels costs well under 1 us a level, and a traversal that ends
/// in the middle of a replay runs at most `levels_per_replay - 1` empty levels (47 by default; two launches each that return at once).
pub const DEFAULT_LEVELS_PER_REPLAY: usize = 48;

/// The levels of a replay are a multiple of this: the frontier buffers alternate every level and
/// the size counters rotate every three, so every replay must start where the recorded one did.
pub(crate) const LEVEL_PERIOD: usize = 6;

/// The levels of a run launched directly, in batches of [`DIRECT_BATCH`] with a read-back after
/// each, before any is recorded: recording and instantiating a CUDA graph costs a few hundred
/// microseconds (measured on an H200: a BFS of 4 levels on a 4,096-vertex Kronecker graph took
/// 0.52 ms in the device loop whose first 6 levels were recorded, 0.14 ms in the host loop), more
/// than a short run's levels, so a traversal of a few levels (a power-law graph's, or components'
/// and PageRank's iterations) records nothing, and a long one records its replay once after these.
pub(crate) const DIRECT_LEVELS: u64 = 30;

/// The levels of a direct batch (see [`DIRECT_LEVELS`]).
pub(crate) const DIRECT_BATCH: u64 = LEVEL_PERIOD as u64;

/// A loop whose levels run on the device without the host, as [`replay_levels`] drives it (the
/// device near-far loop, [`crate::graph::NearFarLoop`] on the device): each level's launches, queued the same way
/// whether the stream is recorded or not, and what the host reads back between replays.
pub(crate) trait LevelsOnDevice {
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
    /// host ([`FrontierLoop::set_host_sized_from`](super::FrontierLoop::set_host_sized_from)).
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

    /// Whether the host reads the state back after the batch that ends at `issued` levels
    /// (below the iteration limit; at it, always). True by default; a loop whose first level
    /// runs alone and cannot end the run (a frontier of one source) may queue the next batch
    /// behind it without waiting.
    fn read_back_after(&self, _issued: u64) -> bool {
        true
    }
}

/// The recorded batches a loop keeps from one run to the next ([`replay_levels_kept`]): each
/// recorded once and replayed by every later run of the same launches (the caller's promise,
/// checked by its key), keyed by the batch's variant ([`LevelsOnDevice::variant`]), its first
/// level's phase (modulo [`LEVEL_PERIOD`]) and its levels.
#[derive(Default)]
pub(crate) struct Recorded {
    replays: std::collections::HashMap<(usize, u64, u64), CudaGraph>,
    /// The direct batches launched directly at least once (so that every kernel they launch
    /// was compiled and every area sized before one is recorded).
    launched: std::collections::HashSet<(usize, u64, u64)>,
    /// The direct batches recorded.
    direct: std::collections::HashMap<(usize, u64, u64), CudaGraph>,
    /// The batches the last run launched as a recorded graph (direct batches and replays).
    pub(crate) replayed: u64,
}

impl Recorded {
    /// Forgets every recording (the launches they hold changed).
    pub(crate) fn clear(&mut self) {
        *self = Recorded::default();
    }
}

/// Runs `levels` until its state says it is done, as [`FrontierLoop`](super::FrontierLoop) runs its levels: the
/// first level launched as usual (it compiles the kernels and sizes every area the launches use;
/// alone, or as [`LevelsOnDevice::direct_batch`] says), then the levels below [`DIRECT_LEVELS`] launched directly in batches of [`DIRECT_BATCH`], then
/// `per_replay` levels (a multiple of 6) recorded once and replayed until the end, the state read
/// back after each batch or replay; the levels within `per_replay` of `max` launched directly,
/// never past it, so that a loop not done after `max` levels stops with
/// [`LoopsError::NoConvergence`] after exactly `max`. `what` names the loop in errors.
pub(crate) fn replay_levels<L: LevelsOnDevice>(
    gpu: &Gpu,
    levels: &mut L,
    per_replay: u64,
    max: u64,
    what: &str,
) -> Result<()> {
    replay_levels_kept(
        gpu,
        levels,
        per_replay,
        max,
        what,
        &mut Recorded::default(),
        false,
    )
}

/// [`replay_levels`] with the recordings in `kept`, from earlier runs of the same launches: a
/// replay found there is launched, not recorded again; with `record_direct`, so is a direct batch
/// of [`DIRECT_BATCH`] levels (but the first) that was launched directly once before, recorded
/// the second time it comes (a run that ends in a few batches then costs a few graph launches
/// instead of every level's kernels).
pub(crate) fn replay_levels_kept<L: LevelsOnDevice>(
    gpu: &Gpu,
    levels: &mut L,
    per_replay: u64,
    max: u64,
    what: &str,
    kept: &mut Recorded,
    record_direct: bool,
) -> Result<()> {
    kept.replayed = 0;
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
            let key = (levels.variant().min(1), issued % LEVEL_PERIOD as u64, count);
            let recordable = record_direct && issued > 0 && count == DIRECT_BATCH;
            if recordable && !kept.direct.contains_key(&key) && kept.launched.contains(&key) {
                let first = issued;
                let graph = capture(gpu, what, || {
                    levels.begin_batch(gpu, first, count, true)?;
                    (first..first + count).try_for_each(|l| levels.queue_level(gpu, l, true))?;
                    levels.end_batch(gpu, true)
                })?;
                kept.direct.insert(key, graph);
            }
            match kept.direct.get(&key).filter(|_| recordable) {
                Some(graph) => {
                    graph.launch().map_err(LoopsError::driver(format!(
                        "replaying {count} levels of the {what}"
                    )))?;
                    kept.replayed += 1;
                }
                None => {
                    levels.begin_batch(gpu, issued, count, false)?;
                    (issued..issued + count).try_for_each(|l| levels.queue_level(gpu, l, false))?;
                    levels.end_batch(gpu, false)?;
                    kept.launched.insert(key);
                }
            }
            issued += count;
        } else {
            // The replay is recorded once, from this level, and replayed every `per_replay`
            // levels after it (a multiple of the parity and the counter rotation).
            let key = (
                levels.variant().min(1),
                issued % LEVEL_PERIOD as u64,
                per_replay,
            );
            if let std::collections::hash_map::Entry::Vacant(slot) = kept.replays.entry(key) {
                let first = issued;
                levels.reserve(gpu, per_replay)?;
                let graph = capture(gpu, what, || {
                    levels.begin_batch(gpu, first, per_replay, true)?;
                    (first..first + per_replay)
                        .try_for_each(|l| levels.queue_level(gpu, l, true))?;
                    levels.end_batch(gpu, true)
                })?;
                slot.insert(graph);
            }
            kept.replayed += 1;
            let replay = kept.replays.get(&key).expect("recorded above");
            replay.launch().map_err(LoopsError::driver(format!(
                "replaying {per_replay} levels of the {what}"
            )))?;
            issued += per_replay;
        }
        if issued < max && !levels.read_back_after(issued) {
            continue;
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
pub(crate) fn capture(
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
/// the grid of a device loop's compaction ([`FrontierLoop::set_compact_blocks`](super::FrontierLoop::set_compact_blocks)).
pub(crate) fn wave_dims(gpu: &Gpu, vertices: usize, blocks: Option<u32>) -> LaunchDims {
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
