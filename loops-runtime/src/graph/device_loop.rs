//! [`DeviceFrontierLoop`]: the frontier loop whose levels run without the host, recorded once per
//! run as a CUDA graph of several levels and replayed until a frontier is empty.

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaFunction, CudaGraph};

use super::{compact_dims, LoopStats, COMPACT_SOURCE};
use crate::device::{DeviceBuffer, DeviceList, Gpu};
use crate::error::{LoopsError, Result};
use crate::launch::{KernelArgs, Param};

/// The slots of the loop's device state (see `loops_compact_level` in `compact.cuh`): three
/// frontier sizes in turn, the levels run, the frontier vertices added up (two halves), the
/// largest frontier, and one unused.
const STATE_SLOTS: usize = 8;
/// Where the levels run are counted in the state.
const LEVELS_SLOT: usize = 3;

/// Levels recorded in one replay unless [`DeviceFrontierLoop::set_levels_per_replay`] says
/// otherwise: a read-back per 48 levels costs well under 1 us a level, and a traversal that ends
/// in the middle of a replay runs at most 47 empty levels (two launches each that return at once).
pub const DEFAULT_LEVELS_PER_REPLAY: usize = 48;

/// The levels of a replay are a multiple of this: the frontier buffers alternate every level and
/// the size counters rotate every three, so every replay must start where the recorded one did.
const LEVEL_PERIOD: usize = 6;

/// The frontier loop of [`super::FrontierLoop`] without a host round trip per level: the size of
/// each frontier stays on the device, so the host neither waits for a level nor sizes its launches.
///
/// ```ignore
/// let mut frontier = DeviceFrontierLoop::new(&gpu, g.vertices())?;
/// let stats = frontier.run(&gpu, &[source], |gpu, current, next_flags, _level| {
///     sssp::warp::sssp(gpu, g.offsets(), g.adj(), g.weights(), current, &mut dist, next_flags)
/// })?;
/// ```
///
/// Each level is two launches: the step over the current frontier, then the compaction of the
/// flags into the other frontier buffer (`loops_compact_level`), which also counts the next
/// frontier's size on the device and keeps the run's statistics there. The step is given the
/// current frontier buffer with its length set to its *capacity* (the loop's vertices); a kernel
/// launched over it with `g.tiles_in(frontier)` reads the frontier's size from the device
/// (`loops_list_len`, [`kernels_gen::abi::Hidden::ListLen`]) and is launched with a grid that does
/// not depend on it. Only the schedules whose tile loop is grid-stride can do that: `thread`,
/// `group`, `warp`, `block`, and `auto`, which then runs the one of its thread and group
/// candidates that its model ranks first for the whole graph (the same at every level); any other
/// schedule's launch over the frontier is refused with [`LoopsError::DeviceLoop`] naming it.
///
/// A run: the first level is launched as usual (it compiles the kernels and sizes every area the
/// launches use, so that nothing is compiled or allocated later); then the launches of
/// [`DeviceFrontierLoop::set_levels_per_replay`] levels (48 by default) are recorded once by
/// stream capture into a CUDA graph, replayed, and after each replay the host reads the state back
/// once (32 bytes): the frontier's size, the levels run and the statistics. Levels after the one
/// whose frontier is empty find size 0 and return at once. Near the iteration limit the remaining
/// levels are launched one by one, so that a run stops with [`LoopsError::NoConvergence`] after
/// exactly `max_iterations` levels, as [`super::FrontierLoop`] does.
///
/// The step is called once per level outside the graph and once per level of the recorded replay,
/// with the buffers of that level, and must queue the same work each time: stream-ordered work on
/// `gpu` only (launches of kernels under the schedules above, fills, copies between device
/// buffers), nothing that waits for the GPU or allocates, and no buffer of another handle
/// (its stream would have to be waited for). It must not depend on the level as a host number:
/// the level it runs is in the device buffer it is given (element 0, counting from 0). Checked
/// mode cannot run here (a checked launch waits for its kernel): asked for by `LOOPS_CHECKED=1` or
/// [`crate::launch::set_checked_mode`], a launch over the frontier is refused; by default (a debug
/// build) the plain variants run.
pub struct DeviceFrontierLoop {
    vertices: usize,
    frontiers: [DeviceBuffer<u32>; 2],
    flags: DeviceBuffer<u32>,
    /// The device state ([`STATE_SLOTS`]).
    state: DeviceBuffer<u32>,
    /// The level the next step runs (element 0), written by each compaction.
    level: DeviceBuffer<u32>,
    compact: CudaFunction,
    max_iterations: Option<u64>,
    levels_per_replay: usize,
}

