//! Near-far SSSP on the GPU (`src/graph/sssp_near_far.rs` driven by
//! `loops::graph::NearFarLoop` on the host, and on the device under every schedule that runs there,
//! with one, two and three hops), checked exactly against Dijkstra: every file of
//! ../shared/data/matrices, a road graph, a Kronecker graph of scale 14, a grid, a graph with
//! unreachable vertices; weights 1..=64 and 1..=1000 (1..=1000 only with small inputs); the
//! default delta and one other per graph (small: Dijkstra-like, many buckets; huge: Bellman-Ford). Every schedule runs on the generated
//! graphs and on a few real matrices, two schedules in turn on each other real matrix. Outputs are
//! poisoned before each run. A printed seed replays a failure (`LOOPS_SEED`).
//!
//! Time: each round and bucket advance is a host round trip (about 40 us on an H100), so a run
//! costs its buckets: delta 1 on a road network of 10^5 vertices and weights up to 1000 takes
//! some 500,000 of them (20 s). The small delta is therefore the smallest power of two that
//! leaves at most [`MAX_BUCKETS`] buckets per source ([`small_delta`]), and each graph prints its
//! time. `LOOPS_SMALL_GRAPHS=1` (`tests/sanitize.sh`: under compute-sanitizer a launch costs
//! milliseconds) shrinks the inputs and drops repeated configurations, so that the binary runs
//! whole under memcheck or racecheck in a few minutes: a road graph of 200 vertices, Kronecker
//! scale 9, a 12x8 grid, a star of 1,500 leaves and a path of 45; weights 1..=1000 only; one
//! source per graph (the two-component graph: a reaching one and an isolated one, deltas 1 and
//! 1000 besides the default); the small delta's bucket budget [`SMALL_MAX_BUCKETS`]; in the
//! device loop one hop count per schedule and run, not two. What it keeps: every schedule in the
//! host loop and in the device loop (with `lanes`, `lanes1`, `lanes32`), each with the edge count
//! on and off, both compactions, every hop count (1, 2, 3, 8) on some schedule, the default delta
//! and a small or Bellman-Ford one on every graph; replays and the iteration limit on the path of
//! 100 of `device_near_far_loop_errors_and_reuse`.
#![cfg(feature = "gpu")]

mod common;

use std::time::Instant;

use loops::graph::{
    compare, dijkstra, near_far_model, near_far_model_hops, Graph, Hops, NearFarLoop, NearFarOn,
    UNREACHED,
};
use loops::prelude::*;

/// The most buckets (distinct `distance / delta` values) the small delta leaves a source: with
/// the rounds inside them, some 2,500 host round trips, 0.1 s on an H100.
const MAX_BUCKETS: usize = 1000;

/// [`MAX_BUCKETS`] with small inputs (`common::small_graphs`).
const SMALL_MAX_BUCKETS: usize = 10;

/// The real matrices that run under every schedule: a huge row (`arrow`), a power-law graph
/// (`ca-GrQc`), a directed graph with unreachable vertices (`ldbc-directed-example`).
const EVERY_SCHEDULE: &[&str] = &["arrow.mtx", "ca-GrQc.mtx", "ldbc-directed-example.mtx"];

/// Schedules per other real matrix, taken in turn from the list.
const SCHEDULES_PER_MATRIX: usize = 2;

/// The smallest power of two delta that leaves at most [`MAX_BUCKETS`] buckets on the shortest
/// paths from each of `sources`: 1 (Dijkstra's order) on small graphs.
fn small_delta(g: &Graph, sources: &[u32]) -> u32 {
    let dists: Vec<Vec<u32>> = sources.iter().map(|&s| dijkstra(g, s)).collect();
    let buckets = |dist: &[u32], delta: u32| {
        let mut b: Vec<u32> = dist
            .iter()
            .filter(|&&d| d != UNREACHED)
            .map(|&d| d / delta)
            .collect();
        b.sort_unstable();
        b.dedup();
        b.len()
    };
    let mut delta = 1u32;
    let max = common::sized(MAX_BUCKETS, SMALL_MAX_BUCKETS);
    while delta < 1 << 30 && dists.iter().any(|d| buckets(d, delta) > max) {
        delta *= 2;
    }
    delta
}

