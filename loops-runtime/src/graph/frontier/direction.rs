//! [`FrontierLoop::run_directed`]: the queue run of a direction-optimizing BFS, each level's
//! direction chosen on the device by Beamer's rule (`loops_do_decide` in `compact.cuh`;
//! [`direction_model`] is that kernel on the CPU), but in push-only batches far from the switch,
//! whose levels are the push step's one launch (`loops_do_fold`; [`directed_run_model`] is the
//! whole run's choice on the CPU). After every batch `loops_do_report` copies what the host needs
//! to choose the next batch into the loop's state, so that a batch costs the one read-back a
//! plain queue run's does.

use cudarc::driver::CudaFunction;
use kernels_gen::schedule::LaunchDims;

use super::queue::{queue_batch_kernel, queue_read_back_state};
use super::replay::{replay_levels_kept, LevelsOnDevice, Recorded, DIRECT_BATCH};
use super::{FrontierLoop, LoopStats, DEGREE_SLOTS, STATE_SLOTS};
use crate::device::{DeviceBuffer, DeviceList, Gpu};
use crate::error::{LoopsError, Result};
use crate::graph::COMPACT_SOURCE;
use crate::launch::{KernelArgs, Param};

mod model;
pub use model::{directed_run_model, direction_model, DirectionState};
use model::{large, push_only_next, Report};

/// The push step of [`FrontierLoop::run_directed`]: `push(gpu, frontier, next, next_size, level,
/// edges)`, a queue step that, given `Some(edges)`, also adds the out-degrees of the vertices it
/// appends to `edges[0]` (a level that decides), and with `None` counts nothing (a level of a
/// push-only batch: a plain push level).
pub trait DirectedPush:
    FnMut(
    &Gpu,
    &DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
    &DeviceBuffer<u32>,
    Option<&mut DeviceBuffer<u32>>,
) -> Result<()>
{
}
impl<T> DirectedPush for T where
    T: FnMut(
        &Gpu,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        Option<&mut DeviceBuffer<u32>>,
    ) -> Result<()>
{
}

/// The pull step of [`FrontierLoop::run_directed`]: `pull(gpu, vertices, next, next_size,
/// level, rest, rest_size)`, over the pull list `vertices` (at first every vertex, then the
/// vertices the last pull left), appending each unreached vertex it reaches to `next` and each
/// it leaves unreached (but those without edges, which nothing reaches) to `rest` at
/// `rest_size[0]`: the next pull's list.
pub trait DirectedPull:
    FnMut(
    &Gpu,
    &DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
    &DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
    &mut DeviceBuffer<u32>,
) -> Result<()>
{
}
impl<T> DirectedPull for T where
    T: FnMut(
        &Gpu,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
        &mut DeviceBuffer<u32>,
    ) -> Result<()>
{
}

/// The device side of a direction-optimizing run: the decision's state (see `loops_do_decide`),
/// the push steps' edge count, the two launches' lengths and the pull list's, the rest of each
/// pull (`loops_do_rest`), their start (`loops_do_start`), the fold of push-only batches
/// (`loops_do_fold`) and the report after every batch (`loops_do_report`).
pub(super) struct DirectedBuffers {
    state: DeviceBuffer<u32>,
    edges: DeviceBuffer<u32>,
    /// `[0]` the push launch's length, `[1]` the pull launch's, `[2]` the pull list's.
    lens: DeviceBuffer<u32>,
    /// The vertices a pull left unreached (with edges), and their number: the next pull's list
    /// (`loops_do_rest`).
    rest: DeviceBuffer<u32>,
    rest_size: DeviceBuffer<u32>,
    start: CudaFunction,
    decide: CudaFunction,
    rest_copy: CudaFunction,
    fold: CudaFunction,
    report: CudaFunction,
    /// The batches recorded by the runs of `key` ([`FrontierLoop::run_directed_kept`]).
    recorded: Recorded,
    /// The key of the runs whose launches `recorded` holds (`None`: none kept).
    key: Option<Vec<u64>>,
    /// Whether the last run ran push-only batches (the plain push step, which writes no parent).
    pushed_only: bool,
    /// The batches the last run launched as recorded graphs.
    replayed: u64,
}

