//! Graph traversal on the GPU: SSSP (`examples/kernels/sssp.rs`) and BFS (`bfs.rs`), each under
//! every schedule that takes a frontier (thread, group2, warp, group64, block, auto), driven by
//! `loops::graph::FrontierLoop`, checked exactly against Dijkstra and a CPU BFS (u32 weights and
//! distances, so every distance must be equal, not close). Graphs: every file of
//! ../shared/data/matrices (pattern, seeded random weights 1..=64), R-MAT scale 16, 2-D grids
//! (road-like), a graph with unreachable vertices, a single vertex, self-loops and duplicate edges.
//! Outputs are poisoned before each run. A printed seed replays a failure (`LOOPS_SEED`).
#![cfg(feature = "gpu")]

mod common;
#[path = "../examples/kernels/mod.rs"]
mod kernels;

use loops::graph::{bfs_levels, compare, dijkstra, FrontierLoop, Graph, UNREACHED};
use loops::prelude::*;

/// Runs SSSP and BFS from `sources` under every schedule; returns the failures.
fn check_graph(gpu: &Gpu, name: &str, g: &Graph, sources: &[u32]) -> Vec<String> {
    let mut failures = Vec::new();
    let dg = gpu.upload_graph(g).expect("upload");
    let unit = g.unit_weights();
    let dg_unit = gpu.upload_graph(&unit).expect("upload");
    let mut frontier = FrontierLoop::new(gpu, g.vertices()).expect("frontier loop");
    let mut out = gpu.zeros::<u32>(g.vertices()).expect("alloc");
    for &source in sources {
        let want_dist = dijkstra(g, source);
        let want_levels = bfs_levels(g, source);
        let reached = want_levels.iter().filter(|&&l| l != UNREACHED).count() as u64;
        let depth = want_levels
            .iter()
            .filter(|&&l| l != UNREACHED)
            .max()
            .copied()
            .unwrap_or(0);
        for schedule in kernels::sssp::SCHEDULES {
            let what = format!("{name}, source {source}, sssp/{schedule}");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            match kernels::sssp::run(schedule, gpu, &mut frontier, &dg, source, &mut out) {
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
            // SSSP with unit weights is BFS: the same kernel against the other reference.
            let what = format!("{name}, source {source}, sssp unit weights/{schedule}");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            match kernels::sssp::run(schedule, gpu, &mut frontier, &dg_unit, source, &mut out) {
                Ok(_) => {
                    if let Err(e) = compare(&what, &want_levels, &gpu.download(&out).unwrap()) {
                        failures.push(e);
                    }
                }
                Err(e) => failures.push(format!("{what}: {e}")),
            }
        }
        for schedule in kernels::bfs::SCHEDULES {
            let what = format!("{name}, source {source}, bfs/{schedule}");
            gpu.fill(&mut out, 0x5a5a_5a5a).unwrap();
            match kernels::bfs::run(schedule, gpu, &mut frontier, &dg, source, &mut out) {
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

/// A source with out-edges (the largest degree) and vertex 0.
fn sources(g: &Graph) -> Vec<u32> {
    let mut s = vec![0];
    if let Some(v) = g.max_degree_vertex() {
        if v != 0 {
            s.push(v);
        }
    }
    s
}

#[test]
fn every_real_matrix() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut failures = Vec::new();
    let mut count = 0;
    for (name, m) in common::real_matrices::<f32>() {
        let g = Graph::from_pattern(&m, 64, seed).unwrap();
        failures.extend(check_graph(&gpu, &name, &g, &sources(&g)));
        count += 1;
    }
    // The whole corpus, unless a sanitizer run (`tests/sanitize.sh`) keeps a few on purpose.
    if std::env::var_os("LOOPS_MATRIX_FILTER").is_none() {
        assert!(count >= 20, "only {count} matrices");
    }
    assert_none(failures);
}

#[test]
fn rmat_scale_16() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let m: sprs::CsMat<f32> = loops::generate::rmat(16, 16, seed);
    let g = Graph::from_pattern(&m, 64, seed).unwrap();
    // Vertex 0 is the hub of an unpermuted R-MAT; a random vertex may reach little.
    let mut s = sources(&g);
    s.push((seed % g.vertices() as u64) as u32);
    assert_none(check_graph(&gpu, "rmat 16", &g, &s));
}

#[test]
fn grids_road_like() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut failures = Vec::new();
    for (w, h, max_w) in [(300usize, 200usize, 100u32), (1, 500, 7), (64, 64, 1)] {
        let m: sprs::CsMat<f32> = loops::generate::grid2d(w, h, seed);
        let g = Graph::from_pattern(&m, max_w, seed).unwrap();
        let far = (w * h / 2 + w / 2) as u32;
        failures.extend(check_graph(
            &gpu,
            &format!("grid {w}x{h} weights 1..={max_w}"),
            &g,
            &[0, far],
        ));
    }
    assert_none(failures);
}

#[test]
fn unreachable_vertices_single_vertex_self_loops_duplicates() {
    let gpu = common::gpu();
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
    failures.extend(check_graph(&gpu, "two components", &two, &[0, 5, 8, 9]));
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
    // Self-loops everywhere, each edge repeated with a larger and a smaller weight, in both orders.
    let mut edges = Vec::new();
    for v in 0..200u32 {
        edges.push((v, v, 1));
        let u = (v * 7 + 3) % 200;
        edges.extend([
            (v, u, 50),
            (v, u, 5),
            (v, u, 50),
            (v, (v + 1) % 200, 9),
            (v, (v + 1) % 200, 9),
        ]);
    }
    failures.extend(check_graph(
        &gpu,
        "self-loops and duplicates",
        &Graph::from_edges(200, &edges).unwrap(),
        &[0, 199],
    ));
    // A star: one vertex with 100000 out-edges (longer than any group), then a path.
    let mut star: Vec<(u32, u32, u32)> = (1..100_001u32).map(|u| (0, u, u % 13 + 1)).collect();
    star.extend((1..100_000u32).map(|u| (u, u + 1, 1)));
    failures.extend(check_graph(
        &gpu,
        "star + path",
        &Graph::from_edges(100_001, &star).unwrap(),
        &[0],
    ));
    assert_none(failures);
}

/// The plain and the bounds-checked variants give the same distances.
#[test]
fn plain_and_checked_variants() {
    let gpu = common::gpu();
    let m: sprs::CsMat<f32> = loops::generate::rmat(12, 8, 5);
    let g = Graph::from_pattern(&m, 20, 5).unwrap();
    let mut failures = Vec::new();
    for mode in [false, true] {
        loops::runtime::launch::set_checked_mode(Some(mode));
        failures.extend(check_graph(
            &gpu,
            &format!("rmat 12, checked {mode}"),
            &g,
            &[0],
        ));
    }
    loops::runtime::launch::set_checked_mode(None);
    assert_none(failures);
}

/// A frontier loop refuses a source outside the graph, and the loop can be reused across graphs
/// of up to its size.
#[test]
fn frontier_loop_errors_and_reuse() {
    let gpu = common::gpu();
    let mut frontier = FrontierLoop::new(&gpu, 100).unwrap();
    let e = frontier.run(&gpu, &[100], |_, _, _, _| Ok(())).unwrap_err();
    assert!(e.to_string().contains("source 100"), "{e}");
    // A step that flags nothing: one iteration.
    let stats = frontier.run(&gpu, &[3, 4], |_, f, _, _| {
        assert_eq!(f.len(), 2);
        Ok(())
    });
    assert_eq!(stats.unwrap().iterations, 1);
    // An iteration limit.
    frontier.set_max_iterations(Some(3));
    let g = Graph::from_edges(100, &(0..99u32).map(|v| (v, v + 1, 1)).collect::<Vec<_>>()).unwrap();
    let dg = gpu.upload_graph(&g).unwrap();
    let mut dist = gpu.zeros::<u32>(100).unwrap();
    let e = kernels::bfs::run("warp", &gpu, &mut frontier, &dg, 0, &mut dist).unwrap_err();
    assert!(
        matches!(e, LoopsError::NoConvergence { iterations: 3, .. }),
        "{e}"
    );
    frontier.set_max_iterations(None);
    kernels::bfs::run("warp", &gpu, &mut frontier, &dg, 0, &mut dist).unwrap();
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
