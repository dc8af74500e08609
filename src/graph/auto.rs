//! [`Strategy::Auto`] for the graph algorithms: measured, as `auto` chooses a schedule and SpMV
//! and SpMM choose their plans, through the one tuner (`loops::tune`: its key, its cache on
//! disk, its `LOOPS_TUNE` settings).
//!
//! What is chosen: a [`Pick`], the step's schedule (or SSSP's relax round) with the loop, among
//! a small candidate list per algorithm ([`picks`]). Where the caller leaves both on auto
//! (schedule `auto`, [`Strategy::Auto`]) the list is joint, a few schedules in the best loop
//! and `auto` in the others; where the schedule is named, the loops it can run in; where only a
//! schedule is chosen (triangles, one launch), the schedules:
//!
//! | algorithm | both on auto | a named schedule |
//! |---|---|---|
//! | `bfs` | `auto`, `thread`, `warp` in the device queue; `auto` in device flags, host | device queue, device flags, host |
//! | `bfs-do` | `auto`, `thread`, `warp` in the device queue; `auto` in host | device queue, host |
//! | `sssp-near-far` | the `lanes` round, `auto`, `auto` in one bucket (Bellman-Ford's rounds), device flags | device flags, host |
//! | `sssp` (Bellman-Ford) | `auto`, `thread`, `warp` in device flags; `auto` in device scan | device flags, device scan, host |
//! | `components` | `auto`, `thread`, `warp` in the device loop; `auto` in host | device loop, host |
//! | `triangles` | `auto`, `thread`, `warp`, `block`, `lrb` | (nothing to choose) |
//!
//! PageRank and k-core choose the loop alone (their callers' lists). A schedule named with
//! [`Strategy::Auto`] keeps `auto`'s rule for the schedule: chosen per launch by SpMV's measured
//! `auto` (where the schedule is `auto` and the loop is named, the same).
//!
//! Per call, not per level: the device loops record their levels once as a CUDA graph and replay
//! it, one step kernel a level; a per-level choice would record one replay per schedule and
//! switch on device counters, and `auto` as a schedule already picks a mapping per launch from
//! the frontier it is given. The joint list gives the levels' shape (the source's, the
//! graph's) one schedule for the whole run.
//!
//! The first call of an algorithm on a graph of a shape (with a schedule and an element type) runs
//! each candidate on that call's own work, four times back to back: once to warm it (kernels
//! compiled or loaded, `auto`'s schedule measured, a replay recorded: first-use costs, which can be
//! 10x a run, so the warm run ranks nothing), then three times more, timed on the host from a
//! synchronized start to the GPU's end (what the caller waits for: launches, read-backs,
//! recording), the fastest of the three kept (with two, 16 of the 26-graph set's 208 choices ran
//! over 10% slower than the best fixed row, some of them the same choice: stop 51). Back to back,
//! because a loop that keeps its recordings for the next run of the same key (DO-BFS's device
//! queue) reaches its kept state only if no other candidate runs in between. The fastest is kept in
//! the process (by the tuner's key) and in the tuning cache on disk; the call returns the winner's
//! run, made once more, so its result and stats are the winner's. Later calls of the same shape run
//! the winner, found first by a per-process hash of the choice (building the tuner's key, two
//! SHA-256 digests and some formatting, cost 10-15 us a call, a tenth of a small graph's call).
//! With `LOOPS_TUNE=off`, or a single candidate, nothing is measured: the caller's rule decides
//! (`measured` returns `None`).
//!
//! The key: the algorithm and its candidates (as the kernel name), the device, the element type,
//! and the graph's shape (vertices, edges, the log2 histogram of degrees, the largest degree,
//! the longest run of isolated vertices) with anything else the caller adds (a source's degree,
//! the iteration count).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use loops_runtime::tune::{DeviceIdentity, Fingerprint, TuneCache, TuneKey, Winner};

use loops_runtime::graph::{DeviceGraph, UNREACHED};

use super::driver::{on_device, Strategy};
use super::{BfsOptions, BfsResult, SsspMethod, SsspOptions, SsspResult};
use crate::schedule::auto::TileStats;
use crate::{Gpu, Result};

/// One candidate of graph `auto`: the step's schedule (SSSP: its relax round) and the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pick<'a> {
    /// The schedule (a name of `loops::SCHEDULES`, `auto`, or near-far's `lanes` round).
    pub schedule: &'a str,
    /// The loop (never [`Strategy::Auto`]; [`Strategy::Host`] for triangles, which has no other).
    pub strategy: Strategy,
    /// Near-far SSSP in one bucket (delta `UNREACHED`): Bellman-Ford's rounds in near-far's loop.
    pub one_bucket: bool,
}

