//! Same-process A/B timing of the graph room's language kernels ([`super::lang`]) against the
//! hand-written ones they would replace (`compact.cuh`, `near_far.cuh`), on the GPU, and a test
//! that they agree (`lang_kernels_agree_with_the_hand_written`, run with the `gpu` feature). The
//! timing is not run by default:
//!
//! ```text
//! LOOPS_AB_CSV=ab.csv cargo test -p loops-runtime --release --features gpu --lib lang_ab -- --ignored --nocapture
//! ```
//!
//! Per case (vertices, fraction of flags set): both kernels run and checked once, then timed by
//! the tuning harness (`tune::measure::medians`: a stream hold so that the host's queueing is not
//! timed, CUDA events, `LOOPS_AB_REPS` rounds (default 51) alternating the two, the flags restored
//! from a template before each launch, outside the events), once hand-written first and once
//! language first. Reports the microseconds and hand / language (above 1: the language kernel is
//! faster).

use std::io::Write;

use super::lang;
use super::near_far::NEAR_FAR_SOURCE;
use super::{loops_compact_flags, loops_compact_flags_degrees, COMPACT_SOURCE};
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::graph::frontier::compact_dims;
use crate::graph::near_far::loops_frontier_degrees;
use crate::tune::measure::{medians, Candidates, Rounds, Settings};

/// A seeded offsets array: most vertices 0..16 out-edges, one in 61 up to 1,000.
fn offsets(n: usize) -> Vec<usize> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = Vec::with_capacity(n + 1);
    out.push(0);
    for v in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let d = if v % 61 == 0 { x % 1000 } else { x % 16 };
        out.push(out[v] + d as usize);
    }
    out
}

/// Flags with about `fraction` of them set (at least one), seeded.
fn flags(n: usize, fraction: f64) -> Vec<u32> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut f: Vec<u32> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x % 1_000_000) as f64 / 1e6 < fraction) as u32
        })
        .collect();
    if !f.contains(&1) {
        f[n / 2] = 1;
    }
    f
}

/// What [`ab`] asks of a case: restore its inputs, launch, or check the outputs.
#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Reset,
    Run,
    Check,
}

/// A case as [`medians`]' two candidates: the hand-written kernel and the language one, in
/// that order or (`swap`) the other.
struct Case<'a> {
    gpu: &'a Gpu,
    case: &'a mut dyn FnMut(&Gpu, Phase, bool),
    swap: bool,
}

impl Candidates for Case<'_> {
    fn count(&self) -> usize {
        2
    }
    fn prepare(&mut self, i: usize) -> Result<()> {
        (self.case)(self.gpu, Phase::Reset, (i == 1) != self.swap);
        Ok(())
    }
    fn run(&mut self, i: usize) -> Result<()> {
        (self.case)(self.gpu, Phase::Run, (i == 1) != self.swap);
        Ok(())
    }
}

/// Runs and checks each kernel once (`Reset`, `Run`, `Check`), then times them with the tuning
/// harness ([`medians`]: a stream hold, CUDA events, `reps` rounds alternating the two, their
/// inputs restored outside the events) in one order and in the other; returns the hand-written
/// and the language kernel's microseconds, each the mean of its two medians.
fn ab(gpu: &Gpu, reps: usize, case: &mut dyn FnMut(&Gpu, Phase, bool)) -> (f64, f64) {
    for language in [false, true] {
        for phase in [Phase::Reset, Phase::Run, Phase::Check] {
            case(gpu, phase, language);
        }
    }
    let settings = Settings {
        rounds: Rounds::Fixed(reps),
        hold_per_round: 2.0,
    };
    let ab = medians(
        gpu,
        settings,
        &mut Case {
            gpu,
            case: &mut *case,
            swap: false,
        },
    )
    .unwrap();
    let ba = medians(
        gpu,
        settings,
        &mut Case {
            gpu,
            case,
            swap: true,
        },
    )
    .unwrap();
    ((ab[0] + ba[1]) / 2.0, (ab[1] + ba[0]) / 2.0)
}

