//! [`Strategy::Auto`] for the graph algorithms: measured, as `auto` chooses a schedule and SpMV
//! and SpMM choose their plans, through the one tuner (`loops::tune`: its key, its cache on
//! disk, its `LOOPS_TUNE` settings).
//!
//! The first call of an algorithm on a graph of a shape (with a schedule and an element type)
//! runs each candidate loop on that call's own work: once to warm it (kernels compiled or loaded,
//! `auto`'s schedule measured, a replay recorded: first-use costs, which can be 10x a run, so the
//! warm runs rank nothing), then twice more, timed on the host from a synchronized start to the
//! GPU's end (what the caller waits for: launches, read-backs, recording), the faster of the two
//! kept. The fastest is kept in the process (by the
//! tuner's key) and in the tuning cache on disk; the call returns the winner's run, made once
//! more, so its result and stats are the winner's. Later calls of the same shape run the
//! winner. With `LOOPS_TUNE=off`, or a single candidate, nothing is measured: the caller's rule
//! decides ([`measured`] returns `None`).
//!
//! The key: the algorithm and its candidates (as the kernel name), the device, the element type,
//! and the graph's shape (vertices, edges, the log2 histogram of degrees, the largest degree,
//! the longest run of isolated vertices) with anything else the caller adds (a source's degree,
//! the iteration count).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use loops_runtime::tune::{DeviceIdentity, Fingerprint, TuneCache, TuneKey, Winner};

use loops_runtime::graph::DeviceGraph;

use super::driver::{on_device, Strategy};
use super::{BfsOptions, BfsResult, SsspMethod, SsspOptions, SsspResult};
use crate::schedule::auto::TileStats;
use crate::{Gpu, Result};

/// What the choice is for: the algorithm, its schedule and element type, the graph's shape and
/// anything else the winner depends on.
pub(crate) struct Choice<'a> {
    pub algorithm: &'a str,
    pub schedule: &'a str,
    pub element: &'a str,
    pub shape: TileStats,
    pub extra: Vec<u64>,
}

/// The winners of this process, by the tuner's key text.
fn kept() -> &'static Mutex<HashMap<String, Strategy>> {
    static KEPT: OnceLock<Mutex<HashMap<String, Strategy>>> = OnceLock::new();
    KEPT.get_or_init(Default::default)
}

/// Whether measuring is on (`LOOPS_TUNE` not off).
pub(crate) fn enabled() -> bool {
    *TuneCache::global() != TuneCache::disabled()
}

/// The tuner's key of `choice` among `candidates`.
fn key(gpu: &Gpu, choice: &Choice<'_>, candidates: &[Strategy]) -> TuneKey {
    let names: Vec<&str> = candidates.iter().map(|s| s.name()).collect();
    let kernel = format!("graph {} [{}]", choice.algorithm, names.join(" "));
    let source = format!(
        "loop choice of loops::graph::{} under schedule {:?}, format 1",
        choice.algorithm, choice.schedule
    );
    let s = &choice.shape;
    let fingerprint = Fingerprint {
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
    };
    TuneKey::new(&kernel, &source, &DeviceIdentity::of(gpu), &fingerprint)
}

/// The winner kept for `choice` (this process's, else the tuning cache's), if any.
pub(crate) fn known(gpu: &Gpu, choice: &Choice<'_>, candidates: &[Strategy]) -> Option<Strategy> {
    let key = key(gpu, choice, candidates);
    if let Some(&s) = kept()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(key.text())
    {
        return Some(s);
    }
    let stored = TuneCache::global()
        .load(&key)
        .and_then(|w| Strategy::from_name(&w.variant))
        .filter(|s| candidates.contains(s))?;
    kept()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.text().to_string(), stored);
    Some(stored)
}

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

