//! The graph algorithms' loops on the device. Direction-optimizing BFS in the loop on the device
//! (`loops::graph::bfs_do::run` in the device queue, `FrontierLoop::run_directed`, and
//! `loops::graph::bfs` with a direction, whose
//! `Auto` must run it): levels against the CPU BFS and parents checked as a BFS tree, under every
//! push schedule of `bfs_do::push_queue` and every pull schedule of `bfs_do::pull_queue`, with the
//! paper's switch, pull always and push only, outputs poisoned before each run (longer than the
//! graph, whose tail must stay poisoned). The pull levels and the levels run are checked against
//! the device's choice on the CPU (`directed_run_model`: Beamer's rule, and the push-only
//! batches of a long run far from the switch) over the reference's levels: BFS levels are unique,
//! so the frontiers and the edges a push level reaches are too. Graphs with a fresh seed each run
//! (`LOOPS_SEED` replays): R-MAT and Kronecker symmetrised, a power-law graph symmetrised, a grid
//! of several hundred levels (several replays, pull phases in the middle), a road network, a
//! graph with isolated vertices and a lone vertex.
#![cfg(feature = "gpu")]

mod common;

use common::Tally;
use loops::graph::reference::bfs_levels;
use loops::graph::{
    bfs_do, compare, directed_run_model, BfsOptions, DirectionState, FrontierLoop, Graph, LoopOn,
    Strategy, Switch, UNREACHED,
};
use loops::prelude::*;

const POISON: u32 = 0xDEAD_BEEF;

/// The pull levels and levels of a direction-optimizing BFS of `g` from `source` by `switch`, as
/// the device decides them over the reference's levels (`directed_run_model`: Beamer's rule level
/// by level, and the push-only batches a run of many levels takes far from the switch) in a loop
/// of `per_replay` levels a replay stopping at `max` levels.
fn expected(
    g: &Graph,
    levels: &[u32],
    switch: Switch,
    per_replay: u64,
    max: u64,
) -> (DirectionState, u32) {
    let depth = levels
        .iter()
        .filter(|&&l| l != UNREACHED)
        .max()
        .map_or(0, |&d| d + 1);
    let mut size = vec![0u32; depth as usize];
    let mut edges = vec![0u64; depth as usize];
    for (v, &l) in levels.iter().enumerate() {
        if l != UNREACHED {
            size[l as usize] += 1;
            edges[l as usize] += g.degree(v) as u64;
        }
    }
    let state = directed_run_model(
        &size,
        &edges,
        g.vertices() as u32,
        g.edges() as u64,
        (switch.alpha, switch.beta),
        per_replay,
        max,
    );
    (state, depth)
}

fn check_run(
    gpu: &Gpu,
    s: &Graph,
    dg: &loops::graph::DeviceGraph,
    state: &mut bfs_do::DoBfs,
    source: u32,
    (push, pull, switch): (&str, &str, Switch),
) -> loops::Result<Result<(), String>> {
    let n = s.vertices();
    let mut levels = gpu.upload(&vec![POISON; n + 7])?;
    let mut parents = gpu.upload(&vec![POISON; n + 7])?;
    let stats = bfs_do::run(
        Strategy::DeviceQueue,
        push,
        pull,
        switch,
        gpu,
        state,
        dg,
        source,
        &mut levels,
        &mut parents,
    )?;
    let pulls = stats.pull_levels;
    let (got_levels, got_parents) = (gpu.download(&levels)?, gpu.download(&parents)?);
    let want = bfs_levels(s, source);
    let lp = state.device_loop(gpu)?;
    let replay = lp.levels_per_replay() as u64;
    let (model, want_depth) = expected(s, &want, switch, replay, lp.vertices() as u64 + 1);
    let want_pulls = model.pull_levels;
    Ok(compare("levels", &want, &got_levels[..n])
        .and_then(|()| loops::graph::check_bfs_tree(s, source, &got_levels[..n], &got_parents[..n]))
        .and_then(|()| {
            if (stats.iterations, pulls) != (want_depth, want_pulls) {
                return Err(format!(
                    "{} levels, {pulls} pulled; Beamer's rule on the CPU: {want_depth}, {want_pulls}",
                    stats.iterations
                ));
            }
            if switch == Switch::PUSH_ONLY && pulls != 0 {
                return Err("push only pulled".into());
            }
            Ok(())
        }))
}

fn outcome(r: loops::Result<Result<(), String>>) -> Result<(bool, String), String> {
    match r {
        Ok(Ok(())) => Ok((true, String::new())),
        Ok(Err(e)) => Ok((false, e)),
        Err(e) => Err(e.to_string()),
    }
}

