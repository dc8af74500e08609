//! The runtime's one timing harness: what `auto`'s tuning (`launch::run::tuning`) and the ops that
//! choose a plan by timing it (`ops::spmm`) measure with, and what any other op may use.
//!
//! [`medians`] times a few candidates on the caller's own launches:
//! 1. *warm-up*: each candidate runs once ([`Candidates::prepare`] untimed, then
//!    [`Candidates::run`] between CUDA events), which also loads what its first launch needs; the
//!    host's time to queue this round is measured;
//! 2. the number of timed rounds: fixed ([`Rounds::Fixed`]), or from the slowest warm-up time
//!    ([`Rounds::ByWarmTime`]: fewer rounds of long launches, since the measurement is a first
//!    call's cost);
//! 3. *the stream hold*: a one-thread kernel ([`HOLD_SOURCE`]) spins on the GPU's clock for about
//!    as long as the host takes to queue the timed rounds ([`Settings::hold_per_round`] times the
//!    rounds times the warm-up's queue time, clamped to 200 µs..50 ms), so that the launches queue
//!    behind it and no launch's host work falls between its events: the events time the kernels,
//!    not the launch overhead (a small kernel takes less time than the host needs to queue it);
//! 4. the rounds: each round runs every candidate once (prepare, start event, run, stop event);
//! 5. each candidate's median over the rounds (the upper one of an even count), in microseconds.
//!
//! This room sits below `launch` and `ops`: the hold kernel is launched here with cudarc, and the
//! candidates' launches are the caller's ([`Candidates`]).

use std::time::{Duration, Instant};

use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};

use crate::device::{Gpu, GpuTimer};
use crate::error::{LoopsError, Result};

/// The CUDA of the stream hold (`loops_hold_stream(const unsigned long long ns)`).
pub const HOLD_SOURCE: &str = include_str!("hold.cuh");

/// The kernel name (in errors and the kernel cache) of [`HOLD_SOURCE`].
pub const HOLD_KERNEL: &str = "loops_hold";

/// The entry point of [`HOLD_SOURCE`].
pub const HOLD_ENTRY: &str = "loops_hold_stream";

/// The shortest and the longest stream hold.
const HOLD_RANGE: (Duration, Duration) = (Duration::from_micros(200), Duration::from_millis(50));

/// How many timed rounds [`medians`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounds {
    /// Always this many (at least 1).
    Fixed(usize),
    /// 3 when the slowest candidate's warm-up launch took over 1 ms, 5 over 0.2 ms, else 7.
    ByWarmTime,
}

impl Rounds {
    /// The rounds for a slowest warm-up launch of `slowest_ms`.
    pub fn count(self, slowest_ms: f32) -> usize {
        match self {
            Rounds::Fixed(n) => n.max(1),
            Rounds::ByWarmTime if slowest_ms > 1.0 => 3,
            Rounds::ByWarmTime if slowest_ms > 0.2 => 5,
            Rounds::ByWarmTime => 7,
        }
    }
}

/// How [`medians`] measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// The timed rounds.
    pub rounds: Rounds,
    /// The stream hold per timed round, in warm-up rounds' queue times: the host's time to queue
    /// one round is about the warm-up's, and this leaves room to spare.
    pub hold_per_round: f64,
}

impl Settings {
    /// `auto`'s tuning: 9 rounds, a hold of 2 warm-up queue times per round (its candidates'
    /// rounds also restore copies of the outputs).
    pub const AUTO: Settings = Settings {
        rounds: Rounds::Fixed(9),
        hold_per_round: 2.0,
    };

    /// The ops' plan choice (SpMM): 3, 5 or 7 rounds by the warm-up's slowest launch, a hold of
    /// 1.5 warm-up queue times per round.
    pub const OPS: Settings = Settings {
        rounds: Rounds::ByWarmTime,
        hold_per_round: 1.5,
    };

    /// The hold for `rounds` rounds when the warm-up round took `queue_time` to queue.
    pub fn hold(&self, rounds: usize, queue_time: Duration) -> Duration {
        queue_time
            .mul_f64(rounds as f64 * self.hold_per_round)
            .clamp(HOLD_RANGE.0, HOLD_RANGE.1)
    }
}

/// What [`medians`] times: `count` candidates, each launched by `run(i)` on the measuring handle's
/// stream.
pub trait Candidates {
    /// How many candidates.
    fn count(&self) -> usize;
    /// Work queued before each launch of candidate `i`, outside its events (restoring outputs).
    fn prepare(&mut self, i: usize) -> Result<()> {
        let _ = i;
        Ok(())
    }
    /// Queues one launch of candidate `i` (or several: all of it is timed).
    fn run(&mut self, i: usize) -> Result<()>;
}

/// Candidates that are a count and a closure queuing candidate `i`.
pub struct Launches<F>(pub usize, pub F);

