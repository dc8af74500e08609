//! The graph algorithms as users call them (`loops::graph::{bfs, sssp, pagerank, components,
//! triangles, k_core}`), against the CPU references: every loop strategy each takes (and `Auto`, whose
//! choice is checked), default options and a few schedules, direction optimization, both SSSP
//! methods with a given and the default delta; the stats (algorithm, strategy that ran, levels);
//! the refusals (a source that is not a vertex, a strategy the algorithm has no loop for). The
//! kernels under every schedule are checked by `gpu_graphs`, `gpu_sssp_near_far` and
//! `gpu_graph_algos`, with poisoned outputs; here the library allocates the outputs. Graphs:
//! R-MAT scale 12 symmetrised with weights 1..=100 (fresh seed each run, `LOOPS_SEED` replays), a
//! 60x40 grid, a small graph with isolated vertices.
#![cfg(feature = "gpu")]

mod common;

use common::Tally;
use loops::graph::reference::{
    bfs_levels, components, core_numbers, dijkstra, pagerank, triangles,
};
use loops::graph::{
    compare, BfsOptions, ComponentsOptions, Graph, GraphStats, KCoreOptions, PageRankOptions,
    SsspMethod, SsspOptions, Strategy, Switch, TrianglesOptions, UNREACHED,
};
use loops::prelude::*;

/// Checks `stats` against what the run should have said.
fn check_stats(
    stats: &GraphStats,
    algorithm: &str,
    strategy: Strategy,
    iterations: Option<u32>,
) -> Result<(), String> {
    // `Auto` expected: measured, so any loop the algorithm has, never `Auto` itself.
    let matches = match strategy {
        Strategy::Auto => stats.strategy != Strategy::Auto,
        s => stats.strategy == s,
    };
    if stats.algorithm != algorithm || !matches {
        return Err(format!(
            "stats say {} in {:?}, expected {algorithm} in {strategy:?}",
            stats.algorithm, stats.strategy
        ));
    }
    if let Some(i) = iterations {
        if stats.iterations != i {
            return Err(format!("{} iterations, expected {i}", stats.iterations));
        }
    }
    Ok(())
}

fn outcome(r: loops::Result<Result<(), String>>) -> Result<(bool, String), String> {
    match r {
        Ok(Ok(())) => Ok((true, String::new())),
        Ok(Err(e)) => Ok((false, e)),
        Err(e) => Err(e.to_string()),
    }
}