fn graphs(seed: u64) -> Vec<(String, Graph)> {
    let sym = |m: sprs::CsMat<f32>| Graph::from_pattern(&m, 1, seed).unwrap().symmetric();
    let mut out = vec![
        (
            "rmat 14".to_string(),
            sym(loops::io::generate::rmat(14, 16, seed)),
        ),
        (
            "kron 13".to_string(),
            sym(loops::io::generate::kronecker(13, 16, seed)),
        ),
        (
            "power law 20000".to_string(),
            sym(loops::io::generate::power_law(
                20_000, 20_000, 8.0, 2.0, false, seed,
            )),
        ),
        (
            "grid 300x120".to_string(),
            sym(loops::io::generate::grid2d(300, 120, seed)),
        ),
        (
            "road 30000".to_string(),
            sym(loops::io::generate::road(30_000, seed)),
        ),
    ];
    let edges = [
        (0, 1, 1),
        (1, 2, 1),
        (2, 3, 1),
        (3, 0, 1),
        (5, 6, 1),
        (8, 8, 1),
    ];
    out.push(("hub 5000".to_string(), hub_graph(seed)));
    out.push((
        "small with isolated vertices".to_string(),
        Graph::from_edges(10, &edges).unwrap().symmetric(),
    ));
    out.push(("one vertex".to_string(), Graph::from_edges(1, &[]).unwrap()));
    out.push((PULL_PUSH_PULL.to_string(), pull_push_pull(seed)));
    out
}

/// The name of [`pull_push_pull`]'s graph in [`graphs`].
const PULL_PUSH_PULL: &str = "pull, push, pull";

/// A graph whose direction-optimizing BFS from vertex 0 pulls, pushes, then pulls again by
/// Beamer's rule (levels of 1, 100, 3,000, 1, 100, 3,000 vertices: vertex 0 joined to 100
/// vertices, each to 30 of 3,000 that link among themselves; one of those to a bridge vertex,
/// and the bridge to a copy of the same), all within the first direct batch: the second pull goes
/// over the pull list the first left (every unreached vertex with edges, the bridge's side among
/// them), after a push level.
fn pull_push_pull(seed: u64) -> Graph {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x5050_5550);
    let (fan, bulk) = (100u32, 3_000u32);
    let mut edges = Vec::new();
    let mut next = 1u32;
    let mut tree = |root: u32, next: &mut u32, edges: &mut Vec<(u32, u32, u32)>| {
        let (first, second) = (*next, *next + fan);
        *next += fan + bulk;
        edges.extend((0..fan).map(|i| (root, first + i, 1)));
        for j in 0..bulk {
            edges.push((first + j * fan / bulk, second + j, 1));
            edges.extend((0..5).map(|_| (second + j, second + rng.random_range(0..bulk), 1)));
        }
        second
    };
    let bulk_start = tree(0, &mut next, &mut edges);
    let bridge = next;
    next += 1;
    edges.push((bulk_start, bridge, 1));
    tree(bridge, &mut next, &mut edges);
    Graph::from_edges(next as usize, &edges)
        .unwrap()
        .symmetric()
}

/// A hub of more than `bfs::HUB_DEGREE` edges (vertex 0, joined to 1..=5000) in a sparse random
/// graph of 9,000 vertices, symmetric: the device queue runs a BFS from the hub's first level under
/// `merge_path` over the source alone.
fn hub_graph(seed: u64) -> Graph {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x4855_4200);
    let n = 9_000u32;
    let mut edges: Vec<(u32, u32, u32)> = (1..=5_000).map(|u| (0, u, 1)).collect();
    edges.extend((0..12_000).map(|_| (rng.random_range(1..n), rng.random_range(1..n), 1)));
    let g = Graph::from_edges(n as usize, &edges).unwrap().symmetric();
    assert!(g.degree(0) as u64 > loops::graph::bfs::HUB_DEGREE);
    g
}

