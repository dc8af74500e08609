//! The graph algorithms of issue 26 on the GPU, each under every schedule it is instantiated with,
//! against CPU references: direction-optimizing BFS (`loops::graph::bfs_do`: levels equal
//! to the CPU BFS, parents validated; with Beamer's switch and with every level after the first
//! pulled), PageRank (`pagerank.rs`, f32 and f64, within roundoff of an f64 reference; the L1
//! stop), connected components (`cc.rs`, labels equal), k-core peeling (`kcore.rs`, core numbers
//! equal) and triangle counting (`tc.rs`, counts equal). Graphs: every file of ../shared/data/matrices, R-MAT scale 14 symmetrised, grids, a
//! road network of the world set, isolated vertices, a single vertex. Outputs are poisoned before
//! each run. A printed seed replays a failure (`LOOPS_SEED`). Each graph prints its time; the
//! slowest real matrix, luxembourg (about 1,000 BFS levels per source), takes some 23 x 2,000
//! levels of about 40 us, 2 s on an H100. Every loop here has an iteration limit that errors:
//! the DO-BFS and components loops stop after `vertices + 1` steps, PageRank after its count.
//! `LOOPS_SMALL_GRAPHS=1` (`tests/sanitize.sh`: under compute-sanitizer a launch costs
//! milliseconds) shrinks the inputs and drops repeated configurations, so that the binary runs
//! whole under memcheck or racecheck in a few minutes: R-MAT scale 9, a 24x14 grid and a path of
//! 24 (BFS from the middle), a road network of 400 vertices, a star of 1,500 leaves and a path
//! of 45; one BFS source per graph (the small graphs keep theirs); PageRank
//! [`SMALL_ITERATIONS`] iterations and the stopping run to [`SMALL_STOP`]. What it keeps: every
//! algorithm under every schedule it is instantiated with (DO-BFS every push schedule with its
//! pull partner, Beamer's switch and pulling always, the small-push runs; PageRank f32 and f64
//! and its L1 stop; components, k-core, triangles) on every graph.
#![cfg(feature = "gpu")]

mod common;

use common::Tally;
use loops::graph::reference::{
    bfs_levels, check_bfs_tree, components, core_numbers, pagerank, triangles,
};
use loops::graph::{compare, Graph, Switch, UNREACHED};
use loops::prelude::*;

const POISON: u32 = 0x5a5a_5a5a;
const DAMPING: f64 = 0.85;
const ITERATIONS: u32 = 20;

/// [`ITERATIONS`] with small inputs (`common::small_graphs`).
const SMALL_ITERATIONS: u32 = 3;

/// The L1 stop of PageRank's stopping run with small inputs (`common::small_graphs`; else the
/// square root of the type's roundoff, some 50 iterations in f32 and 110 in f64): some 15.
const SMALL_STOP: f64 = 0.05;

/// Every algorithm under every schedule on `g` (directed; BFS runs on its symmetric form), BFS
/// from each of `sources`.
fn check_graph(gpu: &Gpu, tally: &mut Tally, name: &str, g: &Graph, sources: &[u32]) {
    let started = std::time::Instant::now();
    let s = g.symmetric();
    let n = g.vertices();
    check_bfs(gpu, tally, name, &s, sources);
    check_pagerank::<f32>(gpu, tally, name, g);
    check_pagerank::<f64>(gpu, tally, name, g);

    let want = components(g);
    let dg = gpu.upload_graph(g).expect("upload");
    let mut state = loops::graph::cc::Components::new(gpu, n).expect("components");
    let mut labels = gpu.zeros::<u32>(n).expect("alloc");
    for schedule in loops::graph::cc::hook::SCHEDULES {
        gpu.fill(&mut labels, POISON).unwrap();
        let host = loops::graph::Strategy::Host;
        let outcome =
            loops::graph::cc::run(host, schedule, gpu, &mut state, &dg, &mut labels).map(|_| {
                match compare("labels", &want, &gpu.download(&labels).unwrap()) {
                    Ok(()) => (true, String::new()),
                    Err(e) => (false, e),
                }
            });
        tally.record(
            name,
            &format!("cc/{schedule}"),
            outcome.map_err(|e| e.to_string()),
        );
    }

    check_k_core(gpu, tally, name, g);

    let want = triangles(g);
    let mut tc = loops::graph::tc::Triangles::new(gpu, g).expect("triangles");
    for schedule in loops::graph::tc::count::SCHEDULES {
        let outcome = loops::graph::tc::run(schedule, gpu, &mut tc)
            .map(|got| (got == want, format!("{got} triangles, expected {want}")));
        tally.record(
            name,
            &format!("tc/{schedule}"),
            outcome.map_err(|e| e.to_string()),
        );
    }
    // A BFS costs about 40 us a level, in each of its 23 runs per source: a slow graph shows here.
    println!(
        "{name}: {} vertices, {} edges, {} sources: {:.2} s",
        n,
        g.edges(),
        sources.len(),
        started.elapsed().as_secs_f64()
    );
}

