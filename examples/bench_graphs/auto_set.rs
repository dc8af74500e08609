//! `--graphs-auto`: graph `auto` (`loops::graph::auto`) against every fixed choice it measures
//! between, per algorithm, on graphs of five classes, each split in two halves by a rule fixed
//! before any run.
//!
//! The graphs ([`graphs`]) and their classes: `road` (the world set's road networks, Graph500's
//! generated road network, a 2-D grid, luxembourg and USPowerGrid from
//! `../shared/data/matrices`), `social` (the world set's SNAP-like power-law graphs, a
//! power-law graph, ca-GrQc), `citation` and `web` (the world set's citation and web-graph
//! generators: what stands for SNAP's citation and web graphs), `kronecker` (Graph500 Kronecker
//! graphs). The halves: within a class, in the listed order, the graphs at even positions are
//! the design half, those at odd positions held out (`half` column). Every graph is run on its
//! symmetric view from its vertex of largest degree, with seeded random weights in 1..=64.
//!
//! The rows: per graph and algorithm, `auto` (schedule `auto`, `Strategy::Auto`) and each
//! candidate of `loops::graph::auto::picks` fixed (`schedule/loop`; SSSP's one-bucket
//! candidate as delta `UNREACHED`); PageRank (20 iterations, f32) and k-core choose the loop
//! alone (`auto/device-queue`, `auto/host`). Each call is timed between CUDA events after one
//! untimed call (whose output is checked against the CPU: BFS levels and, direction-optimizing, a
//! BFS tree; Dijkstra; components; triangles; core numbers; PageRank within 1e-4 in L1), the
//! median of `--reps`; `first_ms` is that first call's wall time (for `auto`, the measurement of
//! every candidate on a graph of that shape). Components, triangles, PageRank and k-core run
//! their module drivers on a state made once per graph, BFS and SSSP the library calls.
//!
//! `--part i/k` runs every k-th graph from the i-th (one process per GPU); `--auto-summary
//! a.csv,b.csv,..` reads the parts' CSVs and prints `auto` over the best fixed choice
//! (`best_over_auto`, target >= 0.9) per algorithm, class and half.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use loops::graph::auto::{picks, Algorithm, Pick};
use loops::graph::reference::{
    bfs_levels, components, core_numbers, dijkstra, pagerank as pagerank_ref, triangles,
};
use loops::graph::{
    bfs, cc, compare, kcore, pagerank, sssp, tc, BfsOptions, Graph, SsspMethod, SsspOptions,
    Strategy, Switch, UNREACHED,
};
use loops::prelude::*;

use crate::{Args, BoxError};

/// One graph of the set: name, class, builder.
pub struct AutoGraph {
    pub name: String,
    pub class: &'static str,
    pub held_out: bool,
    build: Box<dyn Fn() -> Result<sprs::CsMat<f32>, BoxError>>,
}