/// Plain BFS in the device queue (`bfs::run` with `LoopOn::DeviceQueue`, and `bfs` asked for the device queue)
/// against the CPU, under every schedule it takes, levels poisoned, from the hub (whose first
/// level runs under `merge_path`) and from other vertices, on a hub graph and graphs with and
/// without hubs, one loop for all of them; with the loop's default (large frontiers of the first
/// levels alone, sized on the host), every direct level alone, and none; levels run and frontier
/// vertices against the CPU's.
#[test]
fn device_queue_bfs_matches_the_cpu_with_and_without_hubs() {
    loops::launch::set_checked_mode(Some(false));
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut tally = Tally::default();
    let graphs = graphs(seed);
    let largest = graphs.iter().map(|(_, g)| g.vertices()).max().unwrap();
    let mut lp = FrontierLoop::new(&gpu, largest).unwrap();
    for (name, s) in &graphs {
        let n = s.vertices();
        let dg = gpu.upload_graph(s).expect("upload");
        let mut sources = common::graph_sources(s);
        sources.push((n as u32).saturating_sub(1));
        // The default (large frontiers of the first levels alone, sized on the host), every
        // direct level alone, and none.
        let sized = [
            (None, "default"),
            (Some(0), "alone"),
            (Some(u64::MAX), "device-sized"),
        ];
        for &schedule in loops::graph::bfs::DEVICE_QUEUE_SCHEDULES {
            for (from, how) in sized {
                lp.set_host_sized_from(from);
                for &source in &sources {
                    let want = bfs_levels(s, source);
                    let r = (|| -> loops::Result<Result<(), String>> {
                        let mut levels = gpu.upload(&vec![POISON; n])?;
                        let stats = loops::graph::bfs::run(
                            schedule,
                            &gpu,
                            &mut lp,
                            LoopOn::DeviceQueue,
                            &dg,
                            source,
                            &mut levels,
                        )?;
                        let got = gpu.download(&levels)?;
                        let depth = want
                            .iter()
                            .filter(|&&l| l != UNREACHED)
                            .max()
                            .map_or(0, |&d| d + 1);
                        let reached = want.iter().filter(|&&l| l != UNREACHED).count() as u64;
                        Ok(compare("levels", &want, &got).and_then(|()| {
                            if (stats.iterations, stats.frontier_vertices) != (depth, reached) {
                                return Err(format!(
                                    "{} levels, {} frontier vertices; the CPU: {depth}, {reached}",
                                    stats.iterations, stats.frontier_vertices
                                ));
                            }
                            Ok(())
                        }))
                    })();
                    tally.record(name, &format!("bfs_queue/{schedule}, {how}"), outcome(r));
                }
            }
        }
        lp.set_host_sized_from(None);
        // The library call in the device queue, from the largest-degree vertex.
        let source = s.max_degree_vertex().unwrap_or(0);
        let options = BfsOptions {
            strategy: Strategy::DeviceQueue,
            ..BfsOptions::default()
        };
        let r = loops::graph::bfs(&gpu, &dg, source, &options).and_then(|run| {
            let got = gpu.download(&run.levels)?;
            Ok(
                compare("levels", &bfs_levels(s, source), &got).and_then(|()| {
                    (run.stats.strategy == Strategy::DeviceQueue)
                        .then_some(())
                        .ok_or_else(|| format!("ran {:?}", run.stats.strategy))
                }),
            )
        });
        tally.record(name, "bfs(device-queue)", outcome(r));
    }
    tally.finish(graphs.len());
}

#[test]
fn device_direction_optimizing_bfs_matches_the_cpu() {
    loops::launch::set_checked_mode(Some(false));
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut tally = Tally::default();
    let graphs = graphs(seed);
    let largest = graphs.iter().map(|(_, g)| g.vertices()).max().unwrap();
    // One loop for every graph (made for the largest): the runs must not depend on what the
    // last one left.
    let mut state = bfs_do::DoBfs::new(&gpu, largest).unwrap();
    for (name, s) in &graphs {
        let dg = gpu.upload_graph(s).expect("upload");
        let sources = common::graph_sources(s);
        for &push in bfs_do::DEVICE_PUSH_SCHEDULES {
            for &pull in bfs_do::pull_queue::SCHEDULES {
                for (switch_name, switch) in [
                    ("beamer", Switch::BEAMER),
                    ("pull-always", Switch::PULL_ALWAYS),
                    ("push-only", Switch::PUSH_ONLY),
                ] {
                    // Every pair under the paper's switch; the others with the pull schedule
                    // of the same name (or thread).
                    if switch != Switch::BEAMER && pull != bfs_do::device_pull_schedule_for(push) {
                        continue;
                    }
                    for &source in &sources {
                        let r = check_run(&gpu, s, &dg, &mut state, source, (push, pull, switch));
                        tally.record(name, &format!("{push}+{pull}/{switch_name}"), outcome(r));
                    }
                }
            }
        }
    }
    // The graph built for it pulls, pushes, then pulls by the rule on the CPU, so the runs above
    // (whose pull levels match the rule's) took that turn.
    let (_, g) = graphs.iter().find(|(n, _)| n == PULL_PUSH_PULL).unwrap();
    let replay = state.device_loop(&gpu).unwrap().levels_per_replay() as u64;
    let (model, _) = expected(g, &bfs_levels(g, 0), Switch::BEAMER, replay, u64::MAX);
    assert!(
        model.pull_phases >= 2,
        "{PULL_PUSH_PULL}: {} pull phases by the rule",
        model.pull_phases
    );
    // A loop of few levels a replay: the decision state carries across replays.
    state.device_loop(&gpu).unwrap().set_levels_per_replay(6);
    for (name, s) in &graphs[3..5] {
        let dg = gpu.upload_graph(s).expect("upload");
        let r = check_run(
            &gpu,
            s,
            &dg,
            &mut state,
            0,
            ("warp", "thread", Switch::BEAMER),
        );
        tally.record(name, "warp+thread/beamer, 6 levels a replay", outcome(r));
    }
    tally.finish(graphs.len());
}