impl DirectedBuffers {
    /// Forgets the recorded batches (the loop's launches changed: its buffers or options).
    pub(super) fn forget(&mut self) {
        self.recorded.clear();
        self.key = None;
    }
}

/// Where `loops_do_report` leaves its report in the loop's state (slots a queue run does not
/// use): the last direction and the rule's nearness, the misses, the pull levels.
const REPORT_SLOTS: usize = 8;

/// The choice of a direction-optimizing run: the graph's vertices and edges, Beamer's `alpha`
/// and `beta`.
#[derive(Clone, Copy)]
struct Rule {
    vertices: u32,
    edges: u64,
    alpha: u64,
    beta: u64,
}

/// The levels of a direction-optimizing queue run: each the decision, the pull step and the push
/// step, between the queue run's kernels before and after each batch.
struct DirectedLevels<'a, P, Q> {
    lp: &'a mut FrontierLoop,
    vertices: &'a DeviceBuffer<u32>,
    push: &'a mut P,
    pull: &'a mut Q,
    rule: Rule,
    batch_first: u64,
    batch_count: u64,
    stats: LoopStats,
    /// Whether the batch being queued pushes without decisions ([`push_only_next`]).
    push_only: bool,
    /// The levels that pushed where the rule would have pulled, by the last read-back.
    missed: u32,
    /// The pull levels, by the last read-back.
    pulls: u32,
    /// Whether a push-only batch ran, by the last read-back.
    pushed_only: bool,
    /// The run's iteration limit (the first level's batch is followed by a read-back only there).
    max: u64,
}

/// The launch of the one-thread kernels of a direction-optimizing run (a warp, one thread of which
/// works).
const ONE_THREAD: LaunchDims = LaunchDims {
    grid: 1,
    block: 32,
    shared_bytes: 0,
};

/// Launches `loops_do_report` after a batch: the rule's state in the loop's state, read back with
/// it.
fn report_kernel(lp: &FrontierLoop, gpu: &Gpu, alpha: u64, capturing: bool) -> Result<()> {
    let gpu = &gpu.in_device_loop(DeviceList::none(capturing));
    let d = lp.directed.as_ref().expect("made by run_directed");
    let args = crate::graph::loops_do_report::args(&d.state, &d.edges, &lp.state, alpha);
    gpu.launch_function_with(
        "loops_do_report",
        &d.report,
        ONE_THREAD,
        args,
        gpu.programmatic_launch(),
    )
}

/// Launches `loops_do_fold` after a push-only batch of `count` levels, and with `report` the
/// report `loops_do_report` would write after it (in the same launch).
fn fold_kernel(
    lp: &FrontierLoop,
    gpu: &Gpu,
    count: u64,
    rule: Rule,
    report: bool,
    capturing: bool,
) -> Result<()> {
    let gpu = &gpu.in_device_loop(DeviceList::none(capturing));
    let q = lp.queue.as_ref().expect("made by run_directed");
    let d = lp.directed.as_ref().expect("made by run_directed");
    let read = |ty| Param::Ptr { ty, mutable: false };
    let write = |ty| Param::Ptr { ty, mutable: true };
    let mut args = KernelArgs::new();
    args.push_buffer(&q.count_ptrs, read("unsigned int*"));
    args.scalar(count as u32);
    args.push_buffer(&d.state, write("unsigned int"));
    args.push_buffer(&d.edges, write("unsigned int"));
    args.scalar(rule.alpha);
    args.scalar(rule.beta);
    args.scalar(rule.vertices);
    args.scalar(rule.edges);
    if report {
        args.push_buffer(&lp.state, write("unsigned int"));
    } else {
        args.push_foreign_ptr(0, None, write("unsigned int"));
    }
    gpu.launch_function_with(
        "loops_do_fold",
        &d.fold,
        ONE_THREAD,
        args,
        gpu.programmatic_launch(),
    )
}