/// Runs near-far SSSP from `sources` under each of `schedules`, with the default delta and each
/// of `deltas`; prints the graph's time; returns the failures.
fn check_graph(
    gpu: &Gpu,
    name: &str,
    g: &Graph,
    sources: &[u32],
    deltas: &[u32],
    schedules: &[&str],
) -> Vec<String> {
    let started = Instant::now();
    let mut failures = Vec::new();
    let dg = gpu.upload_graph(g).expect("upload");
    let mut near_far = NearFarLoop::new(gpu, g.vertices()).expect("near-far loop");
    let mut dist = gpu.zeros::<u32>(g.vertices()).expect("alloc");
    let mut all_deltas = vec![None];
    all_deltas.extend(deltas.iter().map(|&d| Some(d)));
    for &source in sources {
        // Progress, for runs under a sanitizer (`--nocapture`).
        println!("{name}: source {source}");
        let want = dijkstra(g, source);
        let reached = want.iter().filter(|&&d| d != UNREACHED).count() as u64;
        for (d, &delta) in all_deltas.iter().enumerate() {
            near_far.set_delta(delta);
            let used = near_far.delta_for(NearFarOn::Host, &dg);
            // The CPU model of the same buckets: its relaxed edges are what a run must at least do
            // (each reached vertex's edges once).
            let (model, _) = near_far_model(g, source, used);
            assert_eq!(model, want, "{name}: the CPU model");
            // The built-in round too (`NearFarRelax`, one hop in this loop).
            for (k, schedule) in schedules.iter().chain(&["lanes"]).enumerate() {
                // The edge count on for some runs, so both paths run under every schedule (with
                // small inputs, one source a graph: on for one delta, off for the next).
                let turn = k + source as usize + common::sized(0, d);
                let count = turn.is_multiple_of(2);
                near_far.set_count_edges(count);
                let what =
                    format!("{name}, source {source}, delta {used}, sssp_near_far/{schedule}");
                gpu.fill(&mut dist, 0x5a5a_5a5a).unwrap();
                match loops::graph::sssp_near_far::run(
                    schedule,
                    gpu,
                    &mut near_far,
                    NearFarOn::Host,
                    &dg,
                    source,
                    &mut dist,
                ) {
                    Ok(stats) => {
                        if let Err(e) = compare(&what, &want, &gpu.download(&dist).unwrap()) {
                            failures.push(e);
                        }
                        if stats.frontier_vertices < reached {
                            failures.push(format!(
                                "{what}: {} frontier vertices < {reached} reached",
                                stats.frontier_vertices
                            ));
                        }
                        let min_edges = loops::graph::traversed_edges(g, &want);
                        if count && stats.relaxed_edges < min_edges {
                            failures.push(format!(
                                "{what}: {} relaxed edges < {min_edges}, the reached vertices' edges",
                                stats.relaxed_edges
                            ));
                        }
                        if !count && stats.relaxed_edges != 0 {
                            failures.push(format!("{what}: edges counted without being asked"));
                        }
                    }
                    Err(e) => failures.push(format!("{what}: {e}")),
                }
            }
        }
    }
    near_far.set_delta(None);
    println!(
        "{name}: {} vertices, {} sources, deltas {deltas:?} and the default, {} schedules: {:.2} s",
        g.vertices(),
        sources.len(),
        schedules.len(),
        started.elapsed().as_secs_f64()
    );
    failures.extend(check_graph_device(gpu, name, g, sources, deltas, schedules));
    failures
}

/// The schedules of `schedules` that run in the device loop (a grid-stride tile loop).
fn device_schedules<'a>(schedules: &[&'a str]) -> Vec<&'a str> {
    schedules
        .iter()
        .copied()
        .filter(|s| {
            loops::graph::sssp_near_far::KERNELS
                .iter()
                .any(|(name, k)| name == s && k.runs_in_device_loop())
        })
        .collect()
}