impl<F: FnMut(usize) -> Result<()>> Candidates for Launches<F> {
    fn count(&self) -> usize {
        self.0
    }
    fn run(&mut self, i: usize) -> Result<()> {
        (self.1)(i)
    }
}

/// Each candidate's median time per launch, in microseconds (see the module documentation).
/// Every launch is queued on `gpu`'s stream, which is waited for once after the warm-up and by
/// reading the events at the end. Loads the hold kernel if [`load_hold`] did not.
pub fn medians(
    gpu: &Gpu,
    settings: Settings,
    candidates: &mut impl Candidates,
) -> Result<Vec<f64>> {
    let n = candidates.count();
    if n == 0 {
        return Ok(Vec::new());
    }
    let hold = load_hold(gpu)?;
    let warm: Vec<GpuTimer> = (0..n).map(|_| gpu.timer()).collect::<Result<_>>()?;
    let queue_start = Instant::now();
    for (i, timer) in warm.iter().enumerate() {
        candidates.prepare(i)?;
        timer.start()?;
        candidates.run(i)?;
        timer.stop()?;
    }
    let queue_time = queue_start.elapsed();
    gpu.synchronize()?;
    let mut slowest_ms = 0f32;
    for timer in &warm {
        slowest_ms = slowest_ms.max(timer.elapsed_ms()?);
    }
    let reps = settings.rounds.count(slowest_ms);
    let rounds: Vec<Vec<GpuTimer>> = (0..reps)
        .map(|_| (0..n).map(|_| gpu.timer()).collect())
        .collect::<Result<_>>()?;
    hold_stream(gpu, &hold, settings.hold(reps, queue_time))?;
    for round in &rounds {
        for (i, timer) in round.iter().enumerate() {
            candidates.prepare(i)?;
            timer.start()?;
            candidates.run(i)?;
            timer.stop()?;
        }
    }
    (0..n)
        .map(|j| {
            let ms = rounds
                .iter()
                .map(|round| round[j].elapsed_ms().map(f64::from))
                .collect::<Result<Vec<f64>>>()?;
            Ok(median(ms) * 1e3)
        })
        .collect()
}

/// The median of `values` (the upper of the middle two of an even count); 0 for none.
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// Compiles (or reads from the disk cache) and loads the hold kernel on `gpu`'s device: a caller
/// may run it alongside its candidates' compiles, on another thread.
pub fn load_hold(gpu: &Gpu) -> Result<CudaFunction> {
    gpu.function(HOLD_KERNEL, HOLD_SOURCE, HOLD_ENTRY)
}

/// Queues the one-thread kernel that spins for `hold` on the GPU's clock.
fn hold_stream(gpu: &Gpu, function: &CudaFunction, hold: Duration) -> Result<()> {
    let ns = hold.as_nanos() as u64;
    let config = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: `loops_hold_stream` takes one `unsigned long long` by value (`hold.cuh`; checked
    // against its text by `hold_signature_is_one_u64`) and touches no memory.
    unsafe {
        gpu.stream()
            .launch_builder(function)
            .arg(&ns)
            .launch(config)
    }
    .map(drop)
    .map_err(LoopsError::driver(format!(
        "launching kernel `{HOLD_KERNEL}` (entry `{HOLD_ENTRY}`, the stream hold of a measurement)"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_and_holds_are_those_of_the_two_harnesses() {
        // auto: 9 rounds, hold = 18 queue times; the ops: 3/5/7 rounds, hold = 1.5 per round.
        assert_eq!(Settings::AUTO.rounds.count(5.0), 9);
        assert_eq!(Settings::OPS.rounds.count(1.5), 3);
        assert_eq!(Settings::OPS.rounds.count(0.5), 5);
        assert_eq!(Settings::OPS.rounds.count(0.01), 7);
        let q = Duration::from_micros(100);
        assert_eq!(Settings::AUTO.hold(9, q), Duration::from_micros(1800));
        assert_eq!(Settings::OPS.hold(5, q), Duration::from_micros(750));
        assert_eq!(
            Settings::OPS.hold(3, Duration::from_micros(1)),
            HOLD_RANGE.0
        );
        assert_eq!(Settings::AUTO.hold(9, Duration::from_secs(1)), HOLD_RANGE.1);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 3.0);
        assert_eq!(median(Vec::new()), 0.0);
    }

    #[test]
    fn hold_signature_is_one_u64() {
        let compact: String = HOLD_SOURCE.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            compact.contains(&format!(
                "extern \"C\" __global__ void {HOLD_ENTRY}(const unsigned long long ns)"
            )),
            "hold.cuh's entry point changed: update hold_stream's arguments"
        );
        assert_eq!(compact.matches("extern \"C\"").count(), 1);
    }
}