impl Pick<'_> {
    /// `schedule/loop`, with `/one-bucket`: its name in the tuner's key and cache.
    pub fn name(&self) -> String {
        let mut name = format!("{}/{}", self.schedule, self.strategy.name());
        if self.one_bucket {
            name += "/one-bucket";
        }
        name
    }
}

/// What a candidate is named by in the tuner's key and cache.
pub(crate) trait Candidate: Copy + PartialEq + Hash {
    fn label(&self) -> String;
}

impl Candidate for Strategy {
    fn label(&self) -> String {
        self.name().to_string()
    }
}

impl Candidate for Pick<'_> {
    fn label(&self) -> String {
        self.name()
    }
}

/// The algorithms [`picks`] lists candidates for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Push-only BFS.
    Bfs,
    /// Direction-optimizing BFS.
    BfsDo,
    /// Near-far SSSP.
    SsspNearFar,
    /// Bellman-Ford SSSP.
    SsspBellmanFord,
    /// Connected components.
    Components,
    /// Triangle counting.
    Triangles,
}

/// The schedules the joint lists try in the best loop beside `auto`.
const JOINT_SCHEDULES: &[&str] = &["auto", "thread", "warp"];

/// The schedules of triangle counting's list.
pub const TRIANGLE_SCHEDULES: &[&str] = &["auto", "thread", "warp", "block", "lrb"];

/// The candidates graph `auto` measures for `algorithm` asked `schedule` with
/// [`Strategy::Auto`] (the module's table): the joint list under `auto`, else the loops
/// `schedule` can run in (empty where it runs in none but the host: nothing to measure).
pub fn picks<'a>(algorithm: Algorithm, schedule: &'a str) -> Vec<Pick<'a>> {
    use Strategy::{DeviceFlags, DeviceQueue, DeviceScan, Host};
    let pick = |schedule: &'a str, strategy| Pick {
        schedule,
        strategy,
        one_bucket: false,
    };
    let joint = |best: Strategy, others: &[Strategy]| -> Vec<Pick<'a>> {
        let mut out: Vec<Pick<'a>> = JOINT_SCHEDULES.iter().map(|&s| pick(s, best)).collect();
        out.extend(others.iter().map(|&o| pick("auto", o)));
        out
    };
    let loops = |loops: &[Strategy]| loops.iter().map(|&l| pick(schedule, l)).collect();
    let auto = schedule == "auto" && on_device("auto");
    let device = on_device(schedule);
    match algorithm {
        Algorithm::Bfs if auto => joint(DeviceQueue, &[DeviceFlags, Host]),
        Algorithm::Bfs if device && super::bfs::queue::SCHEDULES.contains(&schedule) => {
            loops(&[DeviceQueue, DeviceFlags, Host])
        }
        Algorithm::BfsDo if auto => joint(DeviceQueue, &[Host]),
        Algorithm::BfsDo if device && super::bfs_do::push_queue::SCHEDULES.contains(&schedule) => {
            loops(&[DeviceQueue, Host])
        }
        Algorithm::SsspNearFar if auto => vec![
            pick("lanes", DeviceFlags),
            pick("auto", DeviceFlags),
            Pick {
                one_bucket: true,
                ..pick("auto", DeviceFlags)
            },
        ],
        Algorithm::SsspNearFar if device => loops(&[DeviceFlags, Host]),
        Algorithm::SsspBellmanFord if auto => joint(DeviceFlags, &[DeviceScan]),
        Algorithm::SsspBellmanFord if device => loops(&[DeviceFlags, DeviceScan, Host]),
        Algorithm::Components if auto => joint(DeviceQueue, &[Host]),
        Algorithm::Components => loops(&[DeviceQueue, Host]),
        Algorithm::Triangles if schedule == "auto" => {
            TRIANGLE_SCHEDULES.iter().map(|&s| pick(s, Host)).collect()
        }
        _ => Vec::new(),
    }
}

/// What the choice is for: the algorithm, its schedule and element type, the graph's shape and
/// anything else the winner depends on.
pub(crate) struct Choice<'a> {
    pub algorithm: &'a str,
    pub schedule: &'a str,
    pub element: &'a str,
    pub shape: TileStats,
    pub extra: Vec<u64>,
}

