//! [`IterationLoop`]: the one driver of an iterative algorithm whose iterations do the same work
//! whatever the data (PageRank, components' union-find, k-core's peel over a queue the step keeps
//! itself), its loop strategy a parameter of the run ([`IterateOn`]): on the host (each iteration
//! launched, a 4-byte flag read back after it) or on the device (the iterations recorded once as
//! CUDA graphs and replayed until the step says on the device that it is done).
//!
//! Unlike [`super::FrontierLoop`] the loop keeps no frontier: the step launches over whatever it
//! likes (every vertex under any schedule, or a list of its own whose length is on the device,
//! [`Iteration::over_list`]) and sets the loop's `done[0]` when it has finished. The step is the
//! same closure in both loops; at iteration 0 ([`Iteration::first`]) it starts its state (its
//! start kernel), so that on the device the start is part of the first recorded graph.
//!
//! On the device a run is one launch of the *first* graph (`done` zeroed, the step's iterations 0
//! to `f - 1`) and, while `done` is unset when read back after it, launches of the *rest* graph
//! (`r` more iterations each, one read-back each). Where the caller knows how many iterations the
//! run takes (`exact`) the host never reads `done`: up to 64 iterations are the first graph alone
//! (one launch, nothing read back), more are a first graph and replays of 64. Both graphs are kept
//! for later runs with the same `key` (the caller's: the buffers and scalars its launches bake
//! in), so a later run on the same state records nothing and costs one graph launch and one
//! 4-byte read-back per `r` iterations. A run that records its first graph launches iteration 0
//! directly before (it compiles the kernels and lets `auto` measure; the recorded iteration 0
//! starts again).
//!
//! A run of unknown length has a first graph of `f` = 8 iterations until the caller tells the
//! loop how many the last run needed ([`IterationLoop::expect`]): then `f` is that many and one
//! more (at most 64), so that a run as long as the last (the same graph again, as a caller who
//! keeps the state runs it) is one graph launch and one read-back, with one iteration past the
//! end, instead of replays of 8 with up to 7 past it. `f` changes (and the first graph is
//! recorded again) only where a run needs more than `f` or more than 2 fewer, so lengths that
//! waver by one (the order of atomics) keep one recording.
//!
//! The iterations of a replay after the one that set `done` still run: the step must make them
//! change nothing that is read (return at once where `done` or its own state says so).

use cudarc::driver::CudaGraph;

use super::frontier::replay::capture;
use crate::device::{DeviceBuffer, DeviceList, Gpu};
use crate::error::{LoopsError, Result};

/// Iterations of a replay when the run's length is not known (a fixpoint, a tolerance), the first
/// graph's and the rest's: after the iteration that ends the run, at most this many minus one run
/// for nothing (each returning at once).
pub const DEFAULT_ITERATIONS_PER_REPLAY: usize = 8;

/// The most iterations recorded in one graph of a run of known length.
const MAX_EXACT_REPLAY: u64 = 64;

/// Where [`IterationLoop::run`] runs its loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IterateOn {
    /// On the host: each iteration launched directly, `done` read back after each (never, for a
    /// run of known length).
    Host,
    /// On the device: the iterations recorded as CUDA graphs and replayed (see the module docs).
    /// The step's launches must not wait for the GPU.
    Device,
}

/// One iteration of a run of [`IterationLoop`], as its step sees it.
pub struct Iteration<'a> {
    /// The caller's handle (the host loop's iterations launch on it) and, in the loop on the
    /// device, the handle of the loop.
    host: &'a Gpu,
    looped: Option<Gpu>,
    index: u64,
    capturing: bool,
}

impl Iteration<'_> {
    /// The handle to launch on: in the loop on the device, one whose launches never wait for the
    /// GPU (a stream being recorded cannot be waited for; checked mode cannot run there).
    pub fn gpu(&self) -> &Gpu {
        self.looped.as_ref().unwrap_or(self.host)
    }

    /// The iteration's parity (0 for the first): buffers that alternate between iterations swap
    /// by it. A replay holds iterations of one parity pattern: a replayed iteration has the
    /// parity it was recorded with.
    pub fn parity(&self) -> usize {
        (self.index % 2) as usize
    }

    /// Whether this is iteration 0, where the step starts its state. Only iteration 0 is (the
    /// replays after the first graph are recorded from the index after its last); a replayed
    /// iteration otherwise has the index it was recorded with, so the step may use nothing of it
    /// but [`Self::parity`] and this.
    pub fn first(&self) -> bool {
        self.index == 0
    }

    /// The handle for a launch over `list` whose length is `len[0]` on the device (a queue the
    /// step keeps): a kernel launched with `g.tiles_in(list)` reads that length, under the
    /// schedules that take it from the device (thread, group, warp, block, auto).
    pub fn over_list(&self, list: &DeviceBuffer<u32>, len: &DeviceBuffer<u32>) -> Gpu {
        self.gpu().in_device_loop(DeviceList {
            list: list.device_ptr(),
            len: len.device_ptr(),
            capturing: self.capturing,
            blocks: None,
        })
    }
}