impl<P: DirectedPush, Q: DirectedPull> LevelsOnDevice for DirectedLevels<'_, P, Q> {
    fn begin_batch(&mut self, gpu: &Gpu, first: u64, count: u64, capturing: bool) -> Result<()> {
        (self.batch_first, self.batch_count) = (first, count);
        queue_batch_kernel(self.lp, gpu, true, count, capturing)
    }

    fn queue_level(&mut self, gpu: &Gpu, level: u64, capturing: bool) -> Result<()> {
        if self.push_only || level == 0 {
            // The source's level pushes: no decision (`loops_do_start` left the state as the
            // decision would: a push, nothing found, the edges counted from 0), no pull launch.
            return self.push_level(gpu, level, capturing);
        }
        let i = (level - self.batch_first) as usize;
        let FrontierLoop {
            frontiers,
            queue,
            directed,
            step_blocks,
            resident_warps,
            ..
        } = &mut *self.lp;
        let q = queue.as_mut().expect("made by run_directed");
        let d = directed.as_mut().expect("made by run_directed");
        let [even, odd] = frontiers;
        let (current, next) = if level.is_multiple_of(2) {
            (&*even, odd)
        } else {
            (&*odd, even)
        };
        let (counts, appended) = q.counts.split_at_mut(i + 1);
        let context = |list: &DeviceBuffer<u32>, len: u64| DeviceList {
            list: list.device_ptr(),
            len,
            capturing,
            blocks: *step_blocks,
        };
        // The decision, one thread, in the loop's context over no list (so that it does not wait
        // for a stream being recorded).
        let args = crate::graph::loops_do_decide::args(
            &counts[i],
            &d.state,
            &d.edges,
            &d.lens,
            &d.rest_size,
            self.rule.vertices,
            self.rule.alpha,
            self.rule.beta,
        );
        let plain = gpu.in_device_loop(DeviceList::none(capturing));
        plain.launch_function_with(
            "loops_do_decide",
            &d.decide,
            ONE_THREAD,
            args,
            plain.programmatic_launch(),
        )?;
        // The pull step over the pull list (length `lens[1]`), its rest made the next pull's
        // list, then the push step over the frontier (length `lens[0]`): one of the steps runs,
        // the other finds a length of 0 (and the rest's copy does nothing after a push).
        let lens = d.lens.device_ptr();
        let pull_gpu = gpu.in_device_loop(context(self.vertices, lens + 4));
        (self.pull)(
            &pull_gpu,
            self.vertices,
            next,
            &mut appended[0],
            &q.levels[i],
            &mut d.rest,
            &mut d.rest_size,
        )?;
        let args = crate::graph::loops_do_rest::args(&d.lens, &d.rest, &d.rest_size, self.vertices);
        // A quarter of a wave: the rest is a few thousand vertices after a power-law graph's first
        // pull, and nothing at a level that pushed, where the blocks return at once.
        let blocks = (*resident_warps / 32).clamp(1, u32::MAX as u64) as u32;
        plain.launch_function_with(
            "loops_do_rest",
            &d.rest_copy,
            LaunchDims {
                grid: blocks,
                block: 256,
                shared_bytes: 0,
            },
            args,
            plain.programmatic_launch(),
        )?;
        let push_gpu = gpu.in_device_loop(context(current, lens));
        (self.push)(
            &push_gpu,
            current,
            next,
            &mut appended[0],
            &q.levels[i],
            Some(&mut d.edges),
        )
    }

    fn end_batch(&mut self, gpu: &Gpu, capturing: bool) -> Result<()> {
        // The first level's batch is read back only at the iteration limit.
        let end = self.batch_first + self.batch_count;
        let report = self.read_back_after(end) || end >= self.max;
        if self.push_only {
            fold_kernel(self.lp, gpu, self.batch_count, self.rule, report, capturing)?;
        } else if report {
            report_kernel(self.lp, gpu, self.rule.alpha, capturing)?;
        }
        queue_batch_kernel(self.lp, gpu, false, self.batch_count, capturing)
    }

    /// The first level alone (the source: no decision, no pull launch), then batches of
    /// [`DIRECT_BATCH`] levels from level 1, which a repeated run replays from its recording
    /// ([`FrontierLoop::run_directed_kept`]).
    fn direct_batch(&mut self, issued: u64, _frontier: usize) -> u64 {
        if issued == 0 {
            1
        } else {
            DIRECT_BATCH
        }
    }

    /// Not after the first level: the source's frontier never ends the run there, and the next
    /// batch may queue behind it.
    fn read_back_after(&self, issued: u64) -> bool {
        issued != 1
    }

    fn reserve(&mut self, gpu: &Gpu, levels: u64) -> Result<()> {
        // A run that keeps its recordings reserved its replays' room first: nothing moves here.
        self.lp.reserve_queue(gpu, levels).map(|_| ())
    }

    fn variant(&self) -> usize {
        self.push_only as usize
    }

    fn read_back(&mut self, gpu: &Gpu, issued: u64) -> Result<Option<usize>> {
        // The loop's state, `loops_do_report`'s slots among them: one read-back a batch, as a
        // plain queue run's.
        let (stats, size, state) = queue_read_back_state(self.lp, gpu)?;
        self.stats = stats;
        // The batch just read back ran push-only (as `push_only` says until it is chosen anew
        // below); every batch since the last read-back did the same (only the first level's
        // batch is not read back, and it pushes only where every batch does).
        self.pushed_only |= self.push_only;
        let slots = &state[REPORT_SLOTS..REPORT_SLOTS + 3];
        let report = Report {
            last_pull: slots[0] & 1 != 0,
            near: slots[0] & 2 != 0,
            missed: slots[1] != self.missed,
        };
        (self.missed, self.pulls) = (slots[1], slots[2]);
        if let Some(next) = size {
            let rule = self.rule;
            let large_next = large(next as u64, rule.vertices, rule.beta);
            self.push_only = push_only_next(report, large_next, issued, rule.alpha);
        }
        Ok(size)
    }
}