/// `run(strategy)` for the winner among `candidates` (see the module documentation): the kept
/// winner's run, or, the first time, the candidates measured on this call's work and then the
/// winner's run. `None` where nothing is measured (tuning off, fewer than two candidates): the
/// caller decides by its rule.
pub(crate) fn measured<R>(
    gpu: &Gpu,
    choice: &Choice<'_>,
    candidates: &[Strategy],
    mut run: impl FnMut(Strategy) -> Result<R>,
) -> Result<Option<R>> {
    if candidates.len() < 2 || !enabled() {
        return Ok(None);
    }
    if let Some(s) = known(gpu, choice, candidates) {
        return run(s).map(Some);
    }
    let mut time = |s: Strategy| -> Result<f64> {
        gpu.synchronize()?;
        let start = Instant::now();
        let r = run(s)?;
        gpu.synchronize()?;
        let t = start.elapsed().as_secs_f64();
        drop(r);
        Ok(t)
    };
    let mut first_error = None;
    let mut warm = Vec::new();
    for &s in candidates {
        match time(s) {
            Ok(_) => warm.push(true),
            Err(e) => {
                first_error.get_or_insert(e);
                warm.push(false);
            }
        }
    }
    let mut times = vec![None; candidates.len()];
    for (i, &s) in candidates.iter().enumerate() {
        if warm[i] {
            let a = time(s)?;
            let b = time(s)?;
            times[i] = Some(a.min(b));
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
            variant: winner.name().to_string(),
            timings_us: candidates
                .iter()
                .zip(&times)
                .filter_map(|(s, t)| t.map(|t| (s.name().to_string(), t * 1e6)))
                .collect(),
        },
    );
    kept()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.text().to_string(), winner);
    run(winner).map(Some)
}

/// [`bfs`](fn@super::bfs) under [`Strategy::Auto`], measured among the loops its schedule can
/// run in (push only: the device queue, the device flags, the host loop; direction-optimizing:
/// the device queue and the host loop); `None` where nothing is measured.
pub(crate) fn bfs_auto(
    gpu: &Gpu,
    graph: &DeviceGraph,
    source: u32,
    options: &BfsOptions,
) -> Result<Option<BfsResult>> {
    let schedule = options.schedule.as_str();
    let on_device = on_device(schedule);
    let (algorithm, candidates) = match options.direction {
        Some(_) if on_device && super::bfs_do::push_queue::SCHEDULES.contains(&schedule) => {
            ("bfs-do", vec![Strategy::DeviceQueue, Strategy::Host])
        }
        None if on_device && super::bfs::queue::SCHEDULES.contains(&schedule) => (
            "bfs",
            vec![Strategy::DeviceQueue, Strategy::DeviceFlags, Strategy::Host],
        ),
        _ => return Ok(None),
    };
    let choice = Choice {
        algorithm,
        schedule,
        element: "u32",
        shape: crate::TileSet::stats(graph.offsets()),
        extra: Vec::new(),
    };
    measured(gpu, &choice, &candidates, |strategy| {
        let asked = BfsOptions {
            strategy,
            ..options.clone()
        };
        super::bfs(gpu, graph, source, &asked)
    })
}

/// [`sssp`](fn@super::sssp) under [`Strategy::Auto`], measured among the loops its schedule and
/// method can run in (the device flags, Bellman-Ford's device scan, the host loop); `None` where
/// nothing is measured.
pub(crate) fn sssp_auto(
    gpu: &Gpu,
    graph: &DeviceGraph,
    source: u32,
    options: &SsspOptions,
) -> Result<Option<SsspResult>> {
    let schedule = options.schedule.as_str();
    if !on_device(schedule) {
        return Ok(None);
    }
    let (algorithm, candidates) = match options.method {
        SsspMethod::NearFar => ("sssp-near-far", vec![Strategy::DeviceFlags, Strategy::Host]),
        SsspMethod::BellmanFord => (
            "sssp",
            vec![Strategy::DeviceFlags, Strategy::DeviceScan, Strategy::Host],
        ),
    };
    let choice = Choice {
        algorithm,
        schedule,
        element: "u32",
        shape: crate::TileSet::stats(graph.offsets()),
        extra: vec![options.delta.map_or(u64::MAX, |d| d as u64)],
    };
    measured(gpu, &choice, &candidates, |strategy| {
        let asked = SsspOptions {
            strategy,
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

    #[test]
    fn keys_differ_by_algorithm_shape_and_candidates() {
        // The key's text without a device: built from the parts `key` uses.
        let shape = shape_of_degrees([1, 2, 3]);
        let other = shape_of_degrees([1, 2, 4]);
        assert_ne!(shape, other);
        assert_eq!(shape.tiles, 3);
        assert_eq!(shape.atoms, 6);
    }
}