/// [`check_graph`] in the device loop: each of `schedules` that runs there, with one hop, two
/// and three (through heads of at most 8 out-edges, and 2 for two hops), the default delta and
/// each of `deltas`; returns the failures.
fn check_graph_device(
    gpu: &Gpu,
    name: &str,
    g: &Graph,
    sources: &[u32],
    deltas: &[u32],
    schedules: &[&str],
) -> Vec<String> {
    let started = Instant::now();
    let mut schedules = device_schedules(schedules);
    // The built-in round: its default vertices per warp, one, and 32 (whose hops overflow the
    // warp's 64 heads on a graph of degree 2 and more, and flag the rest near).
    schedules.extend(["lanes", "lanes1", "lanes32"]);
    let mut failures = Vec::new();
    let dg = gpu.upload_graph(g).expect("upload");
    let mut near_far = NearFarLoop::new(gpu, g.vertices()).expect("near-far loop");
    let mut dist = gpu.zeros::<u32>(g.vertices()).expect("alloc");
    let mut all_deltas = vec![None];
    all_deltas.extend(deltas.iter().map(|&d| Some(d)));
    let hops = [
        Hops::ONE,
        Hops::two(2),
        Hops {
            hops: 3,
            max_degree: 8,
        },
        // Deeper than the generated rounds go (they stop at 3; `lanes` goes on).
        Hops {
            hops: 8,
            max_degree: 8,
        },
    ];
    let mut runs = 0;
    for &source in sources {
        // Progress, for runs under a sanitizer (`--nocapture`).
        println!("{name}: source {source}");
        let want = dijkstra(g, source);
        let reached = want.iter().filter(|&&d| d != UNREACHED).count() as u64;
        for (d, &delta) in all_deltas.iter().enumerate() {
            near_far.set_delta(delta);
            let used = near_far.delta_for(NearFarOn::Device, &dg);
            for (k, schedule) in schedules.iter().enumerate() {
                // Each schedule with every hop count on some source, in turn: two a delta, or
                // with small inputs one a delta, the same two over the first two deltas.
                let hop = hops[(k + source as usize) % hops.len()];
                let next = hops[(k + source as usize + 1) % hops.len()];
                let both = [hop, next];
                for &hop in common::sized(&both[..], &both[d % 2..][..1]) {
                    near_far.set_hops(Some(hop));
                    // Both compactions of a round, in turn.
                    let wide = runs % 2 == 0;
                    near_far.set_wide_scan(wide);
                    let what = format!(
                        "{name}, source {source}, delta {used}, {hop:?}, wide scan {wide}, device sssp_near_far/{schedule}"
                    );
                    gpu.fill(&mut dist, 0x5a5a_5a5a).unwrap();
                    runs += 1;
                    match loops::graph::sssp_near_far::run(
                        schedule,
                        gpu,
                        &mut near_far,
                        NearFarOn::Device,
                        &dg,
                        source,
                        &mut dist,
                    ) {
                        Ok(stats) => {
                            if let Err(e) = compare(&what, &want, &gpu.download(&dist).unwrap()) {
                                failures.push(e);
                            }
                            // One hop: every reached vertex is in a frontier (more hops relax
                            // some without).
                            if hop == Hops::ONE && stats.frontier_vertices < reached {
                                failures.push(format!(
                                    "{what}: {} frontier vertices < {reached} reached",
                                    stats.frontier_vertices
                                ));
                            }
                            // No advance where the bucket holds every distance (threshold
                            // `UNREACHED`: the default on dense graphs).
                            if stats.rounds == 0 || (stats.advances == 0 && used != UNREACHED) {
                                failures.push(format!("{what}: {stats:?}"));
                            }
                        }
                        Err(e) => failures.push(format!("{what}: {e}")),
                    }
                }
            }
        }
    }
    println!(
        "{name}: device loop, {} schedules, {runs} runs: {:.2} s",
        schedules.len(),
        started.elapsed().as_secs_f64()
    );
    failures
}