impl<P: DirectedPush, Q> DirectedLevels<'_, P, Q> {
    /// A level of a push-only batch: the push step alone over the frontier, its size on the
    /// device, as a queue run's level, counting no edges (`loops_do_fold` estimates them after
    /// the batch); or the first level of a run that decides, which counts them.
    fn push_level(&mut self, gpu: &Gpu, level: u64, capturing: bool) -> Result<()> {
        let i = (level - self.batch_first) as usize;
        let FrontierLoop {
            frontiers,
            queue,
            step_blocks,
            directed,
            ..
        } = &mut *self.lp;
        let q = queue.as_mut().expect("made by run_directed");
        let [even, odd] = frontiers;
        let (current, next) = if level.is_multiple_of(2) {
            (&*even, odd)
        } else {
            (&*odd, even)
        };
        let (counts, appended) = q.counts.split_at_mut(i + 1);
        let gpu = &gpu.in_device_loop(DeviceList {
            list: current.device_ptr(),
            len: counts[i].device_ptr(),
            capturing,
            blocks: *step_blocks,
        });
        // A run that decides counts the first level's found edges for the decision after it.
        let edges = match directed {
            Some(d) if !self.push_only => Some(&mut d.edges),
            _ => None,
        };
        (self.push)(gpu, current, next, &mut appended[0], &q.levels[i], edges)
    }
}

