//! Graph traversal on the GPU: SSSP (`src/graph/sssp.rs`) and BFS (`bfs.rs`), each under
//! every schedule that takes a frontier, driven by `loops::graph::FrontierLoop` in the host loop and, under every
//! schedule that can run there (thread, group2, warp, group64, block, auto), by
//! the loops that stay on the GPU (`LoopOn::{DevicePush, DeviceScan, DeviceQueue}`), checked exactly against
//! Dijkstra and a CPU BFS (u32 weights and distances, so every distance must be equal, not close). Graphs: every file of
//! ../shared/data/matrices (pattern, seeded random weights 1..=64), R-MAT scale 16, 2-D grids
//! (road-like), a graph with unreachable vertices, a single vertex, self-loops and duplicate edges.
//! Outputs are poisoned before each run. A printed seed replays a failure (`LOOPS_SEED`).
//! `LOOPS_SMALL_GRAPHS=1` (`tests/sanitize.sh`: under compute-sanitizer a launch costs
//! milliseconds) shrinks the inputs and drops repeated configurations, so that the binary runs whole
//! under memcheck or racecheck in a few minutes: R-MAT scale 10, grids of 7-9 levels, 64 vertices
//! with self-loops and duplicates, a star of 1,500 leaves and a path of 45, a hub of 2,000 edges;
//! one source per graph (the two-component graph: a reaching one and an isolated one); no host
//! SSSP on unit weights and no second device BFS per schedule; the hub's 27 walk and grid
//! configurations each under one of its four schedules in turn. What it keeps: every schedule in
//! the host loop and in each device loop (push, walking, scanning, queue), on every graph; replays
//! (`levels_per_replay` 1 to 1000, the walk limits) on the path of 100 of the device-loop tests;
//! checked mode and its refusal.
#![cfg(feature = "gpu")]

mod common;

use std::sync::{RwLock, RwLockReadGuard};

use loops::graph::{
    bfs_levels, compare, dijkstra, FrontierLoop, Graph, LoopOn, LoopStats, Next, UNREACHED,
};
use loops::prelude::*;

/// Checked mode is one setting for the process, and the device loop refuses it where it is asked
/// for: the test that turns it on holds this for writing, the others for reading.
static CHECKED_MODE: RwLock<()> = RwLock::new(());

/// Holds checked mode as it is (off unless asked for: the device loop then runs plain variants).
fn checked_mode_unchanged() -> RwLockReadGuard<'static, ()> {
    CHECKED_MODE.read().unwrap_or_else(|e| e.into_inner())
}