/// Repeated direction-optimizing runs of one key (`bfs_do::run` on the same graph and buffers,
/// and `bfs` called again on a graph): the second run records the batches of 6 levels, later runs
/// replay them (`FrontierLoop::directed_replays`), from other sources, the buffers poisoned
/// before each run, levels against the CPU and parents as a BFS tree, the pull levels by the rule
/// on the CPU; a change of graph, of buffers or of the loop's replay length between runs
/// forgets the recordings (results still right). Then `bfs` (which keeps its state per handle)
/// on the graphs in turn, three sources each, twice over.
#[test]
fn kept_direction_optimizing_runs_replay_their_recordings() {
    loops::launch::set_checked_mode(Some(false));
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut tally = Tally::default();
    let graphs = graphs(seed);
    let largest = graphs.iter().map(|(_, g)| g.vertices()).max().unwrap();
    let mut state = bfs_do::DoBfs::new(&gpu, largest).unwrap();
    let mut levels = gpu.upload(&vec![POISON; largest + 7]).unwrap();
    let mut parents = gpu.upload(&vec![POISON; largest + 7]).unwrap();
    let sources = |s: &Graph| {
        let n = s.vertices() as u32;
        let mut v = common::graph_sources(s);
        v.extend([n / 2, n - 1, 0, n / 3]);
        v
    };
    let per_replay = state.device_loop(&gpu).unwrap().levels_per_replay();
    for (name, s) in &graphs {
        let dg = gpu.upload_graph(s).expect("upload");
        let n = s.vertices();
        for (i, &source) in sources(s).iter().enumerate() {
            if i == 4 {
                // A replay length of its own: the recordings are forgotten, and made again.
                state.device_loop(&gpu).unwrap().set_levels_per_replay(12);
            }
            gpu.fill(&mut levels, POISON).unwrap();
            gpu.fill(&mut parents, POISON).unwrap();
            let r = (|| -> loops::Result<Result<(), String>> {
                let stats = bfs_do::run(
                    Strategy::DeviceQueue,
                    "warp",
                    "thread",
                    Switch::BEAMER,
                    &gpu,
                    &mut state,
                    &dg,
                    source,
                    &mut levels,
                    &mut parents,
                )?;
                let (got, got_parents) = (gpu.download(&levels)?, gpu.download(&parents)?);
                let want = bfs_levels(s, source);
                let lp = state.device_loop(&gpu)?;
                let per_replay = lp.levels_per_replay() as u64;
                let (model, want_depth) =
                    expected(s, &want, Switch::BEAMER, per_replay, n as u64 + 1);
                let want_pulls = model.pull_levels;
                let replays = lp.directed_replays();
                Ok(compare("levels", &want, &got[..n])
                    .and_then(|()| {
                        loops::graph::check_bfs_tree(s, source, &got[..n], &got_parents[..n])
                    })
                    .and_then(|()| {
                        if got[n..]
                            .iter()
                            .chain(&got_parents[n..])
                            .any(|&x| x != POISON)
                        {
                            return Err("wrote past the graph".into());
                        }
                        if (stats.iterations, stats.pull_levels) != (want_depth, want_pulls) {
                            return Err(format!(
                                "{} levels, {} pulled; the rule on the CPU: {want_depth}, \
                                 {want_pulls}",
                                stats.iterations, stats.pull_levels
                            ));
                        }
                        // From the third run of a key on, the batch after level 0 (which
                        // every run launches, but on a graph of at most 6 vertices) replays.
                        let third = i == 2 || i == 3 || i == 6;
                        if third && n >= 6 && replays == 0 {
                            return Err(format!(
                                "run {i} of one key ({} levels) replayed nothing",
                                stats.iterations
                            ));
                        }
                        if i == 0 && replays > 0 && stats.iterations < 30 {
                            return Err("a first run replayed a recording it never made".into());
                        }
                        Ok(())
                    }))
            })();
            tally.record(name, &format!("bfs_do::run, run {i} of a key"), outcome(r));
        }
        state
            .device_loop(&gpu)
            .unwrap()
            .set_levels_per_replay(per_replay);
    }
    // `bfs` keeps its state between calls: the graphs in turn, twice, three sources each.
    for round in 0..2 {
        for (name, s) in &graphs {
            let dg = gpu.upload_graph(s).expect("upload");
            for source in sources(s).into_iter().take(3) {
                let options = BfsOptions {
                    schedule: "warp".to_string(),
                    strategy: Strategy::DeviceQueue,
                    direction: Some(Switch::BEAMER),
                };
                let r = (|| -> loops::Result<Result<(), String>> {
                    let run = loops::graph::bfs(&gpu, &dg, source, &options)?;
                    let got = gpu.download(&run.levels)?;
                    let got_parents = gpu.download(run.parents.as_ref().expect("parents"))?;
                    let want = bfs_levels(s, source);
                    Ok(compare("levels", &want, &got)
                        .and_then(|()| loops::graph::check_bfs_tree(s, source, &got, &got_parents)))
                })();
                tally.record(name, &format!("bfs, round {round}"), outcome(r));
            }
        }
    }
    loops::graph::bfs_do::release_kept();
    tally.finish(graphs.len());
}