/// k-core peeling under every schedule of the peel (on graphs of more than 50,000 vertices, whose
/// peels may cascade for tens of thousands of passes, under `auto` and `merge_path` only): core
/// numbers equal to the CPU's, the largest one returned. The run sets every core number to unset
/// (`u32::MAX`) first, and the check fails on any left so.
fn check_k_core(gpu: &Gpu, tally: &mut Tally, name: &str, g: &Graph) {
    use loops::graph::kcore::{peel, run, KCore};
    use loops::graph::Strategy;
    let want = core_numbers(g);
    let top = want.iter().copied().max().unwrap_or(0);
    let mut kc = KCore::new(gpu, g).expect("k-core");
    let schedules: &[&str] = if g.vertices() <= 50_000 {
        peel::SCHEDULES
    } else {
        &["auto", "merge_path"]
    };
    for schedule in schedules {
        let outcome = run(Strategy::Host, schedule, gpu, &mut kc).map(|(_, _, max_core)| {
            let checked =
                compare("cores", &want, &gpu.download(kc.cores()).unwrap()).and_then(|()| {
                    match max_core == top {
                        true => Ok(()),
                        false => Err(format!("largest core {max_core}, expected {top}")),
                    }
                });
            match checked {
                Ok(()) => (true, String::new()),
                Err(e) => (false, e),
            }
        });
        tally.record(
            name,
            &format!("k-core/{schedule}"),
            outcome.map_err(|e| e.to_string()),
        );
    }
}

/// Direction-optimizing BFS on the symmetric graph `s`: every push schedule with its pull partner
/// (which covers every pull schedule), with Beamer's switch and pulling every level after the
/// first, each push level under its schedule (no small-push choice); plus the push-only loop once,
/// and Beamer's switch with small push levels under `warp` (the default) for two push schedules.
fn check_bfs(gpu: &Gpu, tally: &mut Tally, name: &str, s: &Graph, sources: &[u32]) {
    use loops::graph::bfs_do::{pull_schedule_for, push, run, DoBfs, SMALL_PUSH};
    use loops::graph::Strategy;
    let n = s.vertices();
    let ds = gpu.upload_graph(s).expect("upload");
    let mut state = DoBfs::new(gpu, n).expect("bfs state");
    let mut levels = gpu.zeros::<u32>(n).expect("alloc");
    let mut parents = gpu.zeros::<u32>(n).expect("alloc");
    for &source in sources {
        // Progress, for runs under a sanitizer (`--nocapture`).
        println!("{name}: source {source}");
        let want = bfs_levels(s, source);
        let depth = want.iter().filter(|&&l| l != UNREACHED).max().copied();
        let mut runs: Vec<(&str, Switch, &str)> = Vec::new();
        for schedule in push::SCHEDULES {
            runs.push((schedule, Switch::BEAMER, "beamer"));
            runs.push((schedule, Switch::PULL_ALWAYS, "pull"));
        }
        runs.push(("warp", Switch::PUSH_ONLY, "push"));
        runs.push(("merge_path", Switch::BEAMER, "beamer, small push"));
        runs.push(("auto", Switch::BEAMER, "beamer, small push"));
        for (schedule, switch, how) in runs {
            let pull = pull_schedule_for(schedule);
            state.small_push = how.ends_with("small push").then_some(SMALL_PUSH);
            gpu.fill(&mut levels, POISON).unwrap();
            gpu.fill(&mut parents, POISON).unwrap();
            let outcome = run(
                Strategy::Host,
                schedule,
                pull,
                switch,
                gpu,
                &mut state,
                &ds,
                source,
                &mut levels,
                &mut parents,
            )
            .map(|stats| {
                let got = gpu.download(&levels).unwrap();
                let got_parents = gpu.download(&parents).unwrap();
                let checked = compare("levels", &want, &got)
                    .and_then(|()| check_bfs_tree(s, source, &got, &got_parents))
                    .and_then(|()| {
                        // One level per BFS level (the last finds nothing), each in the trace.
                        let expected = depth.map_or(0, |d| d + 1);
                        if stats.iterations != expected || state.trace.len() != expected as usize {
                            Err(format!(
                                "{} levels run ({} traced), expected {expected}",
                                stats.iterations,
                                state.trace.len()
                            ))
                        } else {
                            Ok(())
                        }
                    });
                match checked {
                    Ok(()) => (true, String::new()),
                    Err(e) => (false, format!("source {source}: {e}")),
                }
            });
            tally.record(
                name,
                &format!("bfs_do {how}/{schedule}+{pull}"),
                outcome.map_err(|e| e.to_string()),
            );
        }
    }
}