/// A recorded graph and what it was recorded for: the caller's key, its first iteration's
/// parity, its iterations.
struct Recorded {
    key: Vec<u64>,
    parity: u64,
    iterations: u64,
    graph: CudaGraph,
}

impl Recorded {
    fn fits(&self, key: &[u64], parity: u64, iterations: u64) -> bool {
        self.key == key && self.parity == parity && self.iterations == iterations
    }
}

/// The loop: see the module documentation.
pub struct IterationLoop {
    done: DeviceBuffer<u32>,
    per_replay: usize,
    /// The first graph's iterations in a run of unknown length ([`Self::expect`]).
    first_unknown: u64,
    first: Option<Recorded>,
    rest: Option<Recorded>,
    /// Graph launches of the last run, and whether it recorded one.
    replays: u64,
    recorded_last_run: bool,
    /// `done[0]` as the last read-back found it.
    done_value: u32,
}

impl IterationLoop {
    /// A loop on `gpu` (its `done` flag).
    pub fn new(gpu: &Gpu) -> Result<IterationLoop> {
        Ok(IterationLoop {
            done: gpu.zeros(1)?,
            per_replay: DEFAULT_ITERATIONS_PER_REPLAY,
            first_unknown: DEFAULT_ITERATIONS_PER_REPLAY as u64,
            first: None,
            rest: None,
            replays: 0,
            recorded_last_run: false,
            done_value: 0,
        })
    }

    /// Iterations per graph of a run of unknown length on the device: `n` rounded up to an even
    /// number (at least 2). Forgets the recorded graphs.
    pub fn set_per_replay(&mut self, n: usize) {
        self.per_replay = n.max(1).div_ceil(2) * 2;
        self.first_unknown = self.per_replay as u64;
        self.forget();
    }

    /// Tells the loop that the last run of unknown length needed `needed` iterations (the one
    /// that set `done` included): later such runs on the device record their first graph for
    /// that many and one more where `needed` is above the first graph's iterations or more than 2
    /// below them (module docs; at most 64, at least 2).
    pub fn expect(&mut self, needed: u64) {
        self.first_unknown = next_first(self.first_unknown, needed);
    }

    /// The first graph's iterations of a run of unknown length on the device.
    pub fn first_iterations(&self) -> u64 {
        self.first_unknown
    }

    /// Forgets the recorded graphs (the next run on the device records again): for a caller
    /// whose buffers moved.
    pub fn forget(&mut self) {
        self.first = None;
        self.rest = None;
    }

    /// Graph launches of the last run (0 on the host).
    pub fn replays(&self) -> u64 {
        self.replays
    }

    /// Whether the last run recorded a graph (false: it reused those kept).
    pub fn recorded_last_run(&self) -> bool {
        self.recorded_last_run
    }

    /// `done[0]` as the last read-back of the last run found it (0 where it read none, as in a
    /// run of known length): a step that ends the run by storing a count there (components: the
    /// iterations) hands it to the host without another read-back.
    pub fn done_value(&self) -> u32 {
        self.done_value
    }