#[test]
fn bfs_with_a_direction_runs_on_the_device() {
    loops::launch::set_checked_mode(Some(false));
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let m: sprs::CsMat<f32> = loops::io::generate::rmat(13, 16, seed);
    let s = Graph::from_pattern(&m, 1, seed).unwrap().symmetric();
    let dg = gpu.upload_graph(&s).unwrap();
    let source = s.max_degree_vertex().unwrap_or(0);
    let want = bfs_levels(&s, source);
    let per_replay = bfs_do::DEVICE_LEVELS_PER_REPLAY as u64;
    let (model, _) = expected(
        &s,
        &want,
        Switch::BEAMER,
        per_replay,
        s.vertices() as u64 + 1,
    );
    let want_pulls = model.pull_levels;
    for (schedule, strategy, ran) in [
        // `Auto` measures the device queue and the host loop (either may win).
        ("auto", Strategy::Auto, Strategy::Auto),
        ("thread", Strategy::Auto, Strategy::Auto),
        ("group64", Strategy::DeviceQueue, Strategy::DeviceQueue),
        ("merge_path", Strategy::Auto, Strategy::Host),
        ("warp", Strategy::Host, Strategy::Host),
    ] {
        let options = BfsOptions {
            schedule: schedule.to_string(),
            strategy,
            direction: Some(Switch::BEAMER),
        };
        let run = loops::graph::bfs(&gpu, &dg, source, &options).unwrap();
        let levels = gpu.download(&run.levels).unwrap();
        let parents = gpu.download(run.parents.as_ref().unwrap()).unwrap();
        compare("levels", &want, &levels).unwrap();
        loops::graph::check_bfs_tree(&s, source, &levels, &parents).unwrap();
        assert_eq!(run.stats.algorithm, "bfs-do");
        match ran {
            Strategy::Auto => assert_ne!(run.stats.strategy, ran, "{schedule} {strategy:?}"),
            _ => assert_eq!(run.stats.strategy, ran, "{schedule} {strategy:?}"),
        }
        assert_eq!(run.stats.pull_levels, want_pulls, "{schedule} {strategy:?}");
    }
    // The device loops without a queue cannot run it.
    for strategy in [Strategy::DeviceFlags, Strategy::DeviceScan] {
        let options = BfsOptions {
            strategy,
            direction: Some(Switch::BEAMER),
            ..BfsOptions::default()
        };
        assert!(loops::graph::bfs(&gpu, &dg, source, &options).is_err());
    }
}

/// A path over `n` vertices numbered at random, symmetric: long chains of links for the
/// union-find of components, whatever the order the GPU links in.
fn random_path(n: u32, seed: u64) -> Graph {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x5041_5448);
    let mut ids: Vec<u32> = (0..n).collect();
    ids.shuffle(&mut rng);
    let edges: Vec<(u32, u32, u32)> = ids.windows(2).map(|w| (w[0], w[1], 1)).collect();
    Graph::from_edges(n as usize, &edges).unwrap().symmetric()
}

/// A path through `ids` in their order, symmetric.
fn path_over(ids: &[u32]) -> Graph {
    let edges: Vec<(u32, u32, u32)> = ids.windows(2).map(|w| (w[0], w[1], 1)).collect();
    Graph::from_edges(ids.len(), &edges).unwrap().symmetric()
}

/// The schedules the loops on the device of PageRank and components run their step under (any:
/// the step runs over every vertex): grid-stride ones, `auto`, and ones that keep preprocessing
/// with the tile set (merge path's block starts, LRB's bins), which the recorded replay bakes in.
const FULL_SCHEDULES: &[&str] = &["thread", "warp", "block", "auto", "merge_path", "lrb"];