/// Clears the device list of a handle when the step that needed it returns, or fails.
struct DeviceListSet<'g> {
    gpu: &'g Gpu,
    previous: Option<DeviceList>,
}

impl<'g> DeviceListSet<'g> {
    fn new(gpu: &'g Gpu, list: DeviceList) -> Self {
        let previous = gpu.set_device_list(Some(list));
        DeviceListSet { gpu, previous }
    }
}

impl Drop for DeviceListSet<'_> {
    fn drop(&mut self) {
        self.gpu.set_device_list(self.previous);
    }
}

impl DeviceFrontierLoop {
    /// Buffers for graphs of up to `vertices` vertices; compiles (once per process, or reads from
    /// the disk cache) the compaction kernel.
    pub fn new(gpu: &Gpu, vertices: usize) -> Result<DeviceFrontierLoop> {
        if vertices > i32::MAX as usize {
            return Err(LoopsError::InvalidGraph {
                detail: format!("{vertices} vertices: a frontier holds at most i32::MAX"),
            });
        }
        Ok(DeviceFrontierLoop {
            vertices,
            frontiers: [gpu.zeros(vertices)?, gpu.zeros(vertices)?],
            flags: gpu.zeros(vertices)?,
            state: gpu.zeros(STATE_SLOTS)?,
            level: gpu.zeros(1)?,
            compact: gpu.function("loops_compact_flags", COMPACT_SOURCE, "loops_compact_level")?,
            max_iterations: None,
            levels_per_replay: DEFAULT_LEVELS_PER_REPLAY,
        })
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

    /// The levels recorded in one replay: `levels` rounded up to a multiple of 6 (at least 6).
    pub fn set_levels_per_replay(&mut self, levels: usize) {
        self.levels_per_replay = levels.max(1).div_ceil(LEVEL_PERIOD) * LEVEL_PERIOD;
    }

    /// The levels recorded in one replay.
    pub fn levels_per_replay(&self) -> usize {
        self.levels_per_replay
    }

    /// Runs `step` from the frontier `sources` until a frontier is empty. `step(gpu, frontier,
    /// next_flags, level)` must set `next_flags[u]` to a non-zero value for each vertex `u` of the
    /// next frontier and touch no other element of the flags, as for [`super::FrontierLoop::run`];
    /// `frontier.len()` is the loop's vertices, the frontier's size is on the device (see the type's
    /// documentation for what the step may do), and `level` holds the level's number, from 0. The
    /// sources are taken as given. Errors if a source is not a vertex.
    pub fn run<F>(&mut self, gpu: &Gpu, sources: &[u32], mut step: F) -> Result<LoopStats>
    where
        F: FnMut(
            &Gpu,
            &DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &DeviceBuffer<u32>,
        ) -> Result<()>,
    {
        let n = self.vertices;
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
        if sources.is_empty() {
            return Ok(LoopStats::default());
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
        // A run that failed half-way may have left flags set.
        gpu.fill(&mut self.flags, 0)?;
        gpu.write_at(&mut self.frontiers[0], 0, sources)?;
        let mut state = [0u32; STATE_SLOTS];
        state[0] = sources.len() as u32;
        gpu.write_at(&mut self.state, 0, &state)?;
        gpu.write_at(&mut self.level, 0, &[0])?;
        let max = self.max_iterations.unwrap_or(n as u64 + 1);
        let per_replay = self.levels_per_replay as u64;
        let mut graph: Option<CudaGraph> = None;
        let mut issued = 0u64;
        let mut size = sources.len();
        let mut stats = LoopStats::default();
        while size != 0 {
            if issued >= max {
                return Err(LoopsError::NoConvergence {
                    iterations: issued,
                    frontier: size,
                });
            }
            // The first level outside the graph (it compiles and sizes what the launches need),
            // and the levels just before the limit one at a time.
            if issued == 0 || max - issued < per_replay {
                self.level(gpu, issued, false, &mut step)?;
                issued += 1;
            } else {
                if graph.is_none() {
                    graph = Some(self.record(gpu, issued, &mut step)?);
                }
                let replay = graph.as_ref().expect("recorded above");
                replay.launch().map_err(LoopsError::driver(format!(
                    "replaying {per_replay} levels of the device frontier loop"
                )))?;
                issued += per_replay;
            }
            let state = gpu.download(&self.state)?;
            size = state[(issued % 3) as usize] as usize;
            if size > n {
                return Err(LoopsError::InvalidGraph {
                    detail: format!("the compaction counted {size} vertices of {n}"),
                });
            }
            stats = LoopStats {
                iterations: state[LEVELS_SLOT],
                frontier_vertices: (state[5] as u64) << 32 | state[4] as u64,
                max_frontier: state[6] as usize,
            };
        }
        Ok(stats)
    }

    /// Records [`Self::levels_per_replay`] levels from level `first` into a CUDA graph (by
    /// capturing the handle's stream); the capture is ended whatever happens.
    fn record<F>(&mut self, gpu: &Gpu, first: u64, step: &mut F) -> Result<CudaGraph>
    where
        F: FnMut(
            &Gpu,
            &DeviceBuffer<u32>,
            &mut DeviceBuffer<u32>,
            &DeviceBuffer<u32>,
        ) -> Result<()>,
    {
        let what = "recording the levels of the device frontier loop (stream capture)";
        let stream = gpu.stream();
        // Thread-local: another thread's work on its own handles is not affected by this capture.
        stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(LoopsError::driver(what))?;
        let mut queued = Ok(());
        for level in first..first + self.levels_per_replay as u64 {
            queued = self.level(gpu, level, true, step);
            if queued.is_err() {
                break;
            }
        }
        let ended = stream.end_capture(CUgraphInstantiate_flags(0));
        queued?;
        ended
            .map_err(LoopsError::driver(what))?
            .ok_or_else(|| LoopsError::Driver {
                context: format!("{what}: the capture recorded no graph"),
                source: cudarc::driver::DriverError(
                    cudarc::driver::sys::CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                ),
            })
    }

    /// Queues level `level`: the step over the frontier of its parity, then its compaction into
    /// the other. `capturing`: the stream is being recorded, so the launches must not wait for it.
    fn level<F>(&mut self, gpu: &Gpu, level: u64, capturing: bool, step: &mut F) -> Result<()>
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
        {
            let frontier = &self.frontiers[current];
            let size_at = self.state.device_ptr() + 4 * slot(0) as u64;
            let _set = DeviceListSet::new(
                gpu,
                DeviceList {
                    list: frontier.device_ptr(),
                    len: size_at,
                    capturing,
                },
            );
            step(gpu, frontier, &mut self.flags, &self.level)?;
        }
        let ptr = Param::Ptr {
            ty: "unsigned int",
            mutable: true,
        };
        let mut args = KernelArgs::new();
        args.push_buffer(&self.flags, ptr);
        args.scalar(n as u32);
        args.push_buffer(&self.frontiers[next], ptr);
        args.push_buffer(&self.state, ptr);
        args.scalar(slot(0));
        args.scalar(slot(1));
        args.scalar(slot(2));
        args.push_buffer(&self.level, ptr);
        gpu.launch_function(
            "loops_compact_level",
            &self.compact,
            compact_dims(gpu, n),
            args,
        )
    }
}