/// The winners of this process, by the tuner's key text: the winner's label.
fn kept() -> &'static Mutex<HashMap<String, String>> {
    static KEPT: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    KEPT.get_or_init(Default::default)
}

/// The winners of this process by [`quick_key`]: the winner's index among the candidates. A
/// call that finds its winner here builds no tuner key (two SHA-256 digests and some formatting,
/// some microseconds: a tenth of a small graph's call).
fn quick() -> &'static Mutex<HashMap<u64, usize>> {
    static QUICK: OnceLock<Mutex<HashMap<u64, usize>>> = OnceLock::new();
    QUICK.get_or_init(Default::default)
}

/// A hash of everything the tuner's key holds but the device's name, arch and driver (one
/// process, one ordinal: the same device): the algorithm, schedule, element, candidates, shape
/// and extras.
fn quick_key<C: Candidate>(ordinal: usize, choice: &Choice<'_>, candidates: &[C]) -> u64 {
    let mut h = DefaultHasher::new();
    ordinal.hash(&mut h);
    choice.algorithm.hash(&mut h);
    choice.schedule.hash(&mut h);
    choice.element.hash(&mut h);
    candidates.hash(&mut h);
    choice.shape.hash(&mut h);
    choice.extra.hash(&mut h);
    h.finish()
}

/// Keeps `winner` (index `index` of the candidates) by the quick key.
fn keep_quick(quick_key: u64, index: usize) {
    quick()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(quick_key, index);
}

/// Whether measuring is on (`LOOPS_TUNE` not off).
pub(crate) fn enabled() -> bool {
    *TuneCache::global() != TuneCache::disabled()
}

/// The tuner's key text parts of `choice` among candidates of these labels: the kernel name and
/// the source text.
fn key_names(choice: &Choice<'_>, labels: &[String]) -> (String, String) {
    let kernel = format!("graph {} [{}]", choice.algorithm, labels.join(" "));
    let source = format!(
        "schedule and loop choice of loops::graph::{} under schedule {:?}, format 2",
        choice.algorithm, choice.schedule
    );
    (kernel, source)
}

/// The tuner's key of `choice` among `candidates`.
fn key<C: Candidate>(gpu: &Gpu, choice: &Choice<'_>, candidates: &[C]) -> TuneKey {
    let labels: Vec<String> = candidates.iter().map(|c| c.label()).collect();
    let (kernel, source) = key_names(choice, &labels);
    TuneKey::new(
        &kernel,
        &source,
        &DeviceIdentity::of(gpu),
        &fingerprint(choice),
    )
}

/// The graph's shape and the caller's extras as the tuner's fingerprint.
fn fingerprint(choice: &Choice<'_>) -> Fingerprint {
    let s = &choice.shape;
    Fingerprint {
        element: choice.element.to_string(),
        checked: false,
        wide: false,
        tiles: s.tiles,
        atoms: s.atoms,
        histogram: {
            let mut h = [0u64; 32];
            for (i, &c) in s.histogram.iter().enumerate().take(32) {
                h[i] = c;
            }
            h
        },
        longest_tile: s.max_tile_atoms,
        longest_empty_run: s.longest_empty_run,
        extra: choice.extra.clone(),
    }
}

/// The candidate of `candidates` labelled `label`.
fn by_label<C: Candidate>(candidates: &[C], label: &str) -> Option<C> {
    candidates.iter().copied().find(|c| c.label() == label)
}

/// The winner kept for `choice` (this process's, else the tuning cache's), if any.
pub(crate) fn known<C: Candidate>(gpu: &Gpu, choice: &Choice<'_>, candidates: &[C]) -> Option<C> {
    let key = key(gpu, choice, candidates);
    let kept_label = kept()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(key.text())
        .cloned();
    if let Some(label) = kept_label {
        return by_label(candidates, &label);
    }
    let stored = TuneCache::global()
        .load(&key)
        .and_then(|w| by_label(candidates, &w.variant))?;
    kept()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.text().to_string(), stored.label());
    Some(stored)
}

/// Timed runs of each candidate after its warm run; the fastest counts.
const TIMED_RUNS: usize = 3;