#[test]
#[ignore = "a GPU timing run: cargo test --release --features gpu --lib lang_ab -- --ignored"]
fn lang_ab() {
    let gpu = Gpu::new(0).unwrap();
    let reps: usize = std::env::var("LOOPS_AB_REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(51);
    let mut csv = std::env::var("LOOPS_AB_CSV")
        .ok()
        .map(|p| std::fs::File::create(p).unwrap());
    let mut line = |s: String| {
        println!("{s}");
        if let Some(f) = csv.as_mut() {
            writeln!(f, "{s}").unwrap();
        }
    };
    line("kernel,vertices,fraction,frontier,hand_us,lang_us,hand_over_lang".into());
    let compact = gpu
        .function("loops_compact_flags", COMPACT_SOURCE, "loops_compact_flags")
        .unwrap();
    let compact_degrees = gpu
        .function(
            "loops_compact_flags",
            COMPACT_SOURCE,
            "loops_compact_flags_degrees",
        )
        .unwrap();
    let degree_sum = gpu
        .function("loops_near_far", NEAR_FAR_SOURCE, "loops_frontier_degrees")
        .unwrap();
    let limits = gpu.limits();
    // What the direction-optimizing BFS passes: the resident warps, plus one.
    let degrees_below = limits.sm_count * (limits.max_threads_per_sm / 32) + 1;
    let programmatic = gpu.programmatic_launch();
    for n in [4_194_304usize, 262_144, 16_384, 1_024] {
        let host_offsets = offsets(n);
        let g = gpu.upload_offsets(&host_offsets).unwrap();
        for fraction in [1e-4, 1e-2, 0.2, 1.0] {
            let host_flags = flags(n, fraction);
            let ids: Vec<u32> = (0..n as u32)
                .filter(|&v| host_flags[v as usize] != 0)
                .collect();
            let expected_degrees: u64 = ids
                .iter()
                .map(|&v| (host_offsets[v as usize + 1] - host_offsets[v as usize]) as u64)
                .sum();
            let template = gpu.upload(&host_flags).unwrap();
            let frontier = gpu.upload(&ids).unwrap();
            let mut fl: DeviceBuffer<u32> = gpu.zeros(n).unwrap();
            let mut list: DeviceBuffer<u32> = gpu.zeros(n).unwrap();
            let mut counters: DeviceBuffer<u32> = gpu.zeros(3).unwrap();
            let mut total: DeviceBuffer<u64> = gpu.zeros(1).unwrap();
            let (tp, fp, bytes) = (template.device_ptr(), fl.device_ptr(), 4 * n);
            let row = |line: &mut dyn FnMut(String), name: &str, (a, b): (f64, f64)| {
                line(format!(
                    "{name},{n},{fraction},{},{a:.2},{b:.2},{:.3}",
                    ids.len(),
                    a / b
                ));
            };

            // The flag compaction.
            let mut counts = [0u32; 2];
            let times = ab(&gpu, reps, &mut |gpu, phase, language| match phase {
                Phase::Reset => {
                    gpu.copy_device(tp, fp, bytes, "flags").unwrap();
                    gpu.fill(&mut counters, 0).unwrap();
                }
                Phase::Run if language => {
                    lang::compaction::thread::compact_flags(
                        gpu,
                        &g,
                        &mut fl,
                        &mut list,
                        &mut counters,
                    )
                    .unwrap();
                }
                Phase::Run => {
                    let args = loops_compact_flags::args(&fl, n as u32, &list, &counters);
                    let dims = compact_dims(gpu, n);
                    gpu.launch_function_with(
                        "loops_compact_flags",
                        &compact,
                        dims,
                        args,
                        programmatic,
                    )
                    .unwrap();
                }
                Phase::Check => counts[language as usize] = gpu.download(&counters).unwrap()[0],
            });
            assert_eq!(counts, [ids.len() as u32; 2], "compact_flags counts");
            row(&mut line, "compact_flags", times);

            // The flag compaction with the largest degree.
            let mut largest = [0u32; 2];
            let times = ab(&gpu, reps, &mut |gpu, phase, language| match phase {
                Phase::Reset => {
                    gpu.copy_device(tp, fp, bytes, "flags").unwrap();
                    gpu.fill(&mut counters, 0).unwrap();
                }
                Phase::Run if language => {
                    lang::compaction_degrees::thread::compact_flags_degrees(
                        gpu,
                        &g,
                        &mut fl,
                        &mut list,
                        &mut counters,
                        degrees_below,
                    )
                    .unwrap();
                }
                Phase::Run => {
                    let args = loops_compact_flags_degrees::args(
                        &fl,
                        n as u32,
                        &list,
                        &counters,
                        g.offsets(),
                        n as u32,
                        degrees_below,
                    );
                    let dims = compact_dims(gpu, n);
                    gpu.launch_function_with(
                        "loops_compact_flags_degrees",
                        &compact_degrees,
                        dims,
                        args,
                        programmatic,
                    )
                    .unwrap();
                }
                Phase::Check => {
                    let c = gpu.download(&counters).unwrap();
                    assert_eq!(c[0] as usize, ids.len());
                    largest[language as usize] = c[2];
                }
            });
            if ids.len() < degrees_below as usize {
                assert_eq!(
                    largest[0], largest[1],
                    "compact_flags_degrees' largest degree"
                );
            }
            row(&mut line, "compact_flags_degrees", times);

            // The frontier's degree sum.
            let mut sums = [0u64; 2];
            let len = ids.len();
            let full = (limits.sm_count * (limits.max_threads_per_sm / 256)) as usize;
            let dims = kernels_gen::schedule::LaunchDims {
                grid: len.div_ceil(256).clamp(1, full) as u32,
                block: 256,
                shared_bytes: 0,
            };
            let times = ab(&gpu, reps, &mut |gpu, phase, language| match phase {
                Phase::Reset => gpu.fill(&mut total, 0).unwrap(),
                Phase::Run if language => {
                    lang::degree_sum::thread::frontier_degree_sum(gpu, &g, &frontier, &mut total)
                        .unwrap();
                }
                Phase::Run => {
                    let args =
                        loops_frontier_degrees::args(&frontier, len as u32, g.offsets(), &total);
                    gpu.launch_function("loops_frontier_degrees", &degree_sum, dims, args)
                        .unwrap();
                }
                Phase::Check => sums[language as usize] = gpu.download(&total).unwrap()[0],
            });
            assert_eq!(sums, [expected_degrees; 2], "frontier degree sums");
            row(&mut line, "frontier_degree_sum", times);
        }
    }
}

/// The language kernels give what the hand-written ones give (run by default with the `gpu`
/// feature): the same set of ids appended and counted, the flags cleared, the same largest degree
/// where the frontier stays below `degrees_below`, and the CPU's degree sum; sizes from one vertex
/// to past a block, no flag to all, ids past the graph in the frontier (skipped by the language's
/// `tiles_in`; not given to the hand-written sum, which does not skip them).
#[test]
fn lang_kernels_agree_with_the_hand_written() {
    let gpu = Gpu::new(0).unwrap();
    let compact = gpu
        .function("loops_compact_flags", COMPACT_SOURCE, "loops_compact_flags")
        .unwrap();
    let compact_degrees = gpu
        .function(
            "loops_compact_flags",
            COMPACT_SOURCE,
            "loops_compact_flags_degrees",
        )
        .unwrap();
    let degree_sum = gpu
        .function("loops_near_far", NEAR_FAR_SOURCE, "loops_frontier_degrees")
        .unwrap();
    for n in [1usize, 31, 33, 1000, 70_000] {
        let host_offsets = offsets(n);
        let g = gpu.upload_offsets(&host_offsets).unwrap();
        let degree = |v: u32| (host_offsets[v as usize + 1] - host_offsets[v as usize]) as u32;
        for fraction in [0.0, 0.3, 1.0] {
            let mut host_flags = flags(n, fraction);
            if fraction == 0.0 {
                host_flags.fill(0);
            }
            let ids: Vec<u32> = (0..n as u32)
                .filter(|&v| host_flags[v as usize] != 0)
                .collect();
            let largest = ids.iter().map(|&v| degree(v)).max().unwrap_or(0);
            for degrees_below in [u32::MAX, 7] {
                for language in [false, true] {
                    for with_degrees in [false, true] {
                        let mut fl = gpu.upload(&host_flags).unwrap();
                        let mut list: DeviceBuffer<u32> = gpu.upload(&vec![u32::MAX; n]).unwrap();
                        let mut counters: DeviceBuffer<u32> = gpu.zeros(3).unwrap();
                        let dims = compact_dims(&gpu, n);
                        match (language, with_degrees) {
                            (true, false) => lang::compaction::thread::compact_flags(
                                &gpu,
                                &g,
                                &mut fl,
                                &mut list,
                                &mut counters,
                            )
                            .unwrap(),
                            (true, true) => {
                                lang::compaction_degrees::thread::compact_flags_degrees(
                                    &gpu,
                                    &g,
                                    &mut fl,
                                    &mut list,
                                    &mut counters,
                                    degrees_below,
                                )
                                .unwrap()
                            }
                            (false, false) => {
                                let args =
                                    loops_compact_flags::args(&fl, n as u32, &list, &counters);
                                gpu.launch_function("loops_compact_flags", &compact, dims, args)
                                    .unwrap()
                            }
                            (false, true) => {
                                let args = loops_compact_flags_degrees::args(
                                    &fl,
                                    n as u32,
                                    &list,
                                    &counters,
                                    g.offsets(),
                                    n as u32,
                                    degrees_below,
                                );
                                gpu.launch_function(
                                    "loops_compact_flags_degrees",
                                    &compact_degrees,
                                    dims,
                                    args,
                                )
                                .unwrap()
                            }
                        }
                        let c = gpu.download(&counters).unwrap();
                        let what = format!("n {n}, {fraction} set, language {language}, degrees {with_degrees}, below {degrees_below}");
                        assert_eq!(c[0] as usize, ids.len(), "{what}: count");
                        assert!(
                            gpu.download(&fl).unwrap().iter().all(|&f| f == 0),
                            "{what}: flags cleared"
                        );
                        let mut got = gpu.download(&list).unwrap();
                        assert!(
                            got[ids.len()..].iter().all(|&x| x == u32::MAX),
                            "{what}: nothing past the count"
                        );
                        got.truncate(ids.len());
                        got.sort_unstable();
                        assert_eq!(got, ids, "{what}: ids");
                        if with_degrees {
                            if degrees_below == u32::MAX {
                                assert_eq!(c[2], largest, "{what}: largest degree");
                            } else {
                                assert!(c[2] <= largest, "{what}: a lower bound");
                            }
                        }
                    }
                }
            }

            // The degree sum: the hand-written over the ids, the language's over them and ids past
            // the graph.
            let expected: u64 = ids.iter().map(|&v| degree(v) as u64).sum();
            let mut with_outside = ids.clone();
            with_outside.extend([n as u32, u32::MAX]);
            let frontier = gpu.upload(&with_outside).unwrap();
            let mut total: DeviceBuffer<u64> = gpu.zeros(1).unwrap();
            lang::degree_sum::thread::frontier_degree_sum(&gpu, &g, &frontier, &mut total).unwrap();
            assert_eq!(
                gpu.download(&total).unwrap(),
                [expected],
                "n {n}, {fraction}: language sum"
            );
            if !ids.is_empty() {
                let frontier = gpu.upload(&ids).unwrap();
                let total: DeviceBuffer<u64> = gpu.zeros(1).unwrap();
                let dims = kernels_gen::schedule::LaunchDims {
                    grid: ids.len().div_ceil(256) as u32,
                    block: 256,
                    shared_bytes: 0,
                };
                let args =
                    loops_frontier_degrees::args(&frontier, ids.len() as u32, g.offsets(), &total);
                gpu.launch_function("loops_frontier_degrees", &degree_sum, dims, args)
                    .unwrap();
                assert_eq!(
                    gpu.download(&total).unwrap(),
                    [expected],
                    "n {n}, {fraction}: hand-written sum"
                );
            }
        }
    }
}