/// Every schedule of the kernel.
fn every_schedule() -> &'static [&'static str] {
    loops::graph::sssp_near_far::SCHEDULES
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
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut count = 0;
    let all = every_schedule();
    let mut next = 0;
    for (name, m) in common::real_matrices::<f32>() {
        let schedules: Vec<&str> = if EVERY_SCHEDULE.contains(&name.as_str()) {
            all.to_vec()
        } else {
            next += SCHEDULES_PER_MATRIX;
            (next - SCHEDULES_PER_MATRIX..next)
                .map(|i| all[i % all.len()])
                .collect()
        };
        for &max_w in max_weights() {
            let g = Graph::from_pattern(&m, max_w, seed).unwrap();
            let s = common::graph_sources(&g);
            let s = common::sized_sources(&s, 1);
            let what = format!("{name} weights 1..={max_w}");
            let delta = small_delta(&g, s);
            failures.extend(check_graph(&gpu, &what, &g, s, &[delta], &schedules));
        }
        count += 1;
    }
    if std::env::var_os("LOOPS_MATRIX_FILTER").is_none() && common::has_corpus() {
        assert!(count >= 20, "only {count} matrices");
    }
    println!(
        "{count} matrices in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_none(failures);
}

/// The largest weights the graph tests draw: 64 and 1000, or with small inputs
/// (`common::small_graphs`, a sanitizer run) 1000 only (more buckets).
fn max_weights() -> &'static [u32] {
    common::sized(&[64, 1000], &[1000])
}

/// One generated graph under every schedule, weights up to [`max_weights`], from the sources
/// `common::graph_sources` names and one more; one delta besides the default: small (as many
/// buckets as the budget allows), or with `bellman_ford` Bellman-Ford's one bucket. A test each,
/// so a sanitizer run takes each as its own process.
fn one_generated(name: &str, m: sprs::CsMat<f32>, seed: u64, bellman_ford: bool) {
    let gpu = common::gpu();
    let mut failures = Vec::new();
    for &max_w in max_weights() {
        let g = Graph::from_pattern(&m, max_w, seed).unwrap();
        let far = (seed % g.vertices() as u64) as u32;
        let mut s = common::graph_sources(&g);
        // With small inputs (a sanitizer run), the first source of `graph_sources` only.
        if !common::small_graphs() {
            s.push(far);
        }
        let s = common::sized_sources(&s, 1);
        let delta = if bellman_ford {
            u32::MAX / 2
        } else {
            small_delta(&g, s)
        };
        failures.extend(check_graph(
            &gpu,
            &format!("{name} weights 1..={max_w}"),
            &g,
            s,
            &[delta],
            every_schedule(),
        ));
    }
    assert_none(failures);
}

#[test]
fn road_kronecker_and_grid() {
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let road_n = common::sized(50_000, 200);
    let road: sprs::CsMat<f32> = loops::io::generate::road(road_n, seed);
    one_generated(&format!("road {road_n}"), road, seed, false);
}

#[test]
fn road_kronecker_and_grid_kronecker() {
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let scale = common::sized(14, 9);
    let kron: sprs::CsMat<f32> = loops::io::generate::kronecker(scale, 16, seed);
    one_generated(&format!("kronecker {scale}"), kron, seed, false);
}

#[test]
fn road_kronecker_and_grid_grid() {
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let (w, h) = common::sized((200, 150), (12, 8));
    let grid: sprs::CsMat<f32> = loops::io::generate::grid2d(w, h, seed);
    one_generated(&format!("grid {w}x{h}"), grid, seed, true);
}

#[test]
fn unreachable_vertices_gaps_zero_weights_and_a_single_vertex() {
    let gpu = common::gpu();
    let mut failures = Vec::new();
    // Two components (0..4 and 5..7) and isolated vertices 8, 9; a heavy edge 2 -> 3 (a gap in
    // the distances the threshold must jump), a zero-weight edge 3 -> 4.
    let two = Graph::from_edges(
        10,
        &[
            (0, 1, 3),
            (1, 2, 4),
            (2, 0, 1),
            (2, 3, 900),
            (3, 4, 0),
            (5, 6, 2),
            (6, 7, 2),
            (7, 5, 2),
            (4, 3, 1),
        ],
    )
    .unwrap();
    // With small inputs a reaching source and an isolated one, the smallest delta and one
    // past the gap.
    failures.extend(check_graph(
        &gpu,
        "two components",
        &two,
        &common::sized(vec![0, 5, 8, 9], vec![0, 8]),
        common::sized(&[1, 2, 5, 1000][..], &[1, 1000][..]),
        every_schedule(),
    ));
    failures.extend(check_graph(
        &gpu,
        "single vertex",
        &Graph::from_edges(1, &[]).unwrap(),
        &[0],
        &[1],
        every_schedule(),
    ));
    // A star then a path: one huge near frontier, then thousands of tiny ones.
    let (leaves, star) = common::star_and_path(20_000, |u| u % 13 + 1, |u| 1 + u % 3);
    failures.extend(check_graph(
        &gpu,
        "star + path",
        &Graph::from_edges(leaves as usize + 1, &star).unwrap(),
        &[0],
        &[4],
        every_schedule(),
    ));
    assert_none(failures);
}

