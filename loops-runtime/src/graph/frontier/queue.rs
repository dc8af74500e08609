//! The device queue levels ([`LoopOn::DeviceQueue`]): the step appends its next frontier itself,
//! one launch a level, between a kernel before and one after each batch (`loops_queue_begin`,
//! `loops_queue_end` in `compact.cuh`).

use kernels_gen::schedule::LaunchDims;

use super::replay::{replay_levels, LevelsOnDevice, DIRECT_BATCH};
#[allow(unused_imports)] // the docs' links
use super::LoopOn;
use super::{stats_of, FrontierLoop, FrontierStep, Level, LoopStats, Next};
use crate::device::{DeviceBuffer, DeviceList, Gpu};
use crate::error::{LoopsError, Result};
use crate::graph::COMPACT_SOURCE;
use crate::launch::{KernelArgs, Param};

/// A queue level's [`Next`] and [`Level`]: its next frontier, the count it appends to, its number.
fn queue_args<'a>(
    next: &'a mut DeviceBuffer<u32>,
    size: &'a mut DeviceBuffer<u32>,
    level: &'a DeviceBuffer<u32>,
) -> (Next<'a>, Level<'a>) {
    let level = Level {
        number: None,
        device: level,
    };
    (Next::Queue { next, size }, level)
}