impl FrontierLoop {
    /// A direction-optimizing BFS from `source` on a graph of `vertices.len()` vertices (at most
    /// the loop's) and `graph_edges` edges, its levels run as a
    /// [`LoopOn::DeviceQueue`](super::LoopOn::DeviceQueue) run's (recorded, replayed, the state
    /// read back once per replay). A level that decides is four launches: the choice of its
    /// direction on the device by Beamer's rule with `alpha` and `beta` ([`direction_model`]),
    /// then `pull(gpu, vertices, next, next_size, level, rest, rest_size)`, `loops_do_rest`
    /// (after a pull, its rest becomes the pull list) and `push(gpu, frontier, next, next_size,
    /// level, Some(edges))`, of which one step goes over its list and the other over a list the
    /// device says is empty; the first level pushes alone (one launch, no decision), not
    /// read back before the next batch (6 levels). Past them, a batch, direct or replayed,
    /// that the last read-back finds far from the switch or on a small frontier
    /// (`push_only_next`; every batch, for `alpha` 0) is push-only: each level `push(..., None)`
    /// alone, one launch, as a plain queue level, and `loops_do_fold` after the batch brings the
    /// rule's state up to date ([`directed_run_model`] is the whole run's choice on the CPU);
    /// after every batch `loops_do_report` leaves the rule's report in the loop's state, read
    /// back with it (one read-back a batch, as a plain queue run's).
    /// `push` is a queue step ([`DirectedPush`]) that, given the edges, adds the out-degrees of
    /// the vertices it appends to `edges[0]`; `pull` ([`DirectedPull`]) goes over `vertices`,
    /// which must hold the ids `0..vertices.len()` in some order when the run starts (given to
    /// the step with their number on the device), appends each unreached vertex it reaches, as a
    /// queue step does, and each unreached vertex with edges it leaves to the rest; after each
    /// pull, `loops_do_rest` copies the rest into `vertices` as the next pull's list (the run
    /// leaves `vertices` so: a caller rewrites it before the next run). Both launch over their
    /// list with `g.tiles_in(list)` under a schedule that takes its length from the device. The
    /// first level pushes. Returns the run's statistics, its pull levels among them. Errors if
    /// `source` is not a vertex, the graph is larger than the loop or has `u32::MAX` edges or
    /// more (the device counts a level's edges in 32 bits).
    #[allow(clippy::too_many_arguments)]
    pub fn run_directed<P: DirectedPush, Q: DirectedPull>(
        &mut self,
        gpu: &Gpu,
        vertices: &mut DeviceBuffer<u32>,
        graph_edges: usize,
        source: u32,
        switch: (u64, u64),
        push: P,
        pull: Q,
    ) -> Result<LoopStats> {
        self.run_directed_kept(gpu, vertices, graph_edges, source, switch, None, push, pull)
    }