/// The set, by class in a fixed order; the half of each graph by its position in its class.
pub fn graphs(seed: u64, matrices: &Path) -> Vec<AutoGraph> {
    use loops::io::generate as gen;
    type Build = Box<dyn Fn() -> Result<sprs::CsMat<f32>, BoxError>>;
    let world = |class: &'static str, rows: usize, s: u64| -> (String, Build) {
        let spec = gen::world_set(4)
            .into_iter()
            .find(|w| w.class == class && w.rows == rows && w.seed == s)
            .expect("a world spec");
        (spec.name.clone(), Box::new(move || Ok(spec.matrix())))
    };
    let file = |name: &str| -> (String, Build) {
        let path = matrices.join(name);
        (
            name.trim_end_matches(".mtx").to_string(),
            Box::new(move || Ok(loops::io::mtx::read_csr::<f32>(&path)?)),
        )
    };
    let named = |name: String, f: Build| (name, f);
    let classes: Vec<(&'static str, Vec<(String, Build)>)> = vec![
        (
            "road",
            vec![
                world("road_network", 10_000, 0),
                world("road_network", 10_000, 1),
                world("road_network", 100_000, 0),
                named(
                    "road_100000".into(),
                    Box::new(move || Ok(gen::road(100_000, seed))),
                ),
                file("luxembourg.mtx"),
                file("USPowerGrid.mtx"),
                named(
                    "grid_256x256".into(),
                    Box::new(move || Ok(gen::grid2d(256, 256, seed))),
                ),
                world("road_network", 100_000, 1),
            ],
        ),
        (
            "social",
            vec![
                world("snap_power_law", 10_000, 0),
                world("snap_power_law", 10_000, 1),
                world("snap_power_law", 100_000, 0),
                world("snap_power_law", 100_000, 1),
                file("ca-GrQc.mtx"),
                named(
                    "powerlaw_100000".into(),
                    Box::new(move || Ok(gen::power_law(100_000, 100_000, 16.0, 2.0, false, seed))),
                ),
            ],
        ),
        (
            "citation",
            vec![
                world("citation", 10_000, 0),
                world("citation", 10_000, 1),
                world("citation", 100_000, 0),
                world("citation", 100_000, 1),
            ],
        ),
        (
            "web",
            vec![
                world("web_graph", 10_000, 0),
                world("web_graph", 10_000, 1),
                world("web_graph", 100_000, 0),
                world("web_graph", 100_000, 1),
            ],
        ),
        (
            "kronecker",
            [12u32, 14, 16, 17]
                .into_iter()
                .map(|scale| {
                    named(
                        format!("kron_{scale}"),
                        Box::new(move || Ok(gen::kronecker(scale, 16, seed))) as Build,
                    )
                })
                .collect(),
        ),
    ];
    let mut out = Vec::new();
    for (class, list) in classes {
        for (i, (name, build)) in list.into_iter().enumerate() {
            out.push(AutoGraph {
                name,
                class,
                held_out: i % 2 == 1,
                build,
            });
        }
    }
    out
}

/// One row: a choice of one algorithm on one graph.
struct Row {
    algorithm: &'static str,
    choice: String,
    ran: String,
    median_ms: f64,
    first_ms: f64,
    ok: Result<(), String>,
}

pub const HEADER: &str =
    "graph,class,half,vertices,edges,algorithm,choice,ran,median_ms,first_ms,status";

/// The first call (checked, its wall time), then the median of `reps` calls between CUDA events;
/// `call` returns what ran and its output.
fn timed<O>(
    gpu: &Gpu,
    reps: usize,
    mut call: impl FnMut() -> loops::Result<(String, O)>,
    check: impl FnOnce(&O) -> Result<(), String>,
) -> loops::Result<(f64, f64, String, Result<(), String>)> {
    gpu.synchronize()?;
    let start = Instant::now();
    let (_, out) = call()?;
    gpu.synchronize()?;
    let first_ms = start.elapsed().as_secs_f64() * 1e3;
    let ok = check(&out);
    drop(out);
    let timer = gpu.timer()?;
    let mut samples = Vec::new();
    let mut ran = String::new();
    for _ in 0..reps.max(1) {
        timer.start()?;
        let (r, out) = call()?;
        timer.stop()?;
        drop(out);
        samples.push(timer.elapsed_ms()? as f64);
        ran = r;
    }
    samples.sort_by(f64::total_cmp);
    Ok((samples[samples.len() / 2], first_ms, ran, ok))
}