/// Connected components in the loop on the device (`cc::run` in the device queue, and `components` asked for
/// it, and `Auto`, which measures both loops) against the CPU's, under the schedules of
/// [`FULL_SCHEDULES`], labels poisoned (longer than the graph, whose tail must stay poisoned), the
/// iterations within 2 of the host loop's; each run three times on one state (the second records
/// its first graph for the iterations the first needed, where they are more than 8 or 3 fewer,
/// the third replays it), on the same graph classes (each symmetrised and directed: a vertex's
/// out-edges link both ways) and a path of 20,000 randomly numbered vertices (long chains of
/// links; stop 51's hooking and jumping took more than 8 iterations there, so that the first run
/// replayed a second graph; union-find takes 2, and PageRank's test below covers the second graph),
/// and paths of 1,000 numbered in order and zigzag (chains past the step's 32-step finds).
#[test]
fn device_components_match_the_cpu() {
    use loops::graph::cc;
    use loops::graph::reference::components;
    loops::launch::set_checked_mode(Some(false));
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut tally = Tally::default();
    let mut all = graphs(seed);
    // A directed one too: rmat without symmetrising.
    let m: sprs::CsMat<f32> = loops::io::generate::rmat(12, 4, seed ^ 7);
    all.push((
        "rmat 12 directed".to_string(),
        Graph::from_pattern(&m, 1, seed).unwrap(),
    ));
    all.push(("random path 20000".to_string(), random_path(20_000, seed)));
    // Paths numbered in order and zigzag (0, n-1, 1, n-2, ...): the first links can make chains
    // of hundreds of parents, past the step's 32-step finds and links, so that later iterations
    // start from vertices whose root a find does not reach.
    let ordered: Vec<u32> = (0..1000).collect();
    let zigzag: Vec<u32> = (0..500).flat_map(|i| [i, 999 - i]).collect();
    all.push(("path 1000 in order".to_string(), path_over(&ordered)));
    all.push(("path 1000 zigzag".to_string(), path_over(&zigzag)));
    for (name, g) in &all {
        let n = g.vertices();
        let dg = gpu.upload_graph(g).expect("upload");
        let want = components(g);
        let mut state = cc::Components::new(&gpu, n).unwrap();
        for &schedule in FULL_SCHEDULES {
            let mut labels = gpu.upload(&vec![POISON; n + 5]).unwrap();
            let host_iterations = {
                let mut host_labels = gpu.zeros(n).unwrap();
                let host = cc::run(
                    Strategy::Host,
                    schedule,
                    &gpu,
                    &mut state,
                    &dg,
                    &mut host_labels,
                )
                .unwrap();
                assert_eq!(host.0, Strategy::Host);
                if compare("labels", &want, &gpu.download(&host_labels).unwrap()).is_err() {
                    tally.record(
                        name,
                        &format!("cc host/{schedule}"),
                        outcome(Ok(Err("host loop's labels".to_string()))),
                    );
                }
                host.1
            };
            for round in 0..3 {
                let r = (|| -> loops::Result<Result<(), String>> {
                    gpu.fill(&mut labels, POISON)?;
                    let (ran, iterations) = cc::run(
                        Strategy::DeviceQueue,
                        schedule,
                        &gpu,
                        &mut state,
                        &dg,
                        &mut labels,
                    )?;
                    assert_eq!(ran, Strategy::DeviceQueue);
                    let got = gpu.download(&labels)?;
                    Ok(compare("labels", &want, &got[..n]).and_then(|()| {
                        if got[n..].iter().any(|&x| x != POISON) {
                            return Err("wrote past the graph's vertices".into());
                        }
                        // The links race (atomic minima in any order): the count may differ
                        // from the host loop's run by a little, never be 0 or past n + 1.
                        if iterations == 0
                            || iterations as usize > n + 1
                            || iterations.abs_diff(host_iterations) > 2
                        {
                            return Err(format!(
                                "{iterations} iterations, the host loop {host_iterations}"
                            ));
                        }
                        Ok(())
                    }))
                })();
                tally.record(
                    name,
                    &format!("cc device/{schedule} run {round}"),
                    outcome(r),
                );
            }
        }
        // The library call: the loop asked for, and `Auto` one of the two.
        for (asked, ran) in [
            (Strategy::Auto, None),
            (Strategy::DeviceQueue, Some(Strategy::DeviceQueue)),
            (Strategy::Host, Some(Strategy::Host)),
        ] {
            let options = loops::graph::ComponentsOptions {
                strategy: asked,
                ..Default::default()
            };
            let r = loops::graph::components(&gpu, &dg, &options).map(|run| {
                compare("labels", &want, &gpu.download(&run.labels).unwrap()).and_then(|()| {
                    let s = run.stats.strategy;
                    if ran.map_or(s != Strategy::Auto, |r| r == s) {
                        Ok(())
                    } else {
                        Err(format!("ran in {s:?}, expected {ran:?}"))
                    }
                })
            });
            tally.record(name, &format!("components {}", asked.name()), outcome(r));
        }
    }
    tally.finish(all.len());
}

