//! [`IterationsOnDevice`]: the loop of an iterative algorithm whose iterations do the same work
//! whatever the data (PageRank's pull and update, components' hooking, k-core's peel over a queue
//! the step keeps itself), recorded as a CUDA graph of several iterations and replayed until the
//! step says on the device that it is done.
//!
//! Unlike [`super::FrontierLoop`] the loop keeps no frontier: the step launches over
//! whatever it likes (every vertex under any schedule, or a list of its own whose length is on the
//! device, [`Iteration::over_list`]) and sets the loop's `done[0]` when it has finished. The host
//! reads `done` back once per replay (4 bytes), or, where the caller knows how many iterations
//! the run takes ([`IterationsOnDevice::run`]'s `exact`), only once at the end.
//!
//! The iterations of a replay after the one that set `done` still run: the step must make them
//! change nothing that is read (PageRank restores its ranks, hooking past the fixpoint changes
//! nothing, k-core's queue is empty). A replay is recorded once and kept for later runs with the
//! same `key` (the caller's: the buffers and scalars its launches bake in), so a second run on the
//! same state records nothing.

use cudarc::driver::CudaGraph;

use super::frontier::replay::capture;
use crate::device::{DeviceBuffer, DeviceList, Gpu};
use crate::error::{LoopsError, Result};

/// Iterations of a replay when the run's length is not known (a fixpoint, a tolerance): after the
/// iteration that ends the run, at most this many minus one run for nothing.
pub const DEFAULT_ITERATIONS_PER_REPLAY: usize = 4;

/// The most iterations recorded in one replay of a run of known length.
const MAX_EXACT_REPLAY: u64 = 64;

/// One iteration of a run of [`IterationsOnDevice`], as its step sees it.
pub struct Iteration {
    gpu: Gpu,
    parity: usize,
    capturing: bool,
}

impl Iteration {
    /// The handle to launch on: the loop's, whose launches never wait for the GPU (a stream being
    /// recorded cannot be waited for; checked mode cannot run here).
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The iteration's parity (0 for the first): buffers that alternate between iterations swap
    /// by it. A replay holds an even number of iterations, so the parity of a replayed iteration
    /// is the one it was recorded with.
    pub fn parity(&self) -> usize {
        self.parity
    }

    /// The handle for a launch over `list` whose length is `len[0]` on the device (a queue the
    /// step keeps): a kernel launched with `g.tiles_in(list)` reads that length, under the
    /// schedules that take it from the device (thread, group, warp, block, auto).
    pub fn over_list(&self, list: &DeviceBuffer<u32>, len: &DeviceBuffer<u32>) -> Gpu {
        self.gpu.in_device_loop(DeviceList {
            list: list.device_ptr(),
            len: len.device_ptr(),
            capturing: self.capturing,
            blocks: None,
        })
    }
}

/// The loop: see the module documentation.
pub struct IterationsOnDevice {
    done: DeviceBuffer<u32>,
    per_replay: usize,
    /// The replay recorded last: its key, its first iteration's parity, its iterations.
    recorded: Option<(Vec<u64>, usize, u64, CudaGraph)>,
    /// Replays launched by the last run, and whether it recorded one.
    replays: u64,
    recorded_last_run: bool,
}

impl IterationsOnDevice {
    /// A loop on `gpu` (its `done` flag).
    pub fn new(gpu: &Gpu) -> Result<IterationsOnDevice> {
        Ok(IterationsOnDevice {
            done: gpu.zeros(1)?,
            per_replay: DEFAULT_ITERATIONS_PER_REPLAY,
            recorded: None,
            replays: 0,
            recorded_last_run: false,
        })
    }

    /// Iterations per replay of a run of unknown length: `n` rounded up to an even number (at
    /// least 2). Forgets the recorded replay.
    pub fn set_per_replay(&mut self, n: usize) {
        self.per_replay = n.max(1).div_ceil(2) * 2;
        self.recorded = None;
    }

    /// Forgets the recorded replay (the next run records again): for a caller whose buffers moved.
    pub fn forget(&mut self) {
        self.recorded = None;
    }

    /// Replays launched by the last run.
    pub fn replays(&self) -> u64 {
        self.replays
    }

    /// Whether the last run recorded its replay (false: it reused the one kept).
    pub fn recorded_last_run(&self) -> bool {
        self.recorded_last_run
    }