/// The loop's errors, its iteration limit, and its reuse on a smaller graph.
#[test]
fn near_far_loop_errors_and_reuse() {
    let gpu = common::gpu();
    let path =
        Graph::from_edges(100, &(0..99u32).map(|v| (v, v + 1, 1)).collect::<Vec<_>>()).unwrap();
    let dg = gpu.upload_graph(&path).unwrap();
    let mut dist = gpu.zeros::<u32>(100).unwrap();
    let run = |near_far: &mut NearFarLoop, on, source, dist: &mut DeviceBuffer<u32>| {
        loops::graph::sssp_near_far::run("warp", &gpu, near_far, on, &dg, source, dist)
    };
    let mut small = NearFarLoop::new(&gpu, 50).unwrap();
    let e = run(&mut small, NearFarOn::Host, 0, &mut dist).unwrap_err();
    assert!(e.to_string().contains("made for 50"), "{e}");
    let mut near_far = NearFarLoop::new(&gpu, 200).unwrap();
    let e = run(&mut near_far, NearFarOn::Host, 100, &mut dist).unwrap_err();
    assert!(e.to_string().contains("source 100"), "{e}");
    near_far.set_max_iterations(Some(3));
    let e = run(&mut near_far, NearFarOn::Host, 0, &mut dist).unwrap_err();
    assert!(matches!(e, LoopsError::NoConvergence { .. }), "{e}");
    near_far.set_max_iterations(None);
    near_far.set_delta(Some(10));
    near_far.set_count_edges(true);
    near_far.set_hops(Some(Hops::ONE));
    // One loop on both sides in turn (host, device, host): the same distances and counts, one
    // vertex per round and 99 edges, as the CPU model's (the device does not count edges).
    let (_, model) = near_far_model(&path, 0, 10);
    for on in [NearFarOn::Host, NearFarOn::Device, NearFarOn::Host] {
        gpu.fill(&mut dist, 0x5a5a_5a5a).unwrap();
        let stats = run(&mut near_far, on, 0, &mut dist).unwrap();
        assert_eq!(
            gpu.download(&dist).unwrap(),
            (0..100u32).collect::<Vec<_>>(),
            "{on:?}"
        );
        let want = match on {
            NearFarOn::Host => model,
            NearFarOn::Device => loops::graph::NearFarStats {
                relaxed_edges: 0,
                ..model
            },
        };
        assert_eq!(stats, want, "{on:?}");
    }
}