/// PageRank in the loop on the device (`pagerank::run` in the device queue, and `pagerank` asked for it, and
/// `Auto`) under the schedules of [`FULL_SCHEDULES`]: a fixed count of iterations (1, 2, 7, 20:
/// one recorded graph; 65, 70: a first graph of odd and even length and a replay of 64) against the CPU's ranks (f64, L1 below 1e-9; f32 below
/// 1e-4), each run twice on one state (the second replays the graph the first recorded), and to a
/// tolerance against the host loop's run (the same iterations, or one more or fewer where the
/// change lands within rounding of the tolerance, and the same ranks within 1e-6), ranks
/// poisoned before each run.
#[test]
fn device_pagerank_matches_the_cpu_and_the_host_loop() {
    use loops::graph::pagerank::{self, PageRank};
    use loops::graph::reference::pagerank as pagerank_ref;
    loops::launch::set_checked_mode(Some(false));
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut tally = Tally::default();
    let mut all = graphs(seed);
    let m: sprs::CsMat<f32> = loops::io::generate::rmat(12, 4, seed ^ 9);
    all.push((
        "rmat 12 directed".to_string(),
        Graph::from_pattern(&m, 1, seed).unwrap(),
    ));
    let l1 = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f64>();
    for (name, g) in &all {
        let mut pr = PageRank::<f64>::new(&gpu, g).unwrap();
        let mut pr32 = PageRank::<f32>::new(&gpu, g).unwrap();
        for &schedule in FULL_SCHEDULES {
            for iterations in [20u32, 7, 1, 2, 65, 70] {
                let want = pagerank_ref(g, 0.85, iterations as usize);
                for round in 0..2 {
                    let r = (|| -> loops::Result<Result<(), String>> {
                        pr.poison(&gpu, f64::NAN)?;
                        let ran = pagerank::run(
                            Strategy::DeviceQueue,
                            schedule,
                            &gpu,
                            &mut pr,
                            0.85,
                            iterations,
                            None,
                        )?;
                        let got = gpu.download(pr.ranks())?;
                        let d = l1(&got, &want);
                        Ok(if ran.iterations != iterations {
                            Err(format!("{} iterations of {iterations}", ran.iterations))
                        } else if d.is_nan() || d > 1e-9 {
                            Err(format!("L1 {d:e} from the CPU's ranks"))
                        } else {
                            Ok(())
                        })
                    })();
                    tally.record(
                        name,
                        &format!("pagerank device {iterations} it/{schedule} run {round}"),
                        outcome(r),
                    );
                }
                let r = (|| -> loops::Result<Result<(), String>> {
                    pr32.poison(&gpu, f32::NAN)?;
                    pagerank::run(
                        Strategy::DeviceQueue,
                        schedule,
                        &gpu,
                        &mut pr32,
                        0.85,
                        iterations,
                        None,
                    )?;
                    let got: Vec<f64> = gpu
                        .download(pr32.ranks())?
                        .into_iter()
                        .map(f64::from)
                        .collect();
                    let d = l1(&got, &want);
                    Ok(if d.is_nan() || d > 1e-4 {
                        Err(format!("f32: L1 {d:e} from the CPU's ranks"))
                    } else {
                        Ok(())
                    })
                })();
                tally.record(
                    name,
                    &format!("pagerank device f32 {iterations} it/{schedule}"),
                    outcome(r),
                );
            }
            for round in 0..2 {
                let r = (|| -> loops::Result<Result<(), String>> {
                    let host = pagerank::run(
                        Strategy::Host,
                        schedule,
                        &gpu,
                        &mut pr,
                        0.85,
                        200,
                        Some(1e-7),
                    )?;
                    let want = gpu.download(pr.ranks())?;
                    pr.poison(&gpu, f64::NAN)?;
                    let dev = pagerank::run(
                        Strategy::DeviceQueue,
                        schedule,
                        &gpu,
                        &mut pr,
                        0.85,
                        200,
                        Some(1e-7),
                    )?;
                    let got = gpu.download(pr.ranks())?;
                    let d = l1(&got, &want);
                    Ok(
                        if dev.iterations.abs_diff(host.iterations) > 1 || dev.iterations == 0 {
                            Err(format!(
                                "{} iterations, the host loop {}",
                                dev.iterations, host.iterations
                            ))
                        } else if dev.last_change.is_none_or(|c| c.is_nan() || c >= 1e-7) {
                            Err(format!("last change {:?}", dev.last_change))
                        } else if d.is_nan() || d > 1e-6 {
                            Err(format!("L1 {d:e} from the host loop's ranks"))
                        } else {
                            Ok(())
                        },
                    )
                })();
                tally.record(
                    name,
                    &format!("pagerank device tolerance/{schedule} run {round}"),
                    outcome(r),
                );
            }
        }
        for (asked, ran) in [
            (Strategy::Auto, None),
            (Strategy::DeviceQueue, Some(Strategy::DeviceQueue)),
            (Strategy::Host, Some(Strategy::Host)),
        ] {
            let options = loops::graph::PageRankOptions {
                strategy: asked,
                ..Default::default()
            };
            let r = loops::graph::pagerank::<f64>(&gpu, g, &options).map(|run| {
                let got = gpu.download(&run.ranks).unwrap();
                let d = l1(&got, &pagerank_ref(g, 0.85, 20));
                let s = run.stats.strategy;
                if !ran.map_or(s != Strategy::Auto, |r| r == s) {
                    Err(format!("ran in {s:?}, expected {ran:?}"))
                } else if d > 1e-9 || run.stats.iterations != 20 {
                    Err(format!("L1 {d:e}, {} iterations", run.stats.iterations))
                } else {
                    Ok(())
                }
            });
            tally.record(name, &format!("pagerank {}", asked.name()), outcome(r));
        }
    }
    tally.finish(all.len());
}