    /// Runs `step(iteration, done)` until it sets `done[0]` (zeroed here first) or, with `exact`,
    /// for exactly that many iterations (the host then never reads `done`: the step need not set
    /// it). The first iteration is launched directly (it
    /// compiles the kernels and lets `auto` measure); the next, where `exact` leaves an odd
    /// count, too; the rest run as replays of a recorded graph. `key` names everything the
    /// step's launches bake in (buffers, scalars): a kept replay is reused only for the same
    /// key. Errors with [`LoopsError::NoConvergence`] where `done` is still unset after `max`
    /// iterations. Returns the iterations launched (those past the step's end included).
    pub fn run<F>(
        &mut self,
        gpu: &Gpu,
        key: &[u64],
        exact: Option<u64>,
        max: u64,
        mut step: F,
    ) -> Result<u64>
    where
        F: FnMut(&Iteration, &mut DeviceBuffer<u32>) -> Result<()>,
    {
        self.replays = 0;
        self.recorded_last_run = false;
        gpu.fill(&mut self.done, 0)?;
        let total = exact.map(|t| t.min(max));
        if total == Some(0) || max == 0 {
            return Ok(0);
        }
        let iteration = |parity: usize, capturing: bool| Iteration {
            gpu: gpu.in_device_loop(DeviceList::none(capturing)),
            parity,
            capturing,
        };
        step(&iteration(0, false), &mut self.done)?;
        let mut issued = 1u64;
        let per_replay = match total {
            Some(t) => {
                if (t - issued) % 2 == 1 {
                    step(&iteration(1, false), &mut self.done)?;
                    issued += 1;
                }
                exact_replay(t - issued)
            }
            None => {
                if self.read_done(gpu)? {
                    return Ok(issued);
                }
                self.per_replay as u64
            }
        };
        if per_replay == 0 {
            return Ok(issued);
        }
        let parity = (issued % 2) as usize;
        let fits = |r: &(Vec<u64>, usize, u64, CudaGraph)| {
            r.0 == key && r.1 == parity && r.2 == per_replay
        };
        if !self.recorded.as_ref().is_some_and(fits) {
            self.recorded = None;
            let done = &mut self.done;
            let graph = capture(gpu, "device iteration loop", || {
                (0..per_replay)
                    .try_for_each(|i| step(&iteration((parity + i as usize) % 2, true), &mut *done))
            })?;
            self.recorded = Some((key.to_vec(), parity, per_replay, graph));
            self.recorded_last_run = true;
        }
        let replay = &self.recorded.as_ref().expect("recorded above").3;
        let launch = |replays: &mut u64| {
            *replays += 1;
            replay.launch().map_err(LoopsError::driver(format!(
                "replaying {per_replay} iterations of the device iteration loop"
            )))
        };
        match total {
            Some(t) => {
                while issued < t {
                    launch(&mut self.replays)?;
                    issued += per_replay;
                }
                Ok(issued)
            }
            None => loop {
                if issued >= max {
                    return Err(LoopsError::NoConvergence {
                        iterations: issued,
                        frontier: 0,
                    });
                }
                launch(&mut self.replays)?;
                issued += per_replay;
                if self.read_done(gpu)? {
                    return Ok(issued);
                }
            },
        }
    }

    fn read_done(&self, gpu: &Gpu) -> Result<bool> {
        Ok(gpu.download(&self.done)?[0] != 0)
    }
}

/// The iterations of a replay for `remaining` (even) iterations of a run of known length: the
/// largest even divisor of `remaining` up to 64, so that the replays end exactly on it.
pub fn exact_replay(remaining: u64) -> u64 {
    if remaining == 0 {
        return 0;
    }
    debug_assert!(remaining.is_multiple_of(2));
    let half = remaining / 2;
    (1..=MAX_EXACT_REPLAY / 2)
        .rev()
        .find(|d| half.is_multiple_of(*d))
        .map_or(2, |d| 2 * d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_replays_end_on_the_count() {
        assert_eq!(exact_replay(0), 0);
        assert_eq!(exact_replay(2), 2);
        assert_eq!(exact_replay(18), 18);
        assert_eq!(exact_replay(64), 64);
        assert_eq!(exact_replay(198), 22);
        assert_eq!(exact_replay(2 * 97), 2);
        for r in (2..2000).step_by(2) {
            let e = exact_replay(r);
            assert!((2..=64).contains(&e), "{r} {e}");
            assert!(e.is_multiple_of(2) && r.is_multiple_of(e), "{r} {e}");
        }
    }
}
