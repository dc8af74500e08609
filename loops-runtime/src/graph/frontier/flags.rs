//! The device levels that compact flags ([`LoopOn::DeviceScan`], [`LoopOn::DevicePush`]): the
//! step, then `loops_compact_level` into the other frontier buffer, which counts the next
//! frontier and keeps the run's statistics on the device. A push run's compaction walks the
//! frontier's out-edges instead of scanning every flag where they are few: work in proportion
//! to the frontier's out-edges, not to the graph; it chooses on the device, every level, from the
//! frontier's size and its largest out-degree (which the previous compaction keeps), inside the
//! same kernel, so the recorded levels are the same whatever it chooses.

use kernels_gen::schedule::LaunchDims;

use super::replay::{replay_levels, wave_dims, LevelsOnDevice};
#[allow(unused_imports)] // the docs' links
use super::LoopOn;
use super::{check_sources, stats_of, FrontierLoop, FrontierStep, Level, LoopStats, Next};
use super::{DEGREE_SLOTS, STATE_SLOTS, UNKNOWN_DEGREE, WALKED_SLOT};
use crate::device::{DeviceList, Gpu};
use crate::error::{LoopsError, Result};
use crate::graph::DeviceGraph;
use crate::launch::entry::Ptr;

impl FrontierLoop {
    /// Checks `sources` and the handle, then sets the first frontier to `sources` and the device
    /// state to a run's start, and with `flags` (a run that compacts flags) clears the flags
    /// (nothing is written for no sources).
    pub(super) fn prepare(&mut self, gpu: &Gpu, sources: &[u32], flags: bool) -> Result<()> {
        check_sources(sources, self.vertices)?;
        if sources.is_empty() {
            return Ok(());
        }
        self.check_handle(gpu)?;
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

    /// Errors unless `gpu` is the handle that made the loop: a capture records this handle's
    /// stream only, and another stream's buffers would have to be waited for.
    pub(super) fn check_handle(&self, gpu: &Gpu) -> Result<()> {
        if self
            .flags
            .cuda_stream()
            .is_some_and(|s| !std::sync::Arc::ptr_eq(s, gpu.stream()))
        {
            return Err(LoopsError::InvalidGraph {
                detail: "a device frontier loop runs on the Gpu handle that made it".into(),
            });
        }
        Ok(())
    }

    /// A flag run on the device ([`LoopOn::DeviceScan`], or with `push`,
    /// [`LoopOn::DevicePush`] on that graph).
    pub(super) fn run_flags<F: FrontierStep>(
        &mut self,
        gpu: &Gpu,
        push: Option<&DeviceGraph>,
        sources: &[u32],
        mut step: F,
    ) -> Result<LoopStats> {
        self.prepare(gpu, sources, true)?;
        if sources.is_empty() {
            return Ok(LoopStats::default());
        }
        let max = self.max_levels();
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
    fn level<F: FrontierStep>(
        &mut self,
        gpu: &Gpu,
        push: Option<&DeviceGraph>,
        level: u64,
        capturing: bool,
        step: &mut F,
    ) -> Result<()> {
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
        let number = Level {
            number: None,
            device: &self.level,
        };
        step(
            gpu,
            &self.frontiers[current],
            Next::Flags(&mut self.flags),
            number,
        )?;
        let (flags, out, state) = (&self.flags, &self.frontiers[next], &self.state);
        let (level_arg, frontier) = (&self.level, &self.frontiers[current]);
        let (slots, walk_limit) = ((slot(0), slot(1), slot(2)), self.walk_limit());
        let (entry, function, args) = match push.map(|g| (g, g.offsets().wide_offsets())) {
            Some((g, Some(wide))) => (
                "loops_compact_level_wide",
                &self.compact_wide,
                crate::graph::loops_compact_level_wide::args(
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
                let args = crate::graph::loops_compact_level::args(
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

/// The levels of a flag run on the device: the step and the compaction of its flags, as
/// [`replay_levels`] drives them.
struct FlagLevels<'a, F> {
    lp: &'a mut FrontierLoop,
    push: Option<&'a DeviceGraph>,
    step: &'a mut F,
    stats: LoopStats,
}

impl<F: FrontierStep> LevelsOnDevice for FlagLevels<'_, F> {
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