/// Which of `times` (seconds per candidate; `None`: it failed) wins, by the rule above: the
/// fastest; `None` if all failed.
pub(crate) fn fastest(times: &[Option<f64>]) -> Option<usize> {
    times
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.map(|t| (i, t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// `run(candidate)` for the winner among `candidates` (see the module documentation): the kept
/// winner's run, or, the first time, the candidates measured on this call's work and then the
/// winner's run. `None` where nothing is measured (tuning off, fewer than two candidates): the
/// caller decides by its rule.
pub(crate) fn measured<C: Candidate, R>(
    gpu: &Gpu,
    choice: &Choice<'_>,
    candidates: &[C],
    mut run: impl FnMut(C) -> Result<R>,
) -> Result<Option<R>> {
    if candidates.len() < 2 || !enabled() {
        return Ok(None);
    }
    let quick_key = quick_key(gpu.ordinal(), choice, candidates);
    let quick_hit = quick()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&quick_key)
        .copied();
    if let Some(i) = quick_hit.filter(|&i| i < candidates.len()) {
        return run(candidates[i]).map(Some);
    }
    if let Some(c) = known(gpu, choice, candidates) {
        if let Some(i) = candidates.iter().position(|&x| x == c) {
            keep_quick(quick_key, i);
        }
        return run(c).map(Some);
    }
    let mut time = |c: C| -> Result<f64> {
        gpu.synchronize()?;
        let start = Instant::now();
        let r = run(c)?;
        gpu.synchronize()?;
        let t = start.elapsed().as_secs_f64();
        drop(r);
        Ok(t)
    };
    // Each candidate's four runs back to back: a loop that keeps its recordings for the next
    // run of the same key (DO-BFS in the device queue records on its second run and replays
    // from its third) reaches its kept state only if no other candidate runs in between.
    let mut first_error = None;
    let mut times = vec![None; candidates.len()];
    for (i, &c) in candidates.iter().enumerate() {
        match time(c) {
            Ok(_) => {
                let mut t = time(c)?;
                for _ in 1..TIMED_RUNS {
                    t = t.min(time(c)?);
                }
                times[i] = Some(t);
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    let Some(best) = fastest(&times) else {
        return Err(first_error.expect("every candidate failed"));
    };
    let winner = candidates[best];
    let key = key(gpu, choice, candidates);
    TuneCache::global().store(
        &key,
        &Winner {
            variant: winner.label(),
            timings_us: candidates
                .iter()
                .zip(&times)
                .filter_map(|(c, t)| t.map(|t| (c.label(), t * 1e6)))
                .collect(),
        },
    );
    kept()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.text().to_string(), winner.label());
    keep_quick(quick_key, best);
    run(winner).map(Some)
}

/// [`bfs`](fn@super::bfs) under [`Strategy::Auto`], measured among [`picks`] (push only:
/// [`Algorithm::Bfs`]; direction-optimizing: [`Algorithm::BfsDo`]); `None` where nothing is
/// measured.
pub(crate) fn bfs_auto(
    gpu: &Gpu,
    graph: &DeviceGraph,
    source: u32,
    options: &BfsOptions,
) -> Result<Option<BfsResult>> {
    let schedule = options.schedule.as_str();
    let (algorithm, which) = match options.direction {
        Some(_) => ("bfs-do", Algorithm::BfsDo),
        None => ("bfs", Algorithm::Bfs),
    };
    let candidates = picks(which, schedule);
    let choice = Choice {
        algorithm,
        schedule,
        element: "u32",
        shape: crate::TileSet::stats(graph.offsets()),
        extra: Vec::new(),
    };
    measured(gpu, &choice, &candidates, |pick| {
        let asked = BfsOptions {
            schedule: pick.schedule.to_string(),
            strategy: pick.strategy,
            ..options.clone()
        };
        super::bfs(gpu, graph, source, &asked)
    })
}

/// [`sssp`](fn@super::sssp) under [`Strategy::Auto`], measured among [`picks`] (near-far:
/// [`Algorithm::SsspNearFar`], the relax round with the loop; Bellman-Ford:
/// [`Algorithm::SsspBellmanFord`]); `None` where nothing is measured. Near-far's one-bucket
/// candidate only where the caller leaves the delta on its default.
pub(crate) fn sssp_auto(
    gpu: &Gpu,
    graph: &DeviceGraph,
    source: u32,
    options: &SsspOptions,
) -> Result<Option<SsspResult>> {
    let schedule = options.schedule.as_str();
    let (algorithm, which) = match options.method {
        SsspMethod::NearFar => ("sssp-near-far", Algorithm::SsspNearFar),
        SsspMethod::BellmanFord => ("sssp", Algorithm::SsspBellmanFord),
    };
    let mut candidates = picks(which, schedule);
    if options.delta.is_some() {
        candidates.retain(|p| !p.one_bucket);
    }
    let choice = Choice {
        algorithm,
        schedule,
        element: "u32",
        shape: crate::TileSet::stats(graph.offsets()),
        extra: vec![options.delta.map_or(u64::MAX, |d| d as u64)],
    };
    measured(gpu, &choice, &candidates, |pick| {
        let asked = SsspOptions {
            schedule: pick.schedule.to_string(),
            strategy: pick.strategy,
            delta: if pick.one_bucket {
                Some(UNREACHED)
            } else {
                options.delta
            },
            ..options.clone()
        };
        super::sssp(gpu, graph, source, &asked)
    })
}

/// The shape of a graph of these degrees (a host graph's).
pub(crate) fn shape_of_degrees(degrees: impl IntoIterator<Item = u64>) -> TileStats {
    TileStats::of_sizes(degrees)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fastest_wins() {
        assert_eq!(fastest(&[Some(2.0), Some(1.0), None]), Some(1));
        assert_eq!(fastest(&[None, None]), None);
        assert_eq!(fastest(&[Some(1.0), Some(1.0)]), Some(0));
    }

    fn names(picks: &[Pick<'_>]) -> Vec<String> {
        picks.iter().map(Pick::name).collect()
    }

    #[test]
    fn the_joint_lists_under_auto() {
        if !on_device("auto") {
            return; // checked mode: nothing runs on the device
        }
        assert_eq!(
            names(&picks(Algorithm::Bfs, "auto")),
            [
                "auto/device-queue",
                "thread/device-queue",
                "warp/device-queue",
                "auto/device-flags",
                "auto/host"
            ]
        );
        assert_eq!(
            names(&picks(Algorithm::BfsDo, "auto")),
            [
                "auto/device-queue",
                "thread/device-queue",
                "warp/device-queue",
                "auto/host"
            ]
        );
        assert_eq!(
            names(&picks(Algorithm::SsspNearFar, "auto")),
            [
                "lanes/device-flags",
                "auto/device-flags",
                "auto/device-flags/one-bucket"
            ]
        );
        assert_eq!(
            names(&picks(Algorithm::SsspBellmanFord, "auto")),
            [
                "auto/device-flags",
                "thread/device-flags",
                "warp/device-flags",
                "auto/device-scan"
            ]
        );
        assert_eq!(
            names(&picks(Algorithm::Components, "auto")),
            [
                "auto/device-queue",
                "thread/device-queue",
                "warp/device-queue",
                "auto/host"
            ]
        );
        assert_eq!(
            names(&picks(Algorithm::Triangles, "auto")),
            [
                "auto/host",
                "thread/host",
                "warp/host",
                "block/host",
                "lrb/host"
            ]
        );
    }

    #[test]
    fn a_named_schedule_measures_its_loops() {
        if !on_device("auto") {
            return;
        }
        assert_eq!(
            names(&picks(Algorithm::Bfs, "warp")),
            ["warp/device-queue", "warp/device-flags", "warp/host"]
        );
        assert_eq!(
            names(&picks(Algorithm::SsspNearFar, "lanes4")),
            ["lanes4/device-flags", "lanes4/host"]
        );
        assert_eq!(
            names(&picks(Algorithm::Components, "thread")),
            ["thread/device-queue", "thread/host"]
        );
        // Nothing to measure: the host loop alone, or a schedule that is fixed.
        assert!(picks(Algorithm::Bfs, "merge_path").is_empty());
        assert!(picks(Algorithm::SsspBellmanFord, "lrb").is_empty());
        assert!(picks(Algorithm::Triangles, "warp").is_empty());
        // Every candidate a fixed loop, never `auto`; every list without repeats.
        for a in [
            Algorithm::Bfs,
            Algorithm::BfsDo,
            Algorithm::SsspNearFar,
            Algorithm::SsspBellmanFord,
            Algorithm::Components,
            Algorithm::Triangles,
        ] {
            let list = names(&picks(a, "auto"));
            assert!(list.len() >= 2 && list.len() <= 5, "{a:?}: {list:?}");
            let mut unique = list.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), list.len(), "{a:?}");
            assert!(picks(a, "auto")
                .iter()
                .all(|p| p.strategy != Strategy::Auto));
        }
    }

    #[test]
    fn every_candidate_schedule_is_stamped() {
        // The kernels each list's schedules launch have them (else a candidate fails at run
        // time and `auto` measures one fewer).
        for s in JOINT_SCHEDULES {
            assert!(
                super::super::bfs::queue::SCHEDULES.contains(s),
                "bfs queue {s}"
            );
            assert!(super::super::bfs::SCHEDULES.contains(s), "bfs {s}");
            assert!(
                super::super::bfs_do::push_queue::SCHEDULES.contains(s),
                "bfs-do {s}"
            );
            assert!(super::super::sssp::SCHEDULES.contains(s), "sssp {s}");
            assert!(super::super::cc::hook::SCHEDULES.contains(s), "hook {s}");
        }
        assert!(super::super::sssp_near_far::SCHEDULES.contains(&"auto"));
        assert!(super::super::sssp_near_far::LANES.contains(&"lanes"));
        for s in TRIANGLE_SCHEDULES {
            assert!(
                super::super::tc::count::SCHEDULES.contains(s),
                "triangles {s}"
            );
        }
    }

    #[test]
    fn quick_keys_differ_where_the_tuner_keys_do() {
        let shape = shape_of_degrees([1, 2, 3]);
        let other = shape_of_degrees([1, 2, 4]);
        let choice = |algorithm, schedule, shape: TileStats, extra: Vec<u64>| Choice {
            algorithm,
            schedule,
            element: "u32",
            shape,
            extra,
        };
        let bfs = picks(Algorithm::Bfs, "auto");
        let cc = picks(Algorithm::Components, "auto");
        let base = quick_key(0, &choice("bfs", "auto", shape, vec![]), &bfs);
        assert_eq!(
            base,
            quick_key(0, &choice("bfs", "auto", shape, vec![]), &bfs)
        );
        assert_ne!(
            base,
            quick_key(1, &choice("bfs", "auto", shape, vec![]), &bfs)
        );
        assert_ne!(
            base,
            quick_key(0, &choice("bfs", "auto", other, vec![]), &bfs)
        );
        assert_ne!(
            base,
            quick_key(0, &choice("bfs", "auto", shape, vec![7]), &bfs)
        );
        assert_ne!(
            base,
            quick_key(0, &choice("bfs", "warp", shape, vec![]), &bfs)
        );
        assert_ne!(
            base,
            quick_key(0, &choice("bfs", "auto", shape, vec![]), &bfs[1..])
        );
        assert_ne!(
            base,
            quick_key(0, &choice("components", "auto", shape, vec![]), &cc)
        );
        let loops = [Strategy::DeviceQueue, Strategy::Host];
        assert_ne!(
            quick_key(0, &choice("k-core", "auto", shape, vec![]), &loops[..]),
            quick_key(0, &choice("k-core", "auto", shape, vec![]), &loops[..1])
        );
    }

    #[test]
    fn labels_name_the_kept_winner() {
        let list = picks(Algorithm::SsspNearFar, "lanes");
        for p in &list {
            assert_eq!(by_label(&list, &p.name()), Some(*p));
        }
        assert_eq!(by_label(&list, "thread/device-flags"), None);
        assert_eq!(
            by_label(&[Strategy::DeviceQueue, Strategy::Host], "host"),
            Some(Strategy::Host)
        );
    }

    #[test]
    fn keys_differ_by_algorithm_schedule_candidates_and_shape() {
        let shape = shape_of_degrees([1, 2, 3]);
        let other = shape_of_degrees([1, 2, 4]);
        assert_ne!(shape, other);
        assert_eq!(shape.tiles, 3);
        assert_eq!(shape.atoms, 6);
        let choice = |algorithm, schedule, shape: &TileStats| Choice {
            algorithm,
            schedule,
            element: "u32",
            shape: *shape,
            extra: Vec::new(),
        };
        let labels = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let ab = labels(&["a/host", "b/host"]);
        let base = key_names(&choice("bfs", "auto", &shape), &ab);
        assert_ne!(base, key_names(&choice("bfs-do", "auto", &shape), &ab));
        assert_ne!(base, key_names(&choice("bfs", "warp", &shape), &ab));
        assert_ne!(
            base,
            key_names(&choice("bfs", "auto", &shape), &labels(&["a/host"]))
        );
        assert_ne!(
            fingerprint(&choice("bfs", "auto", &shape)),
            fingerprint(&choice("bfs", "auto", &other))
        );
    }
}