/// The schedules of a kernel that run in the device loop.
fn device_schedules(
    kernels: &[(&'static str, &loops::__private::KernelDesc)],
) -> Vec<&'static str> {
    kernels
        .iter()
        .filter(|(_, k)| k.runs_in_device_loop())
        .map(|&(s, _)| s)
        .collect()
}

/// Checks one traversal's result, or with `refused`, that the device loop refused it.
#[allow(clippy::too_many_arguments)]
fn check_run(
    gpu: &Gpu,
    what: &str,
    run: loops::Result<LoopStats>,
    out: &DeviceBuffer<u32>,
    want: &[u32],
    refused: bool,
    check_stats: impl Fn(LoopStats) -> Option<String>,
    failures: &mut Vec<String>,
) {
    match (run, refused) {
        (Ok(stats), false) => {
            if let Err(e) = compare(what, want, &gpu.download(out).unwrap()) {
                failures.push(e);
            }
            if let Some(e) = check_stats(stats) {
                failures.push(format!("{what}: {e}"));
            }
        }
        (Err(LoopsError::LoopOnDevice { .. }), true) => {}
        (Ok(_), true) => failures.push(format!("{what}: ran, checked mode should be refused")),
        (Err(e), _) => failures.push(format!("{what}: {e}")),
    }
}

/// Runs SSSP and BFS from `sources` under every schedule, in the host loop and (where the schedule
/// can) in the device loop; returns the failures.
fn check_graph(gpu: &Gpu, name: &str, g: &Graph, sources: &[u32]) -> Vec<String> {
    check_graph_in(gpu, name, g, sources, false)
}

/// [`check_graph`]; `checked`: checked mode was asked for, which the device loop must refuse.
fn check_graph_in(gpu: &Gpu, name: &str, g: &Graph, sources: &[u32], checked: bool) -> Vec<String> {
    let mut failures = Vec::new();
    let dg = gpu.upload_graph(g).expect("upload");
    let unit = g.unit_weights();
    let dg_unit = gpu.upload_graph(&unit).expect("upload");
    let mut frontier = FrontierLoop::new(gpu, g.vertices()).expect("frontier loop");
    // SSSP in replays of 6 levels (most graphs here take more than one), BFS in the default's.
    let mut short_replays = FrontierLoop::new(gpu, g.vertices()).expect("device loop");
    short_replays.set_levels_per_replay(6);
    let mut device = FrontierLoop::new(gpu, g.vertices()).expect("device loop");
    // `run_device` is a push run (its compaction walks the frontier's out-edges where they are
    // few); this one walks at every level but the first (whose degrees it does not know), with
    // one block per step, striding over every frontier.
    let mut walking = FrontierLoop::new(gpu, g.vertices()).expect("device loop");
    walking.set_walk_limit(Some(u64::MAX));
    // The first replay's 6 levels, then replays of 12 (a second recorded graph).
    walking.set_levels_per_replay(12);
    walking.set_step_blocks(Some(1));
    // The compaction that scans every flag (`run_device_scan`), by 3 blocks, with more step
    // blocks than the frontier has tiles.
    let mut scanning = FrontierLoop::new(gpu, g.vertices()).expect("device loop");
    scanning.set_step_blocks(Some(5000));
    scanning.set_compact_blocks(Some(3));
    let mut out = gpu.zeros::<u32>(g.vertices()).expect("alloc");
    let on_device_sssp = device_schedules(loops::graph::sssp::KERNELS);
    let on_device_bfs = device_schedules(loops::graph::bfs::KERNELS);
    for &source in sources {
        // Progress, for runs under a sanitizer (`--nocapture`).
        println!("{name}: source {source}");
        let want_dist = dijkstra(g, source);
        let want_levels = bfs_levels(g, source);
        let reached = want_levels.iter().filter(|&&l| l != UNREACHED).count() as u64;
        let depth = want_levels
            .iter()
            .filter(|&&l| l != UNREACHED)
            .max()
            .copied()
            .unwrap_or(0);
        for schedule in loops::graph::sssp::SCHEDULES {
            let what = format!("{name}, source {source}, sssp/{schedule}");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            match loops::graph::sssp::run(
                schedule,
                gpu,
                &mut frontier,
                LoopOn::Host,
                &dg,
                source,
                &mut out,
            ) {
                Ok(stats) => {
                    let got = gpu.download(&out).unwrap();
                    if let Err(e) = compare(&what, &want_dist, &got) {
                        failures.push(e);
                    }
                    // Every reached vertex is in at least one frontier.
                    if stats.frontier_vertices < reached {
                        failures.push(format!(
                            "{what}: {} frontier vertices < {reached} reached",
                            stats.frontier_vertices
                        ));
                    }
                }
                Err(e) => failures.push(format!("{what}: {e}")),
            }
            // SSSP with unit weights is BFS: the same kernel against the other reference (not with
            // small inputs: the same kernel and loop again; the device loop's run below keeps it).
            if common::small_graphs() {
                continue;
            }
            let what = format!("{name}, source {source}, sssp unit weights/{schedule}");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            match loops::graph::sssp::run(
                schedule,
                gpu,
                &mut frontier,
                LoopOn::Host,
                &dg_unit,
                source,
                &mut out,
            ) {
                Ok(_) => {
                    if let Err(e) = compare(&what, &want_levels, &gpu.download(&out).unwrap()) {
                        failures.push(e);
                    }
                }
                Err(e) => failures.push(format!("{what}: {e}")),
            }
        }
        for &schedule in &on_device_sssp {
            let frontier_check = |stats: LoopStats| {
                (stats.frontier_vertices < reached).then(|| {
                    format!(
                        "{} frontier vertices < {reached} reached",
                        stats.frontier_vertices
                    )
                })
            };
            let what = format!("{name}, source {source}, sssp/{schedule} in the device loop");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            let run = loops::graph::sssp::run(
                schedule,
                gpu,
                &mut short_replays,
                LoopOn::DevicePush(&dg),
                &dg,
                source,
                &mut out,
            );
            check_run(
                gpu,
                &what,
                run,
                &out,
                &want_dist,
                checked,
                frontier_check,
                &mut failures,
            );
            let what =
                format!("{name}, source {source}, sssp/{schedule} in the device loop, walking");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            let run = loops::graph::sssp::run(
                schedule,
                gpu,
                &mut walking,
                LoopOn::DevicePush(&dg),
                &dg,
                source,
                &mut out,
            );
            let walked = walking.walked_levels();
            check_run(
                gpu,
                &what,
                run,
                &out,
                &want_dist,
                checked,
                |stats| {
                    frontier_check(stats).or_else(|| {
                        (walked + 1 != stats.iterations)
                            .then(|| format!("{walked} of {} levels walked", stats.iterations))
                    })
                },
                &mut failures,
            );
            let what =
                format!("{name}, source {source}, sssp/{schedule} in the device loop, scanning");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            let run = loops::graph::sssp::run(
                schedule,
                gpu,
                &mut scanning,
                LoopOn::DeviceScan,
                &dg,
                source,
                &mut out,
            );
            let walked = scanning.walked_levels();
            check_run(
                gpu,
                &what,
                run,
                &out,
                &want_dist,
                checked,
                |stats| {
                    frontier_check(stats)
                        .or_else(|| (walked != 0).then(|| format!("{walked} levels walked")))
                },
                &mut failures,
            );
            let what =
                format!("{name}, source {source}, sssp unit weights/{schedule} in the device loop");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            let run = loops::graph::sssp::run(
                schedule,
                gpu,
                &mut device,
                LoopOn::DevicePush(&dg_unit),
                &dg_unit,
                source,
                &mut out,
            );
            check_run(
                gpu,
                &what,
                run,
                &out,
                &want_levels,
                checked,
                frontier_check,
                &mut failures,
            );
        }
        // Level-synchronous: one step per level, each reached vertex in one frontier.
        let level_check = |stats: LoopStats| {
            (stats.iterations as u64 != depth as u64 + 1 || stats.frontier_vertices != reached)
                .then(|| {
                    format!(
                        "{} iterations and {} frontier vertices, expected {} and {reached}",
                        stats.iterations,
                        stats.frontier_vertices,
                        depth + 1
                    )
                })
        };
        for &schedule in &on_device_bfs {
            let what = format!("{name}, source {source}, bfs/{schedule} in the device loop");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            let run = loops::graph::bfs::run(
                schedule,
                gpu,
                &mut device,
                LoopOn::DevicePush(&dg),
                &dg,
                source,
                &mut out,
            );
            check_run(
                gpu,
                &what,
                run,
                &out,
                &want_levels,
                checked,
                level_check,
                &mut failures,
            );
            let what =
                format!("{name}, source {source}, bfs/{schedule} in the device loop, walking");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            let run = loops::graph::bfs::run(
                schedule,
                gpu,
                &mut walking,
                LoopOn::DevicePush(&dg),
                &dg,
                source,
                &mut out,
            );
            let walked = walking.walked_levels();
            check_run(
                gpu,
                &what,
                run,
                &out,
                &want_levels,
                checked,
                |stats| {
                    level_check(stats).or_else(|| {
                        (walked + 1 != stats.iterations)
                            .then(|| format!("{walked} of {} levels walked", stats.iterations))
                    })
                },
                &mut failures,
            );
            let what =
                format!("{name}, source {source}, bfs/{schedule} in the device loop, scanning");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            let run = loops::graph::bfs::run(
                schedule,
                gpu,
                &mut scanning,
                LoopOn::DeviceScan,
                &dg,
                source,
                &mut out,
            );
            check_run(
                gpu,
                &what,
                run,
                &out,
                &want_levels,
                checked,
                level_check,
                &mut failures,
            );
            let what = format!("{name}, source {source}, bfs/{schedule} in the device loop");
            // The largest frontier is one of the levels' sizes, and reached vertices (not with small
            // inputs: the run above again).
            if !checked && !common::small_graphs() {
                let stats = loops::graph::bfs::run(
                    schedule,
                    gpu,
                    &mut device,
                    LoopOn::DevicePush(&dg),
                    &dg,
                    source,
                    &mut out,
                );
                match stats {
                    Ok(stats) if stats.max_frontier as u64 > reached || stats.max_frontier == 0 => {
                        failures.push(format!("{what}: largest frontier {}", stats.max_frontier))
                    }
                    Ok(_) => {}
                    Err(e) => failures.push(format!("{what}, again: {e}")),
                }
            }
        }
        // The step that appends its next frontier itself: one launch a level.
        for &schedule in loops::graph::bfs::DEVICE_QUEUE_SCHEDULES {
            for (lp, how) in [
                (&mut device, "default replays"),
                (&mut walking, "replays of 12, one step block"),
            ] {
                let what = format!("{name}, source {source}, bfs_queue/{schedule}, {how}");
                gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
                let run = loops::graph::bfs::run(
                    schedule,
                    gpu,
                    lp,
                    LoopOn::DeviceQueue,
                    &dg,
                    source,
                    &mut out,
                );
                check_run(
                    gpu,
                    &what,
                    run,
                    &out,
                    &want_levels,
                    checked,
                    |stats| {
                        level_check(stats).or_else(|| {
                            (stats.max_frontier as u64 > reached || stats.max_frontier == 0)
                                .then(|| format!("largest frontier {}", stats.max_frontier))
                        })
                    },
                    &mut failures,
                );
            }
        }
        for schedule in loops::graph::bfs::SCHEDULES {
            let what = format!("{name}, source {source}, bfs/{schedule}");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            match loops::graph::bfs::run(
                schedule,
                gpu,
                &mut frontier,
                LoopOn::Host,
                &dg,
                source,
                &mut out,
            ) {
                Ok(stats) => {
                    if let Err(e) = compare(&what, &want_levels, &gpu.download(&out).unwrap()) {
                        failures.push(e);
                    }
                    // Level-synchronous: one step per level, each reached vertex in one frontier.
                    if stats.iterations as u64 != depth as u64 + 1
                        || stats.frontier_vertices != reached
                    {
                        failures.push(format!(
                            "{what}: {} iterations and {} frontier vertices, expected {} and {reached}",
                            stats.iterations,
                            stats.frontier_vertices,
                            depth + 1
                        ));
                    }
                }
                Err(e) => failures.push(format!("{what}: {e}")),
            }
        }
    }
    failures
}

fn assert_none(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
}

#[test]
fn every_real_matrix() {
    let gpu = common::gpu();
    let _mode = checked_mode_unchanged();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut failures = Vec::new();
    let mut count = 0;
    for (name, m) in common::real_matrices::<f32>() {
        let g = Graph::from_pattern(&m, 64, seed).unwrap();
        let sources = common::graph_sources(&g);
        failures.extend(check_graph(
            &gpu,
            &name,
            &g,
            common::sized_sources(&sources, 1),
        ));
        count += 1;
    }
    // The whole corpus, unless a sanitizer run (`tests/sanitize.sh`) keeps a few on purpose.
    if std::env::var_os("LOOPS_MATRIX_FILTER").is_none() && common::has_corpus() {
        assert!(count >= 20, "only {count} matrices");
    }
    assert_none(failures);
}

#[test]
fn rmat_scale_16() {
    let gpu = common::gpu();
    let _mode = checked_mode_unchanged();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    // Scale 10 with small inputs (`common::small_graphs`).
    let scale = common::sized(16, 10);
    let m: sprs::CsMat<f32> = loops::io::generate::rmat(scale, 16, seed);
    let g = Graph::from_pattern(&m, 64, seed).unwrap();
    // Vertex 0 is the hub of an unpermuted R-MAT; a random vertex may reach little.
    let mut s = common::graph_sources(&g);
    s.push((seed % g.vertices() as u64) as u32);
    // With small inputs the hub only.
    let s = common::sized_sources(&s, 1);
    assert_none(check_graph(&gpu, &format!("rmat {scale}"), &g, s));
}

/// One grid of [`grids_road_like_grid`]'s tests from source 0 and a vertex in its middle; with small
/// inputs (`common::small_graphs`) `small` from the middle only (grids of 7-9 levels: the levels
/// the device loops replay are `device_loop_errors_limits_and_refusals`' and
/// `device_loop_push_walk_and_grids`' path of 100), else `full`. One test per grid, so a
/// sanitizer run can take each as its own process.
fn grids_road_like_grid(full: (usize, usize, u32), small: (usize, usize, u32)) {
    let gpu = common::gpu();
    let _mode = checked_mode_unchanged();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let (w, h, max_w) = common::sized(full, small);
    let m: sprs::CsMat<f32> = loops::io::generate::grid2d(w, h, seed);
    let g = Graph::from_pattern(&m, max_w, seed).unwrap();
    let far = (w * h / 2 + w / 2) as u32;
    assert_none(check_graph(
        &gpu,
        &format!("grid {w}x{h} weights 1..={max_w}"),
        &g,
        &common::sized(vec![0, far], vec![far]),
    ));
}

#[test]
fn grids_road_like() {
    grids_road_like_grid((300, 200, 100), (8, 6, 16));
}

#[test]
fn grids_road_like_path() {
    grids_road_like_grid((1, 500, 7), (1, 16, 7));
}

#[test]
fn grids_road_like_unit_weights() {
    grids_road_like_grid((64, 64, 1), (6, 6, 1));
}

#[test]
fn unreachable_vertices_single_vertex_self_loops_duplicates() {
    let gpu = common::gpu();
    let _mode = checked_mode_unchanged();
    let mut failures = Vec::new();
    // Two components (0..4 and 5..7, one way from 4 to nothing) and isolated vertices 8, 9.
    let two = Graph::from_edges(
        10,
        &[
            (0, 1, 3),
            (1, 2, 4),
            (2, 0, 1),
            (2, 3, 9),
            (3, 4, 1),
            (5, 6, 2),
            (6, 7, 2),
            (7, 5, 2),
            (4, 3, 1),
        ],
    )
    .unwrap();
    // With small inputs a reaching source and an isolated one.
    let sources = common::sized(vec![0, 5, 8, 9], vec![0, 8]);
    failures.extend(check_graph(&gpu, "two components", &two, &sources));
    failures.extend(check_graph(
        &gpu,
        "single vertex",
        &Graph::from_edges(1, &[]).unwrap(),
        &[0],
    ));
    failures.extend(check_graph(
        &gpu,
        "single vertex, self-loop",
        &Graph::from_edges(1, &[(0, 0, 5)]).unwrap(),
        &[0],
    ));
    // Self-loops everywhere, each edge repeated with a larger and a smaller weight, in both orders
    // (200 vertices, or 64 with small inputs).
    let n = common::sized(200u32, 64);
    let mut edges = Vec::new();
    for v in 0..n {
        edges.push((v, v, 1));
        let u = (v * 7 + 3) % n;
        edges.extend([
            (v, u, 50),
            (v, u, 5),
            (v, u, 50),
            (v, (v + 1) % n, 9),
            (v, (v + 1) % n, 9),
        ]);
    }
    failures.extend(check_graph(
        &gpu,
        "self-loops and duplicates",
        &Graph::from_edges(n as usize, &edges).unwrap(),
        common::sized_sources(&[0, n - 1], 1),
    ));
    // A star: one vertex with 100000 out-edges (longer than any group), then a path.
    let (leaves, star) = common::star_and_path(100_000, |u| u % 13 + 1, |_| 1);
    failures.extend(check_graph(
        &gpu,
        "star + path",
        &Graph::from_edges(leaves as usize + 1, &star).unwrap(),
        &[0],
    ));
    assert_none(failures);
}

/// The plain and the bounds-checked variants give the same distances.
#[test]
fn plain_and_checked_variants() {
    let gpu = common::gpu();
    let _mode = checked_mode_unchanged();
    let scale = common::sized(12, 9);
    let m: sprs::CsMat<f32> = loops::io::generate::rmat(scale, 8, 5);
    let g = Graph::from_pattern(&m, 20, 5).unwrap();
    let mut failures = Vec::new();
    // Asked for, checked mode is refused by the device loop (a checked launch waits for its
    // kernel): the other tests must not run the device loop meanwhile.
    drop(_mode);
    let _mode = CHECKED_MODE.write().unwrap_or_else(|e| e.into_inner());
    for mode in [false, true] {
        loops::launch::set_checked_mode(Some(mode));
        failures.extend(check_graph_in(
            &gpu,
            &format!("rmat {scale}, checked {mode}"),
            &g,
            &[0],
            mode,
        ));
    }
    loops::launch::set_checked_mode(None);
    assert_none(failures);
}

/// A queue step that appends more vertices than a frontier holds ends the run with an error
/// naming the count, writes nothing out of bounds, and leaves the loop usable.
#[test]
fn device_queue_overflow_is_an_error() {
    let gpu = common::gpu();
    let _mode = checked_mode_unchanged();
    let n = 8u32;
    let edges: Vec<(u32, u32, u32)> = (0..n)
        .flat_map(|v| (0..n).filter(move |&u| u != v).map(move |u| (v, u, 1)))
        .collect();
    let dg = gpu
        .upload_graph(&Graph::from_edges(n as usize, &edges).unwrap())
        .unwrap();
    let mut frontier = FrontierLoop::new(&gpu, n as usize).unwrap();
    let mut levels = gpu.zeros::<u32>(n as usize).unwrap();
    // Every level forgets what it reached and runs the step twice: each vertex is appended twice,
    // 16 appends to a frontier of 8.
    let all: Vec<u32> = (0..n).collect();
    let e = frontier
        .run(&gpu, LoopOn::DeviceQueue, &all, |gpu, current, next, _| {
            let Next::Queue {
                next,
                size: next_size,
            } = next
            else {
                panic!("a queue run gives a queue");
            };
            for _ in 0..2 {
                gpu.fill(&mut levels, UNREACHED)?;
                loops::graph::bfs::queue::launch(
                    "warp",
                    gpu,
                    dg.offsets(),
                    dg.adj(),
                    current,
                    &mut levels,
                    next,
                    next_size,
                )?;
            }
            Ok(())
        })
        .unwrap_err();
    assert!(
        matches!(&e, LoopsError::InvalidGraph { detail } if detail.contains("appended 16 vertices to a frontier of 8")),
        "{e}"
    );
    // The loop runs a correct step afterwards.
    let stats = loops::graph::bfs::run(
        "warp",
        &gpu,
        &mut frontier,
        LoopOn::DeviceQueue,
        &dg,
        0,
        &mut levels,
    )
    .unwrap();
    assert_eq!(gpu.download(&levels).unwrap(), [0, 1, 1, 1, 1, 1, 1, 1]);
    assert_eq!(stats.iterations, 2);
}

/// A frontier loop refuses a source outside the graph, and the loop can be reused across graphs
/// of up to its size.
#[test]
fn frontier_loop_errors_and_reuse() {
    let gpu = common::gpu();
    let _mode = checked_mode_unchanged();
    let mut frontier = FrontierLoop::new(&gpu, 100).unwrap();
    let e = frontier
        .run(&gpu, LoopOn::Host, &[100], |_, _, _, _| Ok(()))
        .unwrap_err();
    assert!(e.to_string().contains("source 100"), "{e}");
    // A step that flags nothing: one iteration; the host numbers the level, on the device too.
    let stats = frontier.run(&gpu, LoopOn::Host, &[3, 4], |gpu, f, next, level| {
        assert_eq!(f.len(), 2);
        assert_eq!(level.number, Some(0));
        assert_eq!(gpu.download(level.device)?[0], 0);
        assert!(matches!(next, Next::Flags(_)));
        Ok(())
    });
    assert_eq!(stats.unwrap().iterations, 1);
    // An iteration limit.
    frontier.set_max_iterations(Some(3));
    let g = Graph::from_edges(100, &(0..99u32).map(|v| (v, v + 1, 1)).collect::<Vec<_>>()).unwrap();
    let dg = gpu.upload_graph(&g).unwrap();
    let mut dist = gpu.zeros::<u32>(100).unwrap();
    let e = loops::graph::bfs::run("warp", &gpu, &mut frontier, LoopOn::Host, &dg, 0, &mut dist)
        .unwrap_err();
    assert!(
        matches!(e, LoopsError::NoConvergence { iterations: 3, .. }),
        "{e}"
    );
    frontier.set_max_iterations(None);
    loops::graph::bfs::run("warp", &gpu, &mut frontier, LoopOn::Host, &dg, 0, &mut dist).unwrap();
    assert_eq!(
        gpu.download(&dist).unwrap(),
        (0..100u32).collect::<Vec<_>>()
    );
    // A buffer's length below its capacity: downloads and fills see the length only.
    let mut b = gpu.upload(&[1u32, 2, 3, 4]).unwrap();
    b.set_len(2);
    gpu.fill(&mut b, 9).unwrap();
    assert_eq!(gpu.download(&b).unwrap(), [9, 9]);
    b.set_len(4);
    assert_eq!(gpu.download(&b).unwrap(), [9, 9, 3, 4]);
}

/// The device loop: a source outside the graph, a step that flags nothing, the iteration limit
/// (exact, inside and beyond a replay), reuse after an error, and a schedule it cannot run.
#[test]
fn device_loop_errors_limits_and_refusals() {
    let gpu = common::gpu();
    let _mode = checked_mode_unchanged();
    let mut frontier = FrontierLoop::new(&gpu, 100).unwrap();
    assert_eq!(
        frontier.levels_per_replay(),
        loops::graph::DEFAULT_LEVELS_PER_REPLAY
    );
    let scan = LoopOn::DeviceScan;
    let e = frontier
        .run(&gpu, scan, &[100], |_, _, _, _| Ok(()))
        .unwrap_err();
    assert!(e.to_string().contains("source 100"), "{e}");
    // No sources: nothing runs.
    let stats = frontier.run(&gpu, scan, &[], |_, _, _, _| {
        panic!("a step without a frontier")
    });
    assert_eq!(stats.unwrap(), LoopStats::default());
    // A step that flags nothing: one iteration; the step sees the frontier's capacity.
    let stats = frontier.run(&gpu, scan, &[3, 4], |_, f, next, level| {
        let flags = next.flags()?;
        assert_eq!((f.len(), flags.len(), level.device.len()), (100, 100, 1));
        assert_eq!(level.number, None);
        Ok(())
    });
    assert_eq!(
        stats.unwrap(),
        LoopStats {
            iterations: 1,
            frontier_vertices: 2,
            max_frontier: 2,
            pull_levels: 0,
        }
    );
    // A step that only flags, in the queue run: refused by `Next::flags`.
    let e = frontier
        .run(&gpu, LoopOn::DeviceQueue, &[3], |_, _, next, _| {
            next.flags().map(|_| ())
        })
        .unwrap_err();
    assert!(e.to_string().contains("DeviceQueue"), "{e}");
    // A path of 100 vertices takes 100 levels: one outside the graph, replays of 6, then the
    // last ones one at a time before the limit.
    let path =
        Graph::from_edges(100, &(0..99u32).map(|v| (v, v + 1, 1)).collect::<Vec<_>>()).unwrap();
    let dg = gpu.upload_graph(&path).unwrap();
    let mut dist = gpu.zeros::<u32>(100).unwrap();
    let all: Vec<u32> = (0..100).collect();
    for (per_replay, max) in [(6, Some(3)), (6, Some(50)), (48, Some(49)), (48, Some(99))] {
        frontier.set_levels_per_replay(per_replay);
        frontier.set_max_iterations(max);
        let e = loops::graph::bfs::run(
            "warp",
            &gpu,
            &mut frontier,
            LoopOn::DevicePush(&dg),
            &dg,
            0,
            &mut dist,
        )
        .unwrap_err();
        let max = max.unwrap();
        assert!(
            matches!(e, LoopsError::NoConvergence { iterations, frontier: 1 } if iterations == max),
            "{per_replay} levels a replay, limit {max}: {e}"
        );
        // The levels run before the limit are right.
        let got = gpu.download(&dist).unwrap();
        assert_eq!(&got[..=max as usize], &all[..=max as usize], "limit {max}");
        // The same with the step that appends its frontier (batches of its own kernels).
        gpu.fill(&mut dist, 0x5a5a_5a5a).unwrap();
        let e = loops::graph::bfs::run(
            "warp",
            &gpu,
            &mut frontier,
            LoopOn::DeviceQueue,
            &dg,
            0,
            &mut dist,
        )
        .unwrap_err();
        assert!(
            matches!(e, LoopsError::NoConvergence { iterations, frontier: 1 } if iterations == max),
            "queue step, {per_replay} levels a replay, limit {max}: {e}"
        );
        let got = gpu.download(&dist).unwrap();
        assert_eq!(
            &got[..=max as usize],
            &all[..=max as usize],
            "queue, limit {max}"
        );
    }
    for per_replay in [1, 6, 48, 1000] {
        frontier.set_levels_per_replay(per_replay);
        assert_eq!(frontier.levels_per_replay() % 6, 0);
        frontier.set_max_iterations(Some(100));
        let stats = loops::graph::bfs::run(
            "thread",
            &gpu,
            &mut frontier,
            LoopOn::DevicePush(&dg),
            &dg,
            0,
            &mut dist,
        )
        .unwrap_or_else(|e| panic!("{per_replay} levels a replay: {e}"));
        assert_eq!(gpu.download(&dist).unwrap(), all, "{per_replay}");
        let path_stats = LoopStats {
            iterations: 100,
            frontier_vertices: 100,
            max_frontier: 1,
            pull_levels: 0,
        };
        assert_eq!(stats, path_stats);
        gpu.fill(&mut dist, 0x5a5a_5a5a).unwrap();
        let stats = loops::graph::bfs::run(
            "thread",
            &gpu,
            &mut frontier,
            LoopOn::DeviceQueue,
            &dg,
            0,
            &mut dist,
        )
        .unwrap_or_else(|e| panic!("queue step, {per_replay} levels a replay: {e}"));
        assert_eq!(gpu.download(&dist).unwrap(), all, "queue, {per_replay}");
        assert_eq!(stats, path_stats, "queue, {per_replay}");
    }
    frontier.set_max_iterations(None);
    // A schedule that sizes its launches on the host is refused, naming it; the loop still runs.
    let host_sized = loops::graph::sssp::KERNELS
        .iter()
        .filter(|(_, desc)| !desc.runs_in_device_loop())
        .map(|&(schedule, _)| schedule);
    for schedule in host_sized {
        let e = loops::graph::sssp::run(
            schedule,
            &gpu,
            &mut frontier,
            LoopOn::DevicePush(&dg),
            &dg,
            0,
            &mut dist,
        )
        .unwrap_err();
        assert!(
            matches!(&e, LoopsError::LoopOnDevice { .. })
                && e.to_string().contains(&format!("schedule `{schedule}`")),
            "{schedule}: {e}"
        );
    }
    loops::graph::sssp::run(
        "auto",
        &gpu,
        &mut frontier,
        LoopOn::DevicePush(&dg),
        &dg,
        0,
        &mut dist,
    )
    .unwrap();
    assert_eq!(gpu.download(&dist).unwrap(), all);
    // A loop made for more vertices than the graph has (its frontier's capacity is larger than
    // the graph: positions beyond the frontier's size are never read).
    let mut larger = FrontierLoop::new(&gpu, 250).unwrap();
    let mut big = gpu.zeros::<u32>(250).unwrap();
    loops::graph::bfs::run(
        "block",
        &gpu,
        &mut larger,
        LoopOn::DevicePush(&dg),
        &dg,
        0,
        &mut big,
    )
    .unwrap();
    assert_eq!(&gpu.download(&big).unwrap()[..100], &all[..]);
    // The loop runs on the handle that made it only (a capture records one stream).
    let other = gpu.fork().unwrap();
    let e = loops::graph::bfs::run(
        "warp",
        &other,
        &mut frontier,
        LoopOn::DevicePush(&dg),
        &dg,
        0,
        &mut dist,
    )
    .unwrap_err();
    assert!(e.to_string().contains("handle that made it"), "{e}");
}

/// The push run of the device loop: its errors, the walk limit's choice level by level (counted
/// by `walked_levels`), a hub whose out-edges span many items of the walk, and the step and
/// compaction grids, every result exact.
#[test]
fn device_loop_push_walk_and_grids() {
    let gpu = common::gpu();
    let _mode = checked_mode_unchanged();
    let path =
        Graph::from_edges(100, &(0..99u32).map(|v| (v, v + 1, 1)).collect::<Vec<_>>()).unwrap();
    let dg = gpu.upload_graph(&path).unwrap();
    let all: Vec<u32> = (0..100).collect();
    let mut dist = gpu.zeros::<u32>(100).unwrap();
    // A graph larger than the loop, and a source of the loop's size but not of the graph's.
    let mut small = FrontierLoop::new(&gpu, 50).unwrap();
    let e = small
        .run(&gpu, LoopOn::DevicePush(&dg), &[0], |_, _, _, _| Ok(()))
        .unwrap_err();
    assert!(e.to_string().contains("made for 50"), "{e}");
    let mut larger = FrontierLoop::new(&gpu, 250).unwrap();
    let e = larger
        .run(&gpu, LoopOn::DevicePush(&dg), &[150], |_, _, _, _| Ok(()))
        .unwrap_err();
    assert!(e.to_string().contains("source 150"), "{e}");
    // The path: one vertex per level, degree 1. The default limit (vertices / 8 lanes) walks
    // every level but the first; 0 walks none; the scanning run none.
    let mut frontier = FrontierLoop::new(&gpu, 100).unwrap();
    assert_eq!(frontier.walk_limit(), loops::graph::default_walk_limit(100));
    for (limit, walked) in [(None, 99), (Some(0), 0), (Some(u64::MAX), 99)] {
        frontier.set_walk_limit(limit);
        let stats = loops::graph::bfs::run(
            "warp",
            &gpu,
            &mut frontier,
            LoopOn::DevicePush(&dg),
            &dg,
            0,
            &mut dist,
        )
        .unwrap();
        assert_eq!(gpu.download(&dist).unwrap(), all, "{limit:?}");
        assert_eq!(stats.iterations, 100);
        assert_eq!(frontier.walked_levels(), walked, "{limit:?}");
    }
    loops::graph::bfs::run(
        "warp",
        &gpu,
        &mut frontier,
        LoopOn::DeviceScan,
        &dg,
        0,
        &mut dist,
    )
    .unwrap();
    assert_eq!(gpu.download(&dist).unwrap(), all);
    assert_eq!(frontier.walked_levels(), 0);
    // A loop larger than the graph walks it too.
    larger.set_walk_limit(Some(u64::MAX));
    let mut big = gpu.zeros::<u32>(250).unwrap();
    loops::graph::bfs::run(
        "group64",
        &gpu,
        &mut larger,
        LoopOn::DevicePush(&dg),
        &dg,
        0,
        &mut big,
    )
    .unwrap();
    assert_eq!(&gpu.download(&big).unwrap()[..100], &all[..]);
    assert_eq!(larger.walked_levels(), 99);

    // A hub (vertex 0) of 20000 out-edges (625 items of 32 lanes in a walk; 2000 with small
    // inputs), reached from the source (whose degree the first level does not know), each leaf
    // with an edge to the next and some back to the hub.
    let hub = common::sized(20_000u32, 2_000);
    let source = hub + 1;
    let mut edges: Vec<(u32, u32, u32)> = vec![(source, 0, 1)];
    edges.extend((1..=hub).map(|u| (0, u, u % 7 + 1)));
    edges.extend((1..=hub).map(|u| (u, (u % hub) + 1, 3)));
    edges.extend((1..=hub).step_by(97).map(|u| (u, 0, 1)));
    let g = Graph::from_edges(hub as usize + 2, &edges).unwrap();
    let dg = gpu.upload_graph(&g).unwrap();
    let (want_dist, want_levels) = (dijkstra(&g, source), bfs_levels(&g, source));
    let mut frontier = FrontierLoop::new(&gpu, g.vertices()).unwrap();
    let mut out = gpu.zeros::<u32>(g.vertices()).unwrap();
    let limits = gpu.limits();
    let wave = limits.sm_count * (limits.max_threads_per_sm / 256);
    let mut failures = Vec::new();
    // With small inputs each configuration under one of the schedules in turn (each schedule
    // under 6 or 7 of the 27), not under every one.
    let mut configuration = 0;
    for limit in [None, Some(0), Some(u64::MAX)] {
        for step_blocks in [None, Some(1), Some(4 * wave)] {
            for compact_blocks in [None, Some(1), Some(3 * wave)] {
                configuration += 1;
                frontier.set_walk_limit(limit);
                frontier.set_step_blocks(step_blocks);
                frontier.set_compact_blocks(compact_blocks);
                let what = format!(
                    "hub, walk limit {limit:?}, step blocks {step_blocks:?}, compaction blocks {compact_blocks:?}"
                );
                let schedules = ["thread", "warp", "block", "auto"];
                let schedules = match common::small_graphs() {
                    true => &schedules[configuration % 4..][..1],
                    false => &schedules[..],
                };
                for &schedule in schedules {
                    gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
                    match loops::graph::sssp::run(
                        schedule,
                        &gpu,
                        &mut frontier,
                        LoopOn::DevicePush(&dg),
                        &dg,
                        source,
                        &mut out,
                    ) {
                        Ok(_) => {
                            if let Err(e) = compare(
                                &format!("{what}, sssp/{schedule}"),
                                &want_dist,
                                &gpu.download(&out).unwrap(),
                            ) {
                                failures.push(e);
                            }
                        }
                        Err(e) => failures.push(format!("{what}, sssp/{schedule}: {e}")),
                    }
                    gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
                    match loops::graph::bfs::run(
                        schedule,
                        &gpu,
                        &mut frontier,
                        LoopOn::DevicePush(&dg),
                        &dg,
                        source,
                        &mut out,
                    ) {
                        Ok(stats) => {
                            if let Err(e) = compare(
                                &format!("{what}, bfs/{schedule}"),
                                &want_levels,
                                &gpu.download(&out).unwrap(),
                            ) {
                                failures.push(e);
                            }
                            // BFS levels: the source (degree unknown: scanned), the hub (20000
                            // lanes), its leaves (up to 2 out-edges each: 40000 lanes), both over
                            // the default limit of 2500 (a tenth of each with small inputs):
                            // scanned unless every level may walk.
                            let walked = frontier.walked_levels();
                            let expected = match limit {
                                Some(0) | None => 0,
                                _ => stats.iterations - 1,
                            };
                            if walked != expected {
                                failures.push(format!(
                                    "{what}, bfs/{schedule}: {walked} levels walked, expected {expected}"
                                ));
                            }
                        }
                        Err(e) => failures.push(format!("{what}, bfs/{schedule}: {e}")),
                    }
                }
            }
        }
    }
    assert_none(failures);
}
