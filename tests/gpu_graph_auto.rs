//! Graph `auto` (`loops::graph::auto`): for BFS (push only and direction-optimizing), SSSP
//! (near-far and Bellman-Ford), components and triangles, the call with schedule and loop on
//! `auto` (twice: the first measures every candidate, the second runs the kept winner) and every
//! candidate of `picks` run fixed, each against the CPU reference; `auto`'s choice is one of the
//! candidates. Components' labels are poisoned before each run (BFS and SSSP allocate their
//! outputs in the library, triangles sum its counts on the device). Graphs: R-MAT scale 11
//! symmetrised (fresh seed each run, `LOOPS_SEED` replays), a symmetric 50x30 grid, a power-law
//! graph of 3,000 vertices, symmetrised; weights 1..=100.
#![cfg(feature = "gpu")]

mod common;

use common::Tally;
use loops::graph::auto::{picks, Algorithm, Pick};
use loops::graph::reference::{bfs_levels, components, dijkstra, triangles};
use loops::graph::{
    bfs, cc, compare, sssp, tc, BfsOptions, Graph, SsspMethod, SsspOptions, Strategy, Switch,
    UNREACHED,
};
use loops::prelude::*;

fn outcome(r: loops::Result<Result<(), String>>) -> Result<(bool, String), String> {
    match r {
        Ok(Ok(())) => Ok((true, String::new())),
        Ok(Err(e)) => Ok((false, e)),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether `ran` (`schedule`, loop) is one of `list`'s.
fn among(list: &[Pick<'_>], schedule: &str, strategy: Strategy) -> Result<(), String> {
    if list
        .iter()
        .any(|p| p.schedule == schedule && p.strategy == strategy)
    {
        Ok(())
    } else {
        Err(format!(
            "auto ran {schedule}/{}, not a candidate",
            strategy.name()
        ))
    }
}

/// `auto` (None) twice, then each candidate.
fn runs(list: &[Pick<'static>]) -> Vec<(String, Option<Pick<'static>>)> {
    let mut out = vec![
        ("auto (measured)".to_string(), None),
        ("auto (kept)".to_string(), None),
    ];
    out.extend(list.iter().map(|p| (p.name(), Some(*p))));
    out
}

fn check_graph(gpu: &Gpu, tally: &mut Tally, name: &str, s: &Graph) {
    let ds = gpu.upload_graph(s).unwrap();
    let source = s.max_degree_vertex().unwrap_or(0);
    let want = bfs_levels(s, source);
    for (algorithm, which, direction) in [
        ("bfs", Algorithm::Bfs, None),
        ("bfs-do", Algorithm::BfsDo, Some(Switch::BEAMER)),
    ] {
        let list = picks(which, "auto");
        assert!(list.len() >= 2, "{algorithm}: {list:?}");
        for (label, p) in runs(&list) {
            let options = BfsOptions {
                schedule: p.map_or("auto", |p| p.schedule).to_string(),
                strategy: p.map_or(Strategy::Auto, |p| p.strategy),
                direction,
            };
            let r = (|| -> loops::Result<Result<(), String>> {
                let run = bfs(gpu, &ds, source, &options)?;
                let got = gpu.download(&run.levels)?;
                Ok((|| {
                    compare("levels", &want, &got)?;
                    if let Some(parents) = &run.parents {
                        let parents = gpu.download(parents).map_err(|e| e.to_string())?;
                        loops::graph::check_bfs_tree(s, source, &got, &parents)?;
                    }
                    among(&list, &run.stats.schedule, run.stats.strategy)
                })())
            })();
            tally.record(name, &format!("{algorithm} {label}"), outcome(r));
        }
    }
    let dist_want = dijkstra(s, source);
    for (algorithm, which, method) in [
        ("sssp-near-far", Algorithm::SsspNearFar, SsspMethod::NearFar),
        (
            "sssp-bf",
            Algorithm::SsspBellmanFord,
            SsspMethod::BellmanFord,
        ),
    ] {
        let list = picks(which, "auto");
        assert!(list.len() >= 2, "{algorithm}: {list:?}");
        for (label, p) in runs(&list) {
            let options = SsspOptions {
                schedule: p.map_or("auto", |p| p.schedule).to_string(),
                strategy: p.map_or(Strategy::Auto, |p| p.strategy),
                method,
                delta: p.and_then(|p| p.one_bucket.then_some(UNREACHED)),
            };
            let r = (|| -> loops::Result<Result<(), String>> {
                let run = sssp(gpu, &ds, source, &options)?;
                let got = gpu.download(&run.dist)?;
                Ok(compare("dist", &dist_want, &got)
                    .and_then(|()| among(&list, &run.stats.schedule, run.stats.strategy)))
            })();
            tally.record(name, &format!("{algorithm} {label}"), outcome(r));
        }
    }
    let n = s.vertices();
    let cc_want = components(s);
    let list = picks(Algorithm::Components, "auto");
    let mut state = cc::Components::new(gpu, n).unwrap();
    let mut labels = gpu.zeros::<u32>(n).unwrap();
    for (label, p) in runs(&list) {
        let r = (|| -> loops::Result<Result<(), String>> {
            gpu.fill(&mut labels, 0xDEAD_BEEF)?;
            let ran = match p {
                None => cc::run(Strategy::Auto, "auto", gpu, &mut state, &ds, &mut labels)?.0,
                Some(p) => cc::run(p.strategy, p.schedule, gpu, &mut state, &ds, &mut labels)?.0,
            };
            let got = gpu.download(&labels)?;
            Ok(compare("labels", &cc_want, &got).and_then(|()| {
                if list.iter().any(|p| p.strategy == ran) {
                    Ok(())
                } else {
                    Err(format!("ran {}", ran.name()))
                }
            }))
        })();
        tally.record(name, &format!("components {label}"), outcome(r));
    }
    let tc_want = triangles(s);
    let list = picks(Algorithm::Triangles, "auto");
    let mut tri = tc::Triangles::new(gpu, s).unwrap();
    for (label, p) in runs(&list) {
        let r = (|| -> loops::Result<Result<(), String>> {
            let (ran, count) = match p {
                None => tc::run_auto("auto", gpu, &mut tri)?,
                Some(p) => (p.schedule, tc::run(p.schedule, gpu, &mut tri)?),
            };
            Ok(if count != tc_want {
                Err(format!("{count} triangles, the CPU counts {tc_want}"))
            } else {
                among(&list, ran, Strategy::Host)
            })
        })();
        tally.record(name, &format!("triangles {label}"), outcome(r));
    }
}

#[test]
fn graph_auto_matches_the_references_and_picks_a_candidate() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut tally = Tally::default();
    let m: sprs::CsMat<f32> = loops::io::generate::rmat(11, 16, seed);
    let rmat = Graph::from_pattern(&m, 100, seed).unwrap().symmetric();
    let m: sprs::CsMat<f32> = loops::io::generate::grid2d(50, 30, seed);
    let grid = Graph::from_pattern(&m, 100, seed ^ 1).unwrap().symmetric();
    let m: sprs::CsMat<f32> = loops::io::generate::power_law(3000, 3000, 8.0, 2.0, false, seed);
    let power = Graph::from_pattern(&m, 100, seed ^ 2).unwrap().symmetric();
    let graphs = [
        ("rmat_11", rmat),
        ("grid_50x30", grid),
        ("powerlaw_3000", power),
    ];
    for (name, g) in &graphs {
        check_graph(&gpu, &mut tally, name, g);
    }
    tally.finish(graphs.len());
}