/// k-core peeling in the loop on the device (`kcore::run` in the device queue, and `k_core` asked for it, and
/// `Auto`) under every schedule of `kcore::peel_queue` against the CPU's core numbers
/// (`core_numbers`), its state poisoned before each run, each run twice on one state (the second
/// replays the graph the first recorded), on the graph classes above, a directed R-MAT, and a
/// chain of 3,000 vertices with a few chords (about 750 iterations: many replays).
#[test]
fn device_k_core_matches_the_cpu() {
    use loops::graph::kcore::{self, KCore};
    use loops::graph::reference::core_numbers;
    loops::launch::set_checked_mode(Some(false));
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut tally = Tally::default();
    let mut all = graphs(seed);
    let m: sprs::CsMat<f32> = loops::io::generate::rmat(12, 4, seed ^ 11);
    all.push((
        "rmat 12 directed".to_string(),
        Graph::from_pattern(&m, 1, seed).unwrap(),
    ));
    let chain: Vec<(u32, u32, u32)> = (0..2999u32)
        .map(|v| (v, v + 1, 1))
        .chain((0..10u32).map(|i| (i * 97 % 3000, (i * 389 + 1500) % 3000, 1)))
        .collect();
    all.push((
        "chain 3000".to_string(),
        Graph::from_edges(3000, &chain).unwrap(),
    ));
    for (name, g) in &all {
        let want = core_numbers(g);
        let top = want.iter().copied().max().unwrap_or(0);
        let mut kc = KCore::new(&gpu, g).unwrap();
        for &schedule in kcore::peel_queue::SCHEDULES {
            for round in 0..2 {
                let r = (|| -> loops::Result<Result<(), String>> {
                    kc.poison(&gpu, POISON)?;
                    let (ran, iterations, max_core) =
                        kcore::run(Strategy::DeviceQueue, schedule, &gpu, &mut kc)?;
                    assert_eq!(ran, Strategy::DeviceQueue);
                    let got = gpu.download(kc.cores())?;
                    Ok(compare("cores", &want, &got).and_then(|()| {
                        if max_core != top {
                            Err(format!("largest core {max_core}, expected {top}"))
                        } else if g.vertices() > 0 && iterations == 0 {
                            Err("no iteration".into())
                        } else {
                            Ok(())
                        }
                    }))
                })();
                tally.record(
                    name,
                    &format!("k-core device/{schedule} run {round}"),
                    outcome(r),
                );
            }
        }
        for (asked, ran) in [
            (Strategy::Auto, None),
            (Strategy::DeviceQueue, Some(Strategy::DeviceQueue)),
            (Strategy::Host, Some(Strategy::Host)),
        ] {
            let options = loops::graph::KCoreOptions {
                strategy: asked,
                ..Default::default()
            };
            let r = loops::graph::k_core(&gpu, g, &options).map(|run| {
                let s = run.stats.strategy;
                compare("cores", &want, &gpu.download(&run.cores).unwrap()).and_then(|()| {
                    if ran.map_or(s != Strategy::Auto, |r| r == s) {
                        Ok(())
                    } else {
                        Err(format!("ran in {s:?}, expected {ran:?}"))
                    }
                })
            });
            tally.record(name, &format!("k-core {}", asked.name()), outcome(r));
        }
    }
    tally.finish(all.len());
}