/// The choices of one algorithm: `auto` (`None`) and each candidate.
fn choices(list: &[Pick<'static>]) -> Vec<Option<Pick<'static>>> {
    std::iter::once(None)
        .chain(list.iter().copied().map(Some))
        .collect()
}

fn label(p: Option<Pick<'_>>) -> String {
    p.map_or_else(|| "auto".to_string(), |p| p.name())
}

fn ran_of(stats: &loops::graph::GraphStats) -> String {
    format!("{}/{}", stats.schedule, stats.strategy.name())
}

/// The rows of one graph.
fn graph_rows(gpu: &Gpu, args: &Args, s: &Graph) -> Result<Vec<Row>, BoxError> {
    let reps = args.reps;
    let n = s.vertices();
    let source = s.max_degree_vertex().ok_or("a graph with no vertices")?;
    let ds = gpu.upload_graph(s)?;
    let mut rows = Vec::new();
    let mut push = |algorithm, p: Option<Pick<'_>>, r: (f64, f64, String, Result<(), String>)| {
        rows.push(Row {
            algorithm,
            choice: label(p),
            ran: r.2,
            median_ms: r.0,
            first_ms: r.1,
            ok: r.3,
        })
    };
    // BFS, push only and direction-optimizing.
    let want = bfs_levels(s, source);
    for (name, which, direction) in [
        ("bfs", Algorithm::Bfs, None),
        ("bfs-do", Algorithm::BfsDo, Some(Switch::BEAMER)),
    ] {
        for p in choices(&picks(which, "auto")) {
            let options = BfsOptions {
                schedule: p.map_or("auto", |p| p.schedule).to_string(),
                strategy: p.map_or(Strategy::Auto, |p| p.strategy),
                direction,
            };
            let r = timed(
                gpu,
                reps,
                || {
                    let run = bfs(gpu, &ds, source, &options)?;
                    Ok((ran_of(&run.stats), run))
                },
                |run| {
                    let got = gpu.download(&run.levels).map_err(|e| e.to_string())?;
                    compare("levels", &want, &got)?;
                    if let Some(parents) = &run.parents {
                        let parents = gpu.download(parents).map_err(|e| e.to_string())?;
                        loops::graph::check_bfs_tree(s, source, &got, &parents)?;
                    }
                    Ok(())
                },
            )?;
            push(name, p, r);
        }
    }
    // SSSP, near-far and Bellman-Ford.
    let dist_want = dijkstra(s, source);
    for (name, which, method) in [
        ("sssp-near-far", Algorithm::SsspNearFar, SsspMethod::NearFar),
        (
            "sssp-bf",
            Algorithm::SsspBellmanFord,
            SsspMethod::BellmanFord,
        ),
    ] {
        for p in choices(&picks(which, "auto")) {
            let options = SsspOptions {
                schedule: p.map_or("auto", |p| p.schedule).to_string(),
                strategy: p.map_or(Strategy::Auto, |p| p.strategy),
                method,
                delta: p.and_then(|p| p.one_bucket.then_some(UNREACHED)),
            };
            let r = timed(
                gpu,
                reps,
                || {
                    let run = sssp(gpu, &ds, source, &options)?;
                    let mut ran = ran_of(&run.stats);
                    if run.stats.advances == 0 && method == SsspMethod::NearFar {
                        ran += "/no-advance";
                    }
                    Ok((ran, run))
                },
                |run| {
                    let got = gpu.download(&run.dist).map_err(|e| e.to_string())?;
                    compare("dist", &dist_want, &got)
                },
            )?;
            push(name, p, r);
        }
    }
    // Components: the module drivers on a state made once, the labels poisoned before each
    // checked call.
    let cc_want = components(s);
    let mut state = cc::Components::new(gpu, n)?;
    let mut labels = gpu.zeros::<u32>(n)?;
    for p in choices(&picks(Algorithm::Components, "auto")) {
        let first = std::cell::Cell::new(true);
        let r = timed(
            gpu,
            reps,
            || {
                if first.get() {
                    gpu.fill(&mut labels, 0xDEAD_BEEF)?;
                }
                let (strategy, schedule) = match p {
                    None => (Strategy::Auto, "auto"),
                    Some(p) => (p.strategy, p.schedule),
                };
                let ran = cc::run(strategy, schedule, gpu, &mut state, &ds, &mut labels)?.0;
                let got = if first.replace(false) {
                    gpu.download(&labels)?
                } else {
                    Vec::new()
                };
                Ok((ran.name().to_string(), got))
            },
            |got| compare("labels", &cc_want, got),
        )?;
        push("components", p, r);
    }
    // Triangles: the module drivers on the oriented graph made once.
    let tc_want = triangles(s);
    let mut tri = tc::Triangles::new(gpu, s)?;
    for p in choices(&picks(Algorithm::Triangles, "auto")) {
        let r = timed(
            gpu,
            reps,
            || {
                let (ran, count) = match p {
                    None => {
                        let (ran, count) = tc::run_auto("auto", gpu, &mut tri)?;
                        (ran.to_string(), count)
                    }
                    Some(p) => (p.schedule.to_string(), tc::run(p.schedule, gpu, &mut tri)?),
                };
                Ok((ran, count))
            },
            |&count| {
                if count == tc_want {
                    Ok(())
                } else {
                    Err(format!("{count} triangles, the CPU counts {tc_want}"))
                }
            },
        )?;
        push("triangles", p, r);
    }
    // PageRank and k-core: the loop alone.
    let loop_choices = [
        (None, Strategy::Auto),
        (Some("auto/device-queue"), Strategy::DeviceQueue),
        (Some("auto/host"), Strategy::Host),
    ];
    let iterations = args.pagerank_iterations;
    let pr_want = pagerank_ref(s, 0.85, iterations as usize);
    let mut pr = pagerank::PageRank::<f32>::new(gpu, s)?;
    for (name, strategy) in loop_choices {
        let first = std::cell::Cell::new(true);
        let r = timed(
            gpu,
            reps,
            || {
                let ran = pagerank::run(strategy, "auto", gpu, &mut pr, 0.85, iterations, None)?;
                let got = if first.replace(false) {
                    gpu.download(pr.ranks())?
                } else {
                    Vec::new()
                };
                Ok((ran.strategy.name().to_string(), got))
            },
            |got| {
                let l1: f64 = got
                    .iter()
                    .zip(&pr_want)
                    .map(|(&a, &b)| (a as f64 - b).abs())
                    .sum();
                if got.len() == pr_want.len() && l1 < 1e-4 {
                    Ok(())
                } else {
                    Err(format!("L1 {l1:.2e} from the CPU's ranks"))
                }
            },
        )?;
        rows.push(Row {
            algorithm: "pagerank",
            choice: name.unwrap_or("auto").to_string(),
            ran: r.2,
            median_ms: r.0,
            first_ms: r.1,
            ok: r.3,
        });
    }
    let core_want = core_numbers(s);
    let mut kc = kcore::KCore::new(gpu, s)?;
    for (name, strategy) in loop_choices {
        let first = std::cell::Cell::new(true);
        let r = timed(
            gpu,
            reps,
            || {
                let ran = kcore::run(strategy, "auto", gpu, &mut kc)?.0;
                let got = if first.replace(false) {
                    gpu.download(kc.cores())?
                } else {
                    Vec::new()
                };
                Ok((ran.name().to_string(), got))
            },
            |got| compare("cores", &core_want, got),
        )?;
        rows.push(Row {
            algorithm: "k-core",
            choice: name.unwrap_or("auto").to_string(),
            ran: r.2,
            median_ms: r.0,
            first_ms: r.1,
            ok: r.3,
        });
    }
    Ok(rows)
}

/// `--graphs-auto`: the part's graphs, their rows to `graphs_auto[_part].csv` in `--out`; the
/// count of wrong results.
pub fn run(args: &Args) -> Result<usize, BoxError> {
    let gpu = Gpu::new(0)?;
    println!("device: {}", gpu.name());
    std::fs::create_dir_all(&args.out)?;
    let (part, parts) = parse_part(args.part.as_deref())?;
    let csv_path = args.out.join(if parts > 1 {
        format!("graphs_auto_{part}.csv")
    } else {
        "graphs_auto.csv".to_string()
    });
    let mut csv = std::fs::File::create(&csv_path)?;
    writeln!(csv, "{HEADER}")?;
    let started = Instant::now();
    let mut wrong = 0;
    let all = graphs(args.seed, &args.auto_matrices);
    for g in all.into_iter().skip(part).step_by(parts) {
        if started.elapsed().as_secs_f64() > args.deadline_s {
            println!("{}: left out, past --deadline-s", g.name);
            continue;
        }
        let t = Instant::now();
        let m = (g.build)()?;
        let s = Graph::from_pattern(&m, args.max_weight, args.seed)?.symmetric();
        drop(m);
        let rows = graph_rows(&gpu, args, &s)?;
        let half = if g.held_out { "held_out" } else { "design" };
        for r in &rows {
            let status = match &r.ok {
                Ok(()) => "ok".to_string(),
                Err(e) => {
                    wrong += 1;
                    format!("WRONG: {}", e.replace(',', ";"))
                }
            };
            writeln!(
                csv,
                "{},{},{half},{},{},{},{},{},{:.4},{:.3},{status}",
                g.name,
                g.class,
                s.vertices(),
                s.edges(),
                r.algorithm,
                r.choice,
                r.ran,
                r.median_ms,
                r.first_ms
            )?;
        }
        csv.flush()?;
        println!(
            "{} ({}, {half}, {} vertices, {} edges): {} rows in {:.1} s",
            g.name,
            g.class,
            s.vertices(),
            s.edges(),
            rows.len(),
            t.elapsed().as_secs_f64()
        );
    }
    println!("wrote {}", csv_path.display());
    Ok(wrong)
}

fn parse_part(part: Option<&str>) -> Result<(usize, usize), BoxError> {
    let Some(part) = part else {
        return Ok((0, 1));
    };
    let (i, k) = part.split_once('/').ok_or("--part i/k")?;
    let (i, k): (usize, usize) = (i.parse()?, k.parse()?);
    if k == 0 || i >= k {
        return Err("--part i/k with i < k".into());
    }
    Ok((i, k))
}

/// One parsed CSV row of the summary.
struct Parsed {
    graph: String,
    class: String,
    half: String,
    algorithm: String,
    choice: String,
    ran: String,
    median_ms: f64,
    ok: bool,
}

/// `--auto-summary`: per graph and algorithm `auto` over the best fixed choice, then per
/// algorithm, class and half the least and the geometric mean; written to `summary` and printed.
pub fn summary(csvs: &[PathBuf], out: &Path) -> Result<usize, BoxError> {
    let mut rows = Vec::new();
    for path in csvs {
        for line in std::fs::read_to_string(path)?.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            if f.len() < 11 {
                continue;
            }
            rows.push(Parsed {
                graph: f[0].into(),
                class: f[1].into(),
                half: f[2].into(),
                algorithm: f[5].into(),
                choice: f[6].into(),
                ran: f[7].into(),
                median_ms: f[8].parse()?,
                ok: f[10] == "ok",
            });
        }
    }
    let wrong = rows.iter().filter(|r| !r.ok).count();
    let mut text = String::new();
    text += "graph,class,half,algorithm,auto_ran,auto_ms,best_choice,best_ms,best_over_auto\n";
    // (algorithm, class, half) -> ratios
    let mut groups: Vec<((String, String, String), Vec<f64>)> = Vec::new();
    let mut keys: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r.graph.clone(), r.algorithm.clone()))
        .collect();
    keys.dedup();
    for (graph, algorithm) in keys {
        let of: Vec<&Parsed> = rows
            .iter()
            .filter(|r| r.graph == graph && r.algorithm == algorithm)
            .collect();
        let Some(auto) = of.iter().find(|r| r.choice == "auto") else {
            continue;
        };
        let Some(best) = of
            .iter()
            .filter(|r| r.choice != "auto")
            .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms))
        else {
            continue;
        };
        let ratio = best.median_ms / auto.median_ms;
        text += &format!(
            "{graph},{},{},{algorithm},{},{:.4},{},{:.4},{ratio:.3}\n",
            auto.class, auto.half, auto.ran, auto.median_ms, best.choice, best.median_ms
        );
        for key in [
            (algorithm.clone(), auto.class.clone(), auto.half.clone()),
            (algorithm.clone(), auto.class.clone(), "both".to_string()),
            (algorithm.clone(), "all".to_string(), auto.half.clone()),
            (algorithm.clone(), "all".to_string(), "both".to_string()),
            ("all".to_string(), auto.class.clone(), "both".to_string()),
            ("all".to_string(), "all".to_string(), auto.half.clone()),
            ("all".to_string(), "all".to_string(), "both".to_string()),
        ] {
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(ratio),
                None => groups.push((key, vec![ratio])),
            }
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    text += "\nalgorithm,class,half,pairs,min_best_over_auto,geomean_best_over_auto,below_0.9\n";
    for ((algorithm, class, half), v) in &groups {
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let geo = (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
        let below = v.iter().filter(|&&x| x < 0.9).count();
        text += &format!(
            "{algorithm},{class},{half},{},{min:.3},{geo:.3},{below}\n",
            v.len()
        );
    }
    text += &format!("\nwrong results: {wrong}\n");
    print!("{text}");
    std::fs::write(out, &text)?;
    Ok(wrong)
}