/// The L1 distance between the ranks and the f64 reference may be a few roundoffs of `T` per
/// iteration, more where a vertex sums many in-edges (or the dangling tile its dangling
/// vertices).
fn pagerank_tolerance<T: Float>(g: &Graph, iterations: u32) -> f64 {
    let mut in_degree = vec![0u64; g.vertices()];
    for &u in g.adj() {
        in_degree[u as usize] += 1;
    }
    let dangling = (0..g.vertices()).filter(|&v| g.degree(v) == 0).count() as u64;
    let longest = in_degree
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
        .max(dangling)
        .max(1) as f64;
    T::UNIT_ROUNDOFF * 64.0 * (iterations.max(1) as f64) * (1.0 + longest.log2())
}

fn l1(want: &[f64], got: &[f64]) -> f64 {
    want.iter().zip(got).map(|(w, g)| (w - g).abs()).sum()
}

/// PageRank in `T` under every schedule, a fixed iteration count; and with the L1 stop once.
fn check_pagerank<T: Float>(gpu: &Gpu, tally: &mut Tally, name: &str, g: &Graph) {
    use loops::graph::pagerank::{run, step, PageRank};
    use loops::graph::Strategy;
    let iterations = common::sized(ITERATIONS, SMALL_ITERATIONS);
    let want = pagerank(g, DAMPING, iterations as usize);
    let tolerance = pagerank_tolerance::<T>(g, iterations);
    let mut pr = PageRank::<T>::new(gpu, g).expect("pagerank");
    let ty = T::RUST_NAME;
    let ranks = |pr: &PageRank<T>| -> Vec<f64> {
        gpu.download(pr.ranks())
            .unwrap()
            .into_iter()
            .map(|r| r.to_f64())
            .collect()
    };
    for schedule in step::SCHEDULES {
        let outcome = run(Strategy::Host, schedule, gpu, &mut pr, DAMPING, iterations, None).map(|stats| {
            let got = ranks(&pr);
            let distance = l1(&want, &got);
            let ok = stats.iterations == iterations
                && got.len() == want.len()
                && distance <= tolerance;
            (
                ok,
                format!(
                    "{} iterations, L1 distance {distance:e} to the reference (tolerance {tolerance:e})",
                    stats.iterations
                ),
            )
        });
        tally.record(
            name,
            &format!("pagerank {ty}/{schedule}"),
            outcome.map_err(|e| e.to_string()),
        );
    }
    // The L1 stop: fewer iterations than the limit where the ranks settle, the last change below
    // the stop, and the ranks those iterations give.
    let stop = common::sized(T::UNIT_ROUNDOFF.sqrt(), SMALL_STOP);
    let outcome = run(Strategy::Host, "warp", gpu, &mut pr, DAMPING, 200, Some(stop)).map(|stats| {
        let last_change = stats.last_change.unwrap_or(f64::NAN);
        let want = pagerank(g, DAMPING, stats.iterations as usize);
        let tolerance = pagerank_tolerance::<T>(g, stats.iterations);
        let distance = l1(&want, &ranks(&pr));
        let settled = g.vertices() == 0 || (last_change < stop && stats.iterations < 200);
        (
            settled && distance <= tolerance,
            format!(
                "{} iterations, last change {:e} (stop {stop:e}), L1 distance {distance:e} (tolerance {tolerance:e})",
                stats.iterations, last_change
            ),
        )
    });
    tally.record(
        name,
        &format!("pagerank {ty} L1 stop/warp"),
        outcome.map_err(|e| e.to_string()),
    );
}

