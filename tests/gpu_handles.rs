//! Handles of one device made, used and dropped in one thread while another thread records and
//! replays a device loop (stream capture) on its own handle: both must succeed. Every `Gpu::new`
//! handle of a device shares the device's primary context, so a handle that waited for the whole
//! context when it dropped (`cuCtxSynchronize`, as it once did) invalidated the capture of the other
//! thread (`CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`); a handle now waits for its own stream only.
//!
//! The recording thread runs BFS in the device queue loop on a long grid (a level count far past the
//! levels launched directly, so that every run records a replay and replays it), checked against
//! the CPU each run. The other thread makes handles (`Gpu::new` and a `fork` of it), uploads,
//! downloads and drops them, in two phases: first large read-backs only; then also small
//! read-backs (page-locked staging, freed with the handle) and a BFS in the host loop on the new
//! handle (kernels loaded into its own module cache, unloaded when it drops). Fresh seed each run
//! (`LOOPS_SEED` replays).
#![cfg(feature = "gpu")]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};

use loops::graph::reference::bfs_levels;
use loops::graph::{compare, BfsOptions, Graph, Strategy, UNREACHED};
use loops::prelude::*;

/// BFS runs of the recording thread per phase.
const RUNS: usize = 150;

/// One handle's life in the churning thread: made, used, dropped. `launch`: also small read-backs
/// and a BFS in the host loop on `small`.
fn churn_once(round: usize, launch: bool, small: &Graph, want: &[u32]) -> Result<(), String> {
    let gpu = Gpu::new(0).map_err(|e| format!("Gpu::new: {e}"))?;
    let fork = gpu.fork().map_err(|e| format!("fork: {e}"))?;
    let data: Vec<u32> = (0..4096u32).map(|i| i ^ round as u32).collect();
    for h in [&gpu, &fork] {
        let d = h.upload(&data).map_err(|e| format!("upload: {e}"))?;
        let back = h.download(&d).map_err(|e| format!("download: {e}"))?;
        if back != data {
            return Err(format!(
                "round {round}: the read-back differs from the upload"
            ));
        }
        if launch {
            let d = h.upload(&data[..16]).map_err(|e| format!("upload: {e}"))?;
            let back = h.download(&d).map_err(|e| format!("small download: {e}"))?;
            if back != data[..16] {
                return Err(format!("round {round}: the small read-back differs"));
            }
        }
    }
    if launch {
        let dg = fork
            .upload_graph(small)
            .map_err(|e| format!("upload_graph: {e}"))?;
        let options = BfsOptions {
            schedule: "warp".to_string(),
            strategy: Strategy::Host,
            direction: None,
        };
        let run =
            loops::graph::bfs(&fork, &dg, 0, &options).map_err(|e| format!("host BFS: {e}"))?;
        let got = fork
            .download(&run.levels)
            .map_err(|e| format!("download: {e}"))?;
        compare("host BFS levels", want, &got)?;
    }
    drop(fork);
    drop(gpu);
    Ok(())
}

/// One phase: `RUNS` recorded BFS runs on `gpu` beside a thread churning handles until they end.
/// Returns the handles churned meanwhile, or the first failure of either thread.
fn phase(gpu: &Gpu, long: &Graph, small: &Graph, launch: bool) -> Result<usize, String> {
    let want_long = bfs_levels(long, 0);
    let want_small = bfs_levels(small, 0);
    let levels = want_long
        .iter()
        .filter(|&&l| l != UNREACHED)
        .max()
        .map_or(0, |d| d + 1);
    assert!(
        levels > 120,
        "the long grid has {levels} levels: too few to record a replay"
    );
    let dg = gpu
        .upload_graph(long)
        .map_err(|e| format!("upload_graph: {e}"))?;
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let churn = s.spawn(|| {
            let mut n = 0;
            while !done.load(Ordering::Relaxed) {
                churn_once(n, launch, small, &want_small)
                    .map_err(|e| format!("churning thread, handle {n}: {e}"))?;
                n += 1;
            }
            Ok::<usize, String>(n)
        });
        let options = BfsOptions {
            schedule: "warp".to_string(),
            strategy: Strategy::DeviceQueue,
            direction: None,
        };
        let recorded = (0..RUNS).try_for_each(|i| {
            let run = loops::graph::bfs(gpu, &dg, 0, &options)
                .map_err(|e| format!("recording thread, run {i}: {e}"))?;
            if run.stats.iterations != levels {
                return Err(format!(
                    "recording thread, run {i}: {} levels, expected {levels}",
                    run.stats.iterations
                ));
            }
            let got = gpu
                .download(&run.levels)
                .map_err(|e| format!("recording thread, run {i}: download: {e}"))?;
            compare("device queue BFS levels", &want_long, &got)
                .map_err(|e| format!("recording thread, run {i}: {e}"))
        });
        done.store(true, Ordering::Relaxed);
        let churned = churn.join().expect("the churning thread panicked");
        recorded.and(churned)
    })
}

#[test]
fn dropping_a_handle_leaves_another_threads_capture_alone() {
    // The device loops refuse checked mode.
    loops::launch::set_checked_mode(Some(false));
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let gpu = common::gpu();
    let m: sprs::CsMat<f32> = loops::io::generate::grid2d(300, 6, seed);
    let long = Graph::from_pattern(&m, 1, seed).expect("grid graph");
    let m: sprs::CsMat<f32> = loops::io::generate::grid2d(20, 10, seed ^ 1);
    let small = Graph::from_pattern(&m, 1, seed ^ 1).expect("grid graph");
    let mut failures = Vec::new();
    for (launch, what) in [
        (false, "handles with large read-backs"),
        (true, "handles with small read-backs and a host-loop BFS"),
    ] {
        match phase(&gpu, &long, &small, launch) {
            Ok(n) => {
                println!("{what}: {RUNS} recorded BFS runs beside {n} handles made and dropped");
                if n == 0 {
                    failures.push(format!("{what}: no handle was dropped during the runs"));
                }
            }
            Err(e) => failures.push(format!("{what}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