/// Every library call on `g` (directed, weighted), BFS and SSSP from `source`.
fn check_graph(gpu: &Gpu, tally: &mut Tally, name: &str, g: &Graph, source: u32) {
    let s = g.symmetric();
    let dg = gpu.upload_graph(g).expect("upload");
    let ds = gpu.upload_graph(&s.unit_weights()).expect("upload");

    // BFS: every strategy, push only, on the directed graph (unit weights: levels).
    let want = bfs_levels(g, source);
    let levels_run = want
        .iter()
        .filter(|&&l| l != UNREACHED)
        .max()
        .map_or(0, |d| d + 1);
    let runs = [
        // `Auto` measures the loops the schedule runs in (any of them may win).
        ("auto", Strategy::Auto, Strategy::Auto),
        ("merge_path", Strategy::Auto, Strategy::Host),
        ("auto", Strategy::Host, Strategy::Host),
        ("warp", Strategy::DeviceFlags, Strategy::DeviceFlags),
        ("thread", Strategy::DeviceScan, Strategy::DeviceScan),
        ("group64", Strategy::DeviceQueue, Strategy::DeviceQueue),
    ];
    for (schedule, strategy, ran) in runs {
        let options = BfsOptions {
            schedule: schedule.to_string(),
            strategy,
            direction: None,
        };
        let r = loops::graph::bfs(gpu, &dg, source, &options).map(|run| {
            compare("levels", &want, &gpu.download(&run.levels).unwrap())
                .and_then(|()| check_stats(&run.stats, "bfs", ran, Some(levels_run)))
                .and_then(|()| match run.parents {
                    None => Ok(()),
                    Some(_) => Err("parents from a push-only BFS".to_string()),
                })
        });
        let key = format!("bfs {}/{schedule}", strategy.name());
        tally.record(name, &key, outcome(r));
    }

    // Direction-optimizing BFS on the symmetric graph: levels and a valid tree.
    let want_s = bfs_levels(&s, source);
    for (schedule, switch) in [("auto", Switch::BEAMER), ("warp", Switch::PULL_ALWAYS)] {
        let options = BfsOptions {
            schedule: schedule.to_string(),
            direction: Some(switch),
            ..BfsOptions::default()
        };
        let r = loops::graph::bfs(gpu, &ds, source, &options).map(|run| {
            let levels = gpu.download(&run.levels).unwrap();
            let parents = gpu
                .download(run.parents.as_ref().expect("parents"))
                .unwrap();
            compare("levels", &want_s, &levels)
                .and_then(|()| loops::graph::check_bfs_tree(&s, source, &levels, &parents))
                // `Auto` measures the device queue and the host loop.
                .and_then(|()| check_stats(&run.stats, "bfs-do", Strategy::Auto, None))
                .and_then(|()| {
                    let pulled = run.stats.pull_levels > 0;
                    if switch == Switch::PULL_ALWAYS && run.stats.iterations > 1 && !pulled {
                        Err("no level pulled".to_string())
                    } else {
                        Ok(())
                    }
                })
        });
        tally.record(name, &format!("bfs-do/{schedule}"), outcome(r));
    }

    // SSSP: near-far (given and default delta) and Bellman-Ford, in their loops.
    let want = dijkstra(g, source);
    let runs = [
        (
            SsspMethod::NearFar,
            "auto",
            Strategy::Auto,
            Strategy::Auto,
            None,
        ),
        (
            SsspMethod::NearFar,
            "auto",
            Strategy::Auto,
            Strategy::Auto,
            Some(7),
        ),
        (
            SsspMethod::NearFar,
            "lanes",
            Strategy::Auto,
            Strategy::Auto,
            Some(50),
        ),
        (
            SsspMethod::NearFar,
            "merge_path",
            Strategy::Auto,
            Strategy::Host,
            None,
        ),
        (
            SsspMethod::NearFar,
            "warp",
            Strategy::Host,
            Strategy::Host,
            Some(20),
        ),
        (
            SsspMethod::BellmanFord,
            "auto",
            Strategy::Auto,
            Strategy::Auto,
            None,
        ),
        (
            SsspMethod::BellmanFord,
            "split",
            Strategy::Auto,
            Strategy::Host,
            None,
        ),
        (
            SsspMethod::BellmanFord,
            "warp",
            Strategy::DeviceScan,
            Strategy::DeviceScan,
            None,
        ),
    ];
    for (method, schedule, strategy, ran, delta) in runs {
        let options = SsspOptions {
            schedule: schedule.to_string(),
            strategy,
            method,
            delta,
        };
        let algorithm = match method {
            SsspMethod::NearFar => "sssp-near-far",
            SsspMethod::BellmanFord => "sssp",
        };
        let r = loops::graph::sssp(gpu, &dg, source, &options).map(|run| {
            compare("distances", &want, &gpu.download(&run.dist).unwrap())
                .and_then(|()| check_stats(&run.stats, algorithm, ran, None))
        });
        let key = format!("{algorithm} {}/{schedule} delta {delta:?}", strategy.name());
        tally.record(name, &key, outcome(r));
    }

    // PageRank (f64, 20 iterations), components, triangles: default options and one schedule.
    let want_ranks = pagerank(g, 0.85, 20);
    let want_labels = components(g);
    let want_triangles = triangles(g);
    // `Auto` measures PageRank's and components' loops (either may win).
    for schedule in ["auto", "warp"] {
        let options = PageRankOptions {
            schedule: schedule.to_string(),
            ..PageRankOptions::default()
        };
        let r = loops::graph::pagerank::<f64>(gpu, g, &options).map(|run| {
            let got = gpu.download(&run.ranks).unwrap();
            let l1: f64 = want_ranks
                .iter()
                .zip(&got)
                .map(|(w, r)| (w - r).abs())
                .sum();
            if l1 > 1e-9 {
                return Err(format!("L1 distance {l1:e} from the reference"));
            }
            check_stats(&run.stats, "pagerank", Strategy::Auto, Some(20))
        });
        tally.record(name, &format!("pagerank/{schedule}"), outcome(r));

        // Components: `Auto` measures both loops (the device loop is checked in
        // gpu_graph_device_loops).
        for (strategy, ran) in [
            (Strategy::Auto, Strategy::Auto),
            (Strategy::Host, Strategy::Host),
        ] {
            let options = ComponentsOptions {
                schedule: schedule.to_string(),
                strategy,
            };
            let r = loops::graph::components(gpu, &dg, &options).map(|run| {
                compare("labels", &want_labels, &gpu.download(&run.labels).unwrap())
                    .and_then(|()| check_stats(&run.stats, "components", ran, None))
            });
            tally.record(
                name,
                &format!("components {}/{schedule}", strategy.name()),
                outcome(r),
            );
        }

        let options = TrianglesOptions {
            schedule: schedule.to_string(),
        };
        let r = loops::graph::triangles(gpu, g, &options).map(|run| {
            if run.count != want_triangles {
                return Err(format!(
                    "{} triangles, expected {want_triangles}",
                    run.count
                ));
            }
            check_stats(&run.stats, "triangles", Strategy::Host, Some(1))
        });
        tally.record(name, &format!("triangles/{schedule}"), outcome(r));
    }

    // k-core peeling: core numbers and the largest.
    let want_cores = core_numbers(g);
    let top = want_cores.iter().copied().max().unwrap_or(0);
    for (schedule, strategy, ran) in [
        ("auto", Strategy::Auto, Strategy::Auto),
        ("auto", Strategy::Host, Strategy::Host),
        ("warp", Strategy::DeviceQueue, Strategy::DeviceQueue),
        ("merge_path", Strategy::Auto, Strategy::Host),
    ] {
        let options = KCoreOptions {
            schedule: schedule.to_string(),
            strategy,
        };
        let r = loops::graph::k_core(gpu, g, &options).map(|run| {
            compare("cores", &want_cores, &gpu.download(&run.cores).unwrap())
                .and_then(|()| check_stats(&run.stats, "k-core", ran, None))
                .and_then(|()| match run.max_core == top {
                    true => Ok(()),
                    false => Err(format!("largest core {}, expected {top}", run.max_core)),
                })
        });
        tally.record(
            name,
            &format!("k-core {}/{schedule}", strategy.name()),
            outcome(r),
        );
    }

    // PageRank to a tolerance stops early and says its last change.
    let options = PageRankOptions {
        tolerance: Some(1e-3),
        max_iterations: 1000,
        ..PageRankOptions::default()
    };
    let r =
        loops::graph::pagerank::<f64>(gpu, g, &options).map(|run| match run.stats.last_change {
            Some(c) if c < 1e-3 && run.stats.iterations < 1000 => Ok(()),
            other => Err(format!(
                "last change {other:?} after {} iterations",
                run.stats.iterations
            )),
        });
    tally.record(name, "pagerank/tolerance", outcome(r));
}