#[test]
fn every_real_matrix() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut tally = Tally::default();
    let mut count = 0;
    for (name, m) in common::real_matrices::<f32>() {
        let g = Graph::from_pattern(&m, 1, seed).unwrap();
        let sources = common::graph_sources(&g);
        let sources = common::sized_sources(&sources, 1);
        check_graph(&gpu, &mut tally, &name, &g, sources);
        count += 1;
    }
    if std::env::var_os("LOOPS_MATRIX_FILTER").is_none() && common::has_corpus() {
        assert!(count >= 20, "only {count} matrices");
    }
    tally.finish(count);
}

#[test]
fn rmat_scale_14_symmetrised() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let scale = common::sized(14, 9);
    let m: sprs::CsMat<f32> = loops::io::generate::rmat(scale, 16, seed);
    // Symmetrised here, so that PageRank, which runs on the directed input, sees it too.
    let g = Graph::from_pattern(&m, 1, seed).unwrap().symmetric();
    let mut s = common::graph_sources(&g);
    s.push((seed % g.vertices() as u64) as u32);
    let mut tally = Tally::default();
    check_graph(
        &gpu,
        &mut tally,
        &format!("rmat {scale} symmetrised"),
        &g,
        common::sized_sources(&s, 1),
    );
    tally.finish(1);
}

/// [`check_graph`] on one generated graph from source 0 and `far`, or with small inputs
/// (`common::small_graphs`) `far` only (a test each, so a sanitizer run can take each as its own
/// process).
fn one_generated(name: &str, m: sprs::CsMat<f32>, seed: u64, far: u32) {
    let gpu = common::gpu();
    let mut tally = Tally::default();
    let g = Graph::from_pattern(&m, 1, seed).unwrap();
    check_graph(
        &gpu,
        &mut tally,
        name,
        &g,
        &common::sized(vec![0, far], vec![far]),
    );
    tally.finish(1);
}

/// A grid of `full` (or with small inputs, `common::small_graphs`, `small`) from a corner and
/// its middle.
fn grid(full: (usize, usize), small: (usize, usize)) {
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let (w, h) = common::sized(full, small);
    let m: sprs::CsMat<f32> = loops::io::generate::grid2d(w, h, seed);
    one_generated(
        &format!("grid {w}x{h}"),
        m,
        seed,
        (w * h / 2 + w / 2) as u32,
    );
}

#[test]
fn grids_and_a_road_network() {
    grid((120, 90), (24, 14));
}

#[test]
fn grids_and_a_road_network_path() {
    grid((1, 400), (1, 24));
}

#[test]
fn grids_and_a_road_network_road() {
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let road_n = common::sized(20_000, 400);
    let road: sprs::CsMat<f32> = loops::io::generate::road_network(road_n, seed);
    one_generated(
        &format!("road network {road_n}"),
        road,
        seed,
        road_n as u32 / 2 - 1,
    );
}

#[test]
fn isolated_vertices_and_small_graphs() {
    let gpu = common::gpu();
    let mut tally = Tally::default();
    // Two triangles sharing vertex 2, a square with a diagonal, a directed path 10 -> 11 -> 12,
    // self-loops and a repeated edge; vertices 13..20 isolated (dangling for PageRank).
    let edges = [
        (0, 1, 1),
        (1, 2, 1),
        (2, 0, 1),
        (2, 3, 1),
        (3, 4, 1),
        (4, 2, 1),
        (5, 6, 1),
        (6, 7, 1),
        (7, 8, 1),
        (8, 5, 1),
        (5, 7, 1),
        (5, 7, 1),
        (9, 9, 1),
        (10, 11, 1),
        (11, 12, 1),
        (12, 12, 1),
    ];
    let g = Graph::from_edges(20, &edges).unwrap();
    check_graph(
        &gpu,
        &mut tally,
        "small with isolated vertices",
        &g,
        &[0, 5, 10, 12, 13],
    );
    check_graph(
        &gpu,
        &mut tally,
        "single vertex",
        &Graph::from_edges(1, &[]).unwrap(),
        &[0],
    );
    // A star with 100000 leaves and a path through them: one vertex longer than any group.
    let (leaves, star) = common::star_and_path(100_000, |_| 1, |_| 1);
    let g = Graph::from_edges(leaves as usize + 1, &star).unwrap();
    let middle = common::sized(50_000, 20);
    check_graph(&gpu, &mut tally, "star + path", &g, &[0, middle]);
    tally.finish(3);
}