impl FrontierLoop {
    /// Runs `step` from the frontier `sources` until a frontier is empty, the step appending the
    /// next frontier itself: one launch a level, no compaction. `step(gpu, frontier, next,
    /// next_size, level)` must append each vertex `u` of the next frontier once, at the index
    /// `atomic_add(&mut next_size[0], 1)` returns, where that index is below `next.len()` (the
    /// loop's vertices): `if slot < next.len() { next[slot] = u; }`. A step that appends a vertex
    /// only when it lowers it from "unreached" (BFS: `atomic_min` returned `UNREACHED`) appends
    /// each vertex at most once a run. A step that may append a vertex twice in a level
    /// (Bellman-Ford SSSP, which may lower a distance twice) belongs in a flag run
    /// ([`LoopOn::DeviceScan`], [`LoopOn::DevicePush`]), whose flags hold each vertex once. A count past `next.len()` (vertices
    /// the step could not write) ends the run with [`LoopsError::InvalidGraph`] after the replay
    /// it happened in. `frontier.len()` is the loop's vertices, its size is on the device, `level`
    /// holds the level's number, from 0; what the step may queue is as for a flag run.
    ///
    /// Levels run in batches, as a flag run's, but the first batch is 6 levels launched
    /// directly, the first level among them (a BFS of a power-law graph runs 4 to 8 levels: one
    /// read-back less), then recorded replays; where large frontiers run alone
    /// ([`Self::set_host_sized_from`]) and the loop has that many vertices, the first level runs
    /// alone instead, and so does each direct level whose frontier is that large.
    /// A kernel before each batch (`loops_queue_begin`) sets the batch's counts, one buffer per
    /// level of it, and numbers its levels; one after it (`loops_queue_end`) adds the batch's
    /// frontiers to the statistics and carries the last count to the next batch. No kernel runs
    /// between two steps.
    pub(super) fn run_queue<F: FrontierStep>(
        &mut self,
        gpu: &Gpu,
        sources: &[u32],
        mut step: F,
    ) -> Result<LoopStats> {
        if !self.prepare_queue(gpu, sources)? {
            return Ok(LoopStats::default());
        }
        let per_replay = self.levels_per_replay;
        let max = self.max_levels();
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
    pub(super) fn prepare_queue(&mut self, gpu: &Gpu, sources: &[u32]) -> Result<bool> {
        self.prepare(gpu, sources, false)?;
        if sources.is_empty() {
            self.walked_levels = 0;
            return Ok(false);
        }
        self.prepare_queue_buffers(gpu)?;
        Ok(true)
    }

    /// The batch buffers and kernels of a queue run (made by the first), and no level walked.
    pub(super) fn prepare_queue_buffers(&mut self, gpu: &Gpu) -> Result<()> {
        self.walked_levels = 0;
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
        Ok(())
    }

    /// Grows the queue run's batch buffers to batches of `levels` levels; true if they moved
    /// (made anew).
    pub(super) fn reserve_queue(&mut self, gpu: &Gpu, levels: u64) -> Result<bool> {
        if self
            .queue
            .as_ref()
            .is_none_or(|q| (q.batch as u64) < levels)
        {
            self.queue = Some(QueueBuffers::new(gpu, levels as usize)?);
            return Ok(true);
        }
        Ok(false)
    }
}

/// Where a queue run's device state holds the largest count past a frontier's capacity.
const OVERFLOW_SLOT: usize = 7;

/// A queue run's one-element buffers ([`LoopOn::DeviceQueue`]), for batches of up to
/// `batch` levels: level `i` of a batch runs the frontier of `counts[i]` vertices, appends to the
/// count `counts[i + 1]` and is numbered by `levels[i]`; `count_ptrs` and `level_ptrs` hold their
/// addresses for the kernels before and after a batch (`loops_queue_begin`, `loops_queue_end` in
/// compact.cuh). One element each, not one buffer for all, because a step is given them as
/// buffers whose element 0 is the one it uses.
pub(super) struct QueueBuffers {
    batch: usize,
    pub(super) counts: Vec<DeviceBuffer<u32>>,
    pub(super) levels: Vec<DeviceBuffer<u32>>,
    pub(super) count_ptrs: DeviceBuffer<u64>,
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

/// The levels of a run of [`LoopOn::DeviceQueue`]: one launch each, the step's, between
/// the kernels before and after each batch.
struct QueueLevels<'a, F> {
    lp: &'a mut FrontierLoop,
    step: &'a mut F,
    /// The first level of the batch being queued.
    batch_first: u64,
    /// The levels of that batch.
    batch_count: u64,
    /// The run's sources (the first frontier's size).
    sources: usize,
    /// The size of the frontier of the level the next batch runs alone, sized on the host (see
    /// [`FrontierLoop::set_host_sized_from`]); `None`: the batch's levels are sized on
    /// the device.
    alone: Option<usize>,
    stats: LoopStats,
}

/// Launches `loops_queue_begin` or `loops_queue_end` (`begin`) over a batch of `count` levels of
/// `lp`'s queue run.
pub(super) fn queue_batch_kernel(
    lp: &FrontierLoop,
    gpu: &Gpu,
    begin: bool,
    count: u64,
    capturing: bool,
) -> Result<()> {
    // In the loop's context with no list: only so that the launch does not wait for a stream
    // being recorded.
    let gpu = &gpu.in_device_loop(DeviceList::none(capturing));
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

impl<F: FrontierStep> LevelsOnDevice for QueueLevels<'_, F> {
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
            let (next, level) = queue_args(next, &mut appended[0], &q.levels[i]);
            let ran = (self.step)(gpu, current, next, level);
            current.set_len(capacity);
            return ran;
        }
        let gpu = &gpu.in_device_loop(DeviceList {
            list: current.device_ptr(),
            len: counts[i].device_ptr(),
            capturing,
            blocks: lp.step_blocks,
        });
        let (next, level) = queue_args(next, &mut appended[0], &q.levels[i]);
        (self.step)(gpu, current, next, level)
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
        self.lp.reserve_queue(gpu, levels).map(|_| ())
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
/// ([`FrontierLoop::set_host_sized_from`]; `None`: never), a frontier that large; and the
/// first level (of `sources` vertices) where the loop has that many vertices, so that the
/// read-back after it says whether the next one is large (a loop of fewer vertices runs a whole
/// first batch, with no read-back between its levels).
pub(super) fn runs_alone(
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
pub(super) fn queue_read_back(lp: &FrontierLoop, gpu: &Gpu) -> Result<(LoopStats, Option<usize>)> {
    let (stats, size, _) = queue_read_back_state(lp, gpu)?;
    Ok((stats, size))
}

/// [`queue_read_back`], and the whole state read back (a direction-optimizing run's report is in
/// its unused slots).
pub(super) fn queue_read_back_state(
    lp: &FrontierLoop,
    gpu: &Gpu,
) -> Result<(LoopStats, Option<usize>, Vec<u32>)> {
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
    Ok((stats_of(&state), (size != 0).then_some(size), state))
}