    /// Runs `step(iteration, done)` from iteration 0 until it sets `done[0]` (zeroed here
    /// first) or, with `exact`, for exactly that many iterations (the host then never reads
    /// `done`: the step need not set it), in the loop `on`. `key` names everything the step's
    /// launches bake in (buffers, scalars): a kept graph is reused only for the same key. Errors
    /// with [`LoopsError::NoConvergence`] where `done` is still unset after `max` iterations.
    /// Returns the iterations launched (on the device those past the step's end included).
    pub fn run<F>(
        &mut self,
        gpu: &Gpu,
        on: IterateOn,
        key: &[u64],
        exact: Option<u64>,
        max: u64,
        mut step: F,
    ) -> Result<u64>
    where
        F: FnMut(&Iteration<'_>, &mut DeviceBuffer<u32>) -> Result<()>,
    {
        self.replays = 0;
        self.recorded_last_run = false;
        self.done_value = 0;
        let total = exact.map(|t| t.min(max));
        if total == Some(0) || max == 0 {
            return Ok(0);
        }
        // On the device the direct iteration launches as the recorded ones do (sized on the
        // device where the schedule can be).
        let direct = |index: u64| Iteration {
            host: gpu,
            looped: (on == IterateOn::Device).then(|| gpu.in_device_loop(DeviceList::none(false))),
            index,
            capturing: false,
        };
        if on == IterateOn::Host {
            gpu.fill(&mut self.done, 0)?;
            let mut issued = 0u64;
            loop {
                if total == Some(issued) {
                    return Ok(issued);
                }
                if issued >= max {
                    return Err(LoopsError::NoConvergence {
                        iterations: issued,
                        frontier: 0,
                    });
                }
                step(&direct(issued), &mut self.done)?;
                issued += 1;
                if total.is_none() && self.read_done(gpu)? {
                    return Ok(issued);
                }
            }
        }
        let (first_len, rest_len) = match total {
            Some(t) => exact_split(t),
            None => (self.first_unknown, self.per_replay as u64),
        };
        let recorded = |index: u64| Iteration {
            host: gpu,
            looped: Some(gpu.in_device_loop(DeviceList::none(true))),
            index,
            capturing: true,
        };
        if !self
            .first
            .as_ref()
            .is_some_and(|r| r.fits(key, 0, first_len))
        {
            // Iteration 0 launched directly first: it compiles the kernels and lets `auto`
            // measure, neither of which can happen while the stream is recorded.
            self.first = None;
            gpu.fill(&mut self.done, 0)?;
            step(&direct(0), &mut self.done)?;
            let done = &mut self.done;
            let graph = capture(gpu, "device iteration loop", || {
                gpu.fill(done, 0)?;
                (0..first_len).try_for_each(|i| step(&recorded(i), &mut *done))
            })?;
            self.first = Some(Recorded {
                key: key.to_vec(),
                parity: 0,
                iterations: first_len,
                graph,
            });
            self.recorded_last_run = true;
        }
        self.launch(true, first_len)?;
        let mut issued = first_len;
        let parity = first_len % 2;
        loop {
            match total {
                Some(t) if issued >= t => return Ok(issued),
                Some(_) => {}
                None => {
                    if self.read_done(gpu)? {
                        return Ok(issued);
                    }
                    if issued >= max {
                        return Err(LoopsError::NoConvergence {
                            iterations: issued,
                            frontier: 0,
                        });
                    }
                }
            }
            if !self
                .rest
                .as_ref()
                .is_some_and(|r| r.fits(key, parity, rest_len))
            {
                self.rest = None;
                let done = &mut self.done;
                let graph = capture(gpu, "device iteration loop", || {
                    // Indices from `first_len` on: the parity the replays run at, and never
                    // iteration 0's start.
                    (0..rest_len).try_for_each(|i| step(&recorded(first_len + i), &mut *done))
                })?;
                self.rest = Some(Recorded {
                    key: key.to_vec(),
                    parity,
                    iterations: rest_len,
                    graph,
                });
                self.recorded_last_run = true;
            }
            self.launch(false, rest_len)?;
            issued += rest_len;
        }
    }

    /// Launches the first or the rest graph.
    fn launch(&mut self, first: bool, iterations: u64) -> Result<()> {
        let recorded = if first { &self.first } else { &self.rest };
        let graph = &recorded.as_ref().expect("recorded before").graph;
        self.replays += 1;
        graph.launch().map_err(LoopsError::driver(format!(
            "replaying {iterations} iterations of the device iteration loop"
        )))
    }

    fn read_done(&mut self, gpu: &Gpu) -> Result<bool> {
        self.done_value = gpu.download(&self.done)?[0];
        Ok(self.done_value != 0)
    }
}

/// The first graph's iterations for runs of unknown length after one that needed `needed`, where
/// the first graph held `first`: see [`IterationLoop::expect`].
fn next_first(first: u64, needed: u64) -> u64 {
    if needed > first || needed + 2 < first {
        (needed + 1).clamp(2, MAX_EXACT_REPLAY)
    } else {
        first
    }
}

/// The iterations of the first graph and of each replay after it of a device run of exactly
/// `total` (at least 1) iterations: the first takes the remainder, so the replays of 64 end on
/// the count.
pub fn exact_split(total: u64) -> (u64, u64) {
    assert!(total > 0, "a run of no iterations");
    (
        total - MAX_EXACT_REPLAY * ((total - 1) / MAX_EXACT_REPLAY),
        MAX_EXACT_REPLAY,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_graph_follows_the_runs_needs_with_a_margin() {
        // Longer than held: one more than needed.
        assert_eq!(next_first(8, 11), 12);
        assert_eq!(next_first(8, 9), 10);
        // Held, within 2: kept (lengths that waver keep one recording).
        for needed in 6..=8 {
            assert_eq!(next_first(8, needed), 8);
        }
        assert_eq!(next_first(12, 11), 12);
        assert_eq!(next_first(12, 10), 12);
        // Far shorter: shrunk to one more than needed.
        assert_eq!(next_first(8, 4), 5);
        assert_eq!(next_first(8, 1), 2);
        // Bounded by a replay of known length.
        assert_eq!(next_first(8, 500), 64);
        assert_eq!(next_first(64, 500), 64);
    }

    #[test]
    fn exact_runs_split_into_a_first_graph_and_replays_of_64() {
        assert_eq!(exact_split(1), (1, 64));
        assert_eq!(exact_split(20), (20, 64));
        assert_eq!(exact_split(64), (64, 64));
        assert_eq!(exact_split(65), (1, 64));
        assert_eq!(exact_split(200), (8, 64));
        for t in 1..2000u64 {
            let (f, r) = exact_split(t);
            assert!((1..=64).contains(&f), "{t} {f}");
            assert!((t - f).is_multiple_of(r), "{t} {f}");
        }
    }
}