#[test]
fn library_calls_match_the_references() {
    // The device loops refuse checked mode where it is asked for (`gpu_graphs` tests that); here
    // `Auto` must choose them.
    loops::launch::set_checked_mode(Some(false));
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut tally = Tally::default();
    let m: sprs::CsMat<f32> = loops::io::generate::rmat(12, 16, seed);
    let rmat = Graph::from_pattern(&m, 100, seed).unwrap().symmetric();
    let source = rmat.max_degree_vertex().unwrap_or(0);
    check_graph(&gpu, &mut tally, "rmat 12 symmetrised", &rmat, source);
    let m: sprs::CsMat<f32> = loops::io::generate::grid2d(60, 40, seed);
    let grid = Graph::from_pattern(&m, 100, seed ^ 1).unwrap();
    check_graph(&gpu, &mut tally, "grid 60x40", &grid, 1234);
    let edges = [
        (0, 1, 3),
        (1, 2, 1),
        (2, 0, 9),
        (2, 3, 4),
        (3, 4, 1),
        (4, 2, 2),
        (6, 7, 5),
        (7, 7, 1),
    ];
    let small = Graph::from_edges(10, &edges).unwrap();
    check_graph(&gpu, &mut tally, "small with isolated vertices", &small, 0);
    tally.finish(3);
}

#[test]
fn library_calls_refuse_what_they_cannot_run() {
    loops::launch::set_checked_mode(Some(false));
    let gpu = common::gpu();
    let g = Graph::from_edges(3, &[(0, 1, 1), (1, 2, 1)]).unwrap();
    let dg = gpu.upload_graph(&g).unwrap();
    let e = loops::graph::bfs(&gpu, &dg, 3, &BfsOptions::default()).err();
    assert!(matches!(e, Some(LoopsError::InvalidGraph { .. })), "{e:?}");
    let e = loops::graph::sssp(&gpu, &dg, 7, &SsspOptions::default()).err();
    assert!(matches!(e, Some(LoopsError::InvalidGraph { .. })), "{e:?}");
    // Direction optimization runs in the host loop and the device queue, not the flag loops;
    // near-far has no queue or scan loop; Bellman-Ford no queue loop.
    let do_queue = BfsOptions {
        direction: Some(Switch::BEAMER),
        strategy: Strategy::DeviceFlags,
        ..BfsOptions::default()
    };
    let e = loops::graph::bfs(&gpu, &dg, 0, &do_queue).err();
    assert!(
        matches!(e, Some(LoopsError::InvalidArgument { .. })),
        "{e:?}"
    );
    for (method, strategy) in [
        (SsspMethod::NearFar, Strategy::DeviceQueue),
        (SsspMethod::NearFar, Strategy::DeviceScan),
        (SsspMethod::BellmanFord, Strategy::DeviceQueue),
    ] {
        let options = SsspOptions {
            method,
            strategy,
            ..SsspOptions::default()
        };
        let e = loops::graph::sssp(&gpu, &dg, 0, &options).err();
        assert!(
            matches!(e, Some(LoopsError::InvalidArgument { .. })),
            "{method:?} {strategy:?}: {e:?}"
        );
    }
    // A schedule that sizes its launches on the host, asked for a device loop: the loop refuses.
    let options = BfsOptions {
        schedule: "merge_path".to_string(),
        strategy: Strategy::DeviceQueue,
        ..BfsOptions::default()
    };
    assert!(loops::graph::bfs(&gpu, &dg, 0, &options).is_err());
}