    /// [`Self::run_directed`], keeping what the run records for the next run of the same `key`:
    /// the caller's promise that `push` and `pull` queue the same launches (the same kernels,
    /// schedules and buffers) in every run of that key, whatever the source (a BFS's key holds
    /// the addresses of its graph, levels and parents, its schedules and switch). A run whose key
    /// is the last run's replays the batches that run recorded, and records each batch of 6
    /// levels the second time it comes (a direct batch past the first level: the one launch of a
    /// CUDA graph instead of up to 20 kernels'), so from the third run of a key on, a run's
    /// levels past the first are recorded graphs. `None` keeps nothing (as `run_directed`). A
    /// change of the loop's options ([`Self::set_step_blocks`],
    /// [`Self::set_levels_per_replay`]) or of its queue buffers forgets the recordings.
    #[allow(clippy::too_many_arguments)]
    pub fn run_directed_kept<P: DirectedPush, Q: DirectedPull>(
        &mut self,
        gpu: &Gpu,
        vertices: &mut DeviceBuffer<u32>,
        graph_edges: usize,
        source: u32,
        (alpha, beta): (u64, u64),
        key: Option<&[u64]>,
        mut push: P,
        mut pull: Q,
    ) -> Result<LoopStats> {
        let invalid = |detail: String| Err(LoopsError::InvalidGraph { detail });
        let graph_vertices = vertices.len();
        if graph_vertices > self.vertices {
            return invalid(format!(
                "a graph of {graph_vertices} vertices in a device frontier loop made for {}",
                self.vertices
            ));
        }
        if source as usize >= graph_vertices {
            return invalid(format!(
                "source {source} of a graph of {graph_vertices} vertices"
            ));
        }
        if graph_edges >= u32::MAX as usize {
            return invalid(format!(
                "{graph_edges} edges: a level's edges are counted in 32 bits"
            ));
        }
        if self.directed.is_none() {
            let compile = |entry| gpu.function("loops_compact_flags", COMPACT_SOURCE, entry);
            // Not zeroed: `loops_do_start` writes them all before each run.
            self.directed = Some(DirectedBuffers {
                state: gpu.uninit(6)?,
                edges: gpu.uninit(1)?,
                lens: gpu.uninit(3)?,
                rest: gpu.uninit(self.vertices.max(1))?,
                rest_size: gpu.uninit(1)?,
                start: compile("loops_do_start")?,
                decide: compile("loops_do_decide")?,
                rest_copy: compile("loops_do_rest")?,
                fold: compile("loops_do_fold")?,
                report: compile("loops_do_report")?,
                recorded: Recorded::default(),
                key: None,
                pushed_only: false,
                replayed: 0,
            });
        }
        self.check_handle(gpu)?;
        let per_replay = self.levels_per_replay as u64;
        // A run that keeps its recordings makes room for its replays first: its recordings
        // hold the queue buffers' addresses.
        if key.is_some() && self.reserve_queue(gpu, per_replay)? {
            self.directed.as_mut().expect("made above").forget();
        }
        self.prepare_queue_buffers(gpu)?;
        let key = key.map(|k| {
            let mut full = k.to_vec();
            full.extend([
                graph_vertices as u64,
                graph_edges as u64,
                alpha,
                beta,
                per_replay,
                vertices.device_ptr(),
                self.step_blocks.map_or(u64::MAX, u64::from),
            ]);
            full
        });
        let d = self.directed.as_mut().expect("made above");
        let repeat = key.is_some() && d.key == key;
        let mut kept = std::mem::take(&mut d.recorded);
        if !repeat {
            kept.clear();
            d.key = key.clone();
        }
        let d = self.directed.as_ref().expect("made above");
        let unexplored = DirectionState::start(graph_edges as u64).unexplored;
        // The decision's state and the queue run's start (the source as its first frontier).
        let args = crate::graph::loops_do_start::args(
            &d.state,
            &d.edges,
            &d.lens,
            unexplored,
            &self.frontiers[0],
            &self.state,
            STATE_SLOTS as u32,
            DEGREE_SLOTS as u32,
            &self.level,
            source,
            graph_vertices as u32,
        );
        gpu.launch_function_with(
            "loops_do_start",
            &d.start,
            ONE_THREAD,
            args,
            gpu.programmatic_launch(),
        )?;
        let max = self.max_iterations.unwrap_or(self.vertices as u64 + 1);
        let mut levels = DirectedLevels {
            lp: self,
            vertices,
            push: &mut push,
            pull: &mut pull,
            rule: Rule {
                vertices: graph_vertices as u32,
                edges: graph_edges as u64,
                alpha,
                beta,
            },
            batch_first: 0,
            batch_count: 0,
            stats: LoopStats::default(),
            push_only: push_only_next(Report::default(), false, 0, alpha),
            missed: 0,
            pulls: 0,
            pushed_only: false,
            max,
        };
        let ran = replay_levels_kept(
            gpu,
            &mut levels,
            per_replay,
            max,
            "direction-optimizing BFS",
            &mut kept,
            repeat,
        );
        let (stats, pulls, pushed_only) = (levels.stats, levels.pulls, levels.pushed_only);
        let d = self.directed.as_mut().expect("made above");
        (d.pushed_only, d.replayed) = (pushed_only, kept.replayed);
        match ran {
            // Kept for the next run of the key (none without one).
            Ok(()) if d.key.is_some() => d.recorded = kept,
            Ok(()) => {}
            Err(e) => {
                d.forget();
                return Err(e);
            }
        }
        Ok(LoopStats {
            pull_levels: pulls,
            ..stats
        })
    }

    /// Whether the last direction-optimizing run ([`Self::run_directed`]) ran push-only batches:
    /// levels of the plain push step, which (in a BFS that keeps parents) write no parent.
    pub fn directed_pushed_only(&self) -> bool {
        self.directed.as_ref().is_some_and(|d| d.pushed_only)
    }

    /// The batches the last direction-optimizing run launched as recorded graphs (its replays,
    /// and with a kept key, its direct batches recorded by an earlier run).
    pub fn directed_replays(&self) -> u64 {
        self.directed.as_ref().map_or(0, |d| d.replayed)
    }
}

#[cfg(test)]
mod tests;