/// The device loop's errors, its iteration limit, its reuse on a smaller graph, and its counts
/// against the CPU model's on a path (one vertex per round whatever the order).
#[test]
fn device_near_far_loop_errors_and_reuse() {
    let gpu = common::gpu();
    let path =
        Graph::from_edges(100, &(0..99u32).map(|v| (v, v + 1, 1)).collect::<Vec<_>>()).unwrap();
    let dg = gpu.upload_graph(&path).unwrap();
    let mut dist = gpu.zeros::<u32>(100).unwrap();
    let run = |near_far: &mut NearFarLoop, source, dist: &mut DeviceBuffer<u32>| {
        let on = NearFarOn::Device;
        loops::graph::sssp_near_far::run("warp", &gpu, near_far, on, &dg, source, dist)
    };
    let mut small = NearFarLoop::new(&gpu, 50).unwrap();
    let e = run(&mut small, 0, &mut dist).unwrap_err();
    assert!(e.to_string().contains("made for 50"), "{e}");
    let mut near_far = NearFarLoop::new(&gpu, 200).unwrap();
    let e = run(&mut near_far, 100, &mut dist).unwrap_err();
    assert!(e.to_string().contains("source 100"), "{e}");
    near_far.set_hops(Some(Hops::ONE));
    for max in [3, 7, 60] {
        near_far.set_max_iterations(Some(max));
        match run(&mut near_far, 0, &mut dist).unwrap_err() {
            LoopsError::NoConvergence { iterations, .. } => assert_eq!(iterations, max),
            e => panic!("{e}"),
        }
    }
    near_far.set_max_iterations(None);
    near_far.set_delta(Some(10));
    let stats = run(&mut near_far, 0, &mut dist).unwrap();
    assert_eq!(
        gpu.download(&dist).unwrap(),
        (0..100u32).collect::<Vec<_>>()
    );
    let (_, model) = near_far_model(&path, 0, 10);
    assert_eq!(
        (
            stats.rounds,
            stats.advances,
            stats.frontier_vertices,
            stats.max_frontier
        ),
        (
            model.rounds,
            model.advances,
            model.frontier_vertices,
            model.max_frontier
        )
    );
    // Three hops: 4 rounds per bucket of 10 (from 0, 3, 6, 9), not 10.
    let three = Hops {
        hops: 3,
        max_degree: 1,
    };
    near_far.set_hops(Some(three));
    let stats = run(&mut near_far, 0, &mut dist).unwrap();
    let (_, model) = near_far_model_hops(&path, 0, 10, three);
    assert_eq!((stats.rounds, stats.advances), (40, 10));
    assert_eq!(
        (stats.rounds, stats.advances),
        (model.rounds, model.advances)
    );
    assert_eq!(
        gpu.download(&dist).unwrap(),
        (0..100u32).collect::<Vec<_>>()
    );
    // The built-in round on the path: a hop per edge, as the model's, 3 and 16 deep (a bucket of
    // 10 in one round and its advance).
    for hops in [
        three,
        Hops {
            hops: 16,
            max_degree: 1,
        },
    ] {
        near_far.set_hops(Some(hops));
        gpu.fill(&mut dist, 0x5a5a_5a5a).unwrap();
        let stats = loops::graph::sssp_near_far::run(
            "lanes",
            &gpu,
            &mut near_far,
            NearFarOn::Device,
            &dg,
            0,
            &mut dist,
        )
        .unwrap();
        let (_, model) = near_far_model_hops(&path, 0, 10, hops);
        assert_eq!(
            (stats.rounds, stats.advances, stats.frontier_vertices),
            (model.rounds, model.advances, model.frontier_vertices),
            "{hops:?}"
        );
        // Its edges counted on the GPU: each once, every hop's.
        let counted = loops::graph::sssp_near_far::device_relaxed_edges(
            "lanes",
            &gpu,
            &mut near_far,
            &dg,
            0,
            &mut dist,
        )
        .unwrap();
        assert_eq!(counted, Some(model.relaxed_edges), "{hops:?}");
        assert_eq!(model.relaxed_edges, 99);
        assert_eq!(
            gpu.download(&dist).unwrap(),
            (0..100u32).collect::<Vec<_>>()
        );
    }
    assert_eq!(
        loops::graph::sssp_near_far::device_relaxed_edges(
            "warp",
            &gpu,
            &mut near_far,
            &dg,
            0,
            &mut dist
        )
        .unwrap(),
        None
    );
    // Reuse on a graph of fewer vertices, from its last vertex (nothing to relax).
    let tiny = gpu
        .upload_graph(&Graph::from_edges(3, &[(0, 1, 5)]).unwrap())
        .unwrap();
    let mut d3 = gpu.zeros::<u32>(3).unwrap();
    let on = NearFarOn::Device;
    loops::graph::sssp_near_far::run("thread", &gpu, &mut near_far, on, &tiny, 2, &mut d3).unwrap();
    assert_eq!(gpu.download(&d3).unwrap(), [UNREACHED, UNREACHED, 0]);
}
