//! `--library`: the algorithms as users call them (`loops::graph::{bfs, sssp, pagerank,
//! components}`), each in the loops its strategy names (`auto` printed with the loop it chose),
//! on the symmetric view of every graph, beside Gunrock v2.1.0 on the same graph and source
//! (`--gunrock-bin`: the peers' `gunrock.{bfs,sssp,pr}`, given the graph as a Matrix Market file
//! this run writes).
//!
//! Timing: each call between two CUDA events after one warm-up call, the median of `--reps`; the
//! calls allocate their outputs and loops, as a user's do (PageRank: the module drivers
//! `pagerank::run` on a state made once, since the call transposes and
//! uploads the host graph).
//! `us/iter`: the median over the levels or iterations run. Every result is checked against the
//! CPU reference (BFS levels, and a valid BFS tree for the direction-optimizing one; Dijkstra;
//! components; PageRank within 1e-4 in L1); a wrong one is counted and exits non-zero.
//!
//! Gunrock: `gunrock.bfs` and `gunrock.sssp` from our source, `gunrock.pr`, each `-n 5` in one
//! process with `--validate` (bfs, sssp) under a 60-second `timeout`; the median of its JSON
//! `process_times` (the algorithm's iterations, not loading or validation). Its `pr` runs to its
//! own tolerance, so the row gives its total time and `gunrock/ours` is per call only where the
//! work matches (bfs, bfs-do against Gunrock's bfs, sssp). A Gunrock failure (timeout, crash,
//! errors counted by its validation) is a note on the row; our rows are written either way.
//! Rows go to `library.csv` in `--out` (and the table to stdout).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use loops::graph::reference::{bfs_levels, components, dijkstra, pagerank as pagerank_ref};
use loops::graph::{
    bfs, cc, compare, kcore, pagerank, BfsOptions, Graph, GraphStats, SsspOptions, Strategy, Switch,
};
use loops::prelude::*;

use crate::{cases, Args, BoxError};

/// One row of the library table.
struct LibRow {
    graph: String,
    vertices: usize,
    edges: usize,
    algorithm: &'static str,
    asked: Strategy,
    ran: Strategy,
    median_ms: f64,
    iterations: u32,
    pull_levels: u32,
    ok: Result<(), String>,
    /// Gunrock's median ms for the same work, and its note.
    gunrock: Option<(Option<f64>, String)>,
}

impl LibRow {
    fn us_per_iteration(&self) -> f64 {
        self.median_ms * 1e3 / self.iterations.max(1) as f64
    }
}

const HEADER: &str = "graph,vertices,edges,algorithm,strategy,ran,median_ms,iterations,us_per_iter,pull_levels,status,gunrock_ms,gunrock_over_ours,gunrock_note";

fn print_row(r: &LibRow, csv: &mut impl Write) -> std::io::Result<()> {
    let (g_ms, ratio, note) = match &r.gunrock {
        Some((Some(ms), note)) => (
            format!("{ms:.3}"),
            format!("{:.2}", ms / r.median_ms),
            note.clone(),
        ),
        Some((None, note)) => (String::new(), String::new(), note.clone()),
        None => (String::new(), String::new(), String::new()),
    };
    let status = match &r.ok {
        Ok(()) => "ok".to_string(),
        Err(e) => format!("WRONG: {}", e.replace(',', ";")),
    };
    println!(
        "{:<16} {:>9} {:>10} {:<10} {:<13} {:<13} {:>10.3} {:>6} {:>8.2} {:>4} {:<6} {:>10} {:>7} {}",
        r.graph,
        r.vertices,
        r.edges,
        r.algorithm,
        r.asked.name(),
        r.ran.name(),
        r.median_ms,
        r.iterations,
        r.us_per_iteration(),
        r.pull_levels,
        if r.ok.is_ok() { "ok" } else { "WRONG" },
        g_ms,
        if ratio.is_empty() {
            String::new()
        } else {
            format!("{ratio}x")
        },
        note
    );
    writeln!(
        csv,
        "{},{},{},{},{},{},{:.4},{},{:.3},{},{},{},{},{}",
        r.graph,
        r.vertices,
        r.edges,
        r.algorithm,
        r.asked.name(),
        r.ran.name(),
        r.median_ms,
        r.iterations,
        r.us_per_iteration(),
        r.pull_levels,
        status,
        g_ms,
        ratio,
        note.replace(',', ";")
    )
}

/// The median of `reps` calls of `call` between CUDA events, after one warm-up call whose output
/// `check` checks (outside the timing), and the stats of the last call.
fn time_calls<O>(
    gpu: &Gpu,
    reps: usize,
    mut call: impl FnMut() -> loops::Result<(GraphStats, O)>,
    check: impl FnOnce(O) -> Result<(), String>,
) -> loops::Result<(f64, GraphStats, Result<(), String>)> {
    let timer = gpu.timer()?;
    let (_, out) = call()?;
    let check = check(out);
    let mut samples = Vec::new();
    let mut last = None;
    for _ in 0..reps.max(1) {
        timer.start()?;
        let (stats, out) = call()?;
        timer.stop()?;
        drop(out);
        samples.push(timer.elapsed_ms()? as f64);
        last = Some(stats);
    }
    samples.sort_by(f64::total_cmp);
    Ok((
        samples[samples.len() / 2],
        last.expect("at least one run"),
        check,
    ))
}

/// Writes `g` as a Matrix Market coordinate file (general, real weights, 1-based), every stored
/// edge once.
fn write_mtx(g: &Graph, path: &Path) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::with_capacity(1 << 22, std::fs::File::create(path)?);
    writeln!(w, "%%MatrixMarket matrix coordinate real general")?;
    writeln!(w, "{} {} {}", g.vertices(), g.vertices(), g.edges())?;
    for v in 0..g.vertices() {
        for (u, weight) in g.out_edges(v) {
            writeln!(w, "{} {} {}", v + 1, u + 1, weight)?;
        }
    }
    w.flush()
}

/// The numbers of the JSON array `key` in `text`.
fn json_numbers(text: &str, key: &str) -> Vec<f64> {
    let Some(at) = text.find(&format!("\"{key}\"")) else {
        return Vec::new();
    };
    let rest = &text[at..];
    let (Some(open), Some(close)) = (rest.find('['), rest.find(']')) else {
        return Vec::new();
    };
    if close < open {
        return Vec::new();
    }
    rest[open + 1..close]
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect()
}

/// Runs `gunrock.<app>` on `mtx` (from `source` for bfs and sssp): its median ms and a note, or
/// `None` and why.
fn gunrock(bin: &Path, app: &str, mtx: &Path, source: u32, dir: &Path) -> (Option<f64>, String) {
    let exe = bin.join(format!("gunrock.{app}"));
    let json = format!(
        "{}__{app}.json",
        mtx.file_stem().unwrap_or_default().to_string_lossy()
    );
    let _ = std::fs::remove_file(dir.join(&json));
    let mut cmd = Command::new("timeout");
    cmd.args(["-k", "5", "60"]).arg(&exe).arg("-m").arg(mtx);
    if app != "pr" {
        cmd.args(["--src", &source.to_string(), "--validate"]);
    }
    cmd.args(["-n", "5", "--export_metrics", "-d"])
        .arg(dir)
        .args(["-f", &json]);
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) => return (None, format!("gunrock.{app} did not start: {e}")),
    };
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let log = dir.join(format!("{json}.log"));
    let _ = std::fs::write(&log, &text);
    if !out.status.success() {
        return (
            None,
            format!(
                "gunrock.{app} failed ({}): see {}",
                out.status,
                log.display()
            ),
        );
    }
    let errors = text
        .lines()
        .filter_map(|l| l.split("Number of errors : ").nth(1))
        .filter_map(|x| x.trim().parse::<u64>().ok())
        .next_back();
    let body = std::fs::read_to_string(dir.join(&json)).unwrap_or_default();
    let mut times = json_numbers(&body, "process_times");
    if times.is_empty() {
        return (None, format!("gunrock.{app}: no process_times"));
    }
    times.sort_by(f64::total_cmp);
    let depth = json_numbers(&body, "search_depths");
    let mut note = format!("gunrock.{app} median of {}", times.len());
    if let Some(d) = depth.first() {
        note += &format!(", depth {d}");
    }
    match errors {
        Some(0) => note += ", validated",
        Some(e) => {
            return (
                None,
                format!("gunrock.{app} WRONG: {e} errors by its validation"),
            )
        }
        None if app != "pr" => note += ", no validation printed",
        None => note += ", its own tolerance (not per iteration)",
    }
    (Some(times[times.len() / 2]), note)
}

fn check_levels(
    gpu: &Gpu,
    s: &Graph,
    source: u32,
    want: &[u32],
    levels: &DeviceBuffer<u32>,
    parents: Option<&DeviceBuffer<u32>>,
) -> Result<(), String> {
    let got = gpu.download(levels).map_err(|e| e.to_string())?;
    compare("levels", want, &got)?;
    if let Some(p) = parents {
        let p = gpu.download(p).map_err(|e| e.to_string())?;
        loops::graph::check_bfs_tree(s, source, &got, &p)?;
    }
    Ok(())
}

/// The `--library` run: every case's rows, then exit status by wrong results.
pub fn run(args: &Args) -> Result<usize, BoxError> {
    let gpu = Gpu::new(0)?;
    gpu.set_programmatic_launch(!args.no_programmatic);
    println!("device: {}", gpu.name());
    std::fs::create_dir_all(&args.out)?;
    let mtx_dir = args.out.join("mtx");
    let gunrock_dir = args.out.join("gunrock");
    if args.gunrock_bin.is_some() {
        std::fs::create_dir_all(&mtx_dir)?;
        std::fs::create_dir_all(&gunrock_dir)?;
    }
    let csv_path = args.out.join("library.csv");
    let mut csv = std::fs::File::create(&csv_path)?;
    writeln!(csv, "{HEADER}")?;
    let auto_path = args.out.join("library_auto.csv");
    let mut auto_csv = std::fs::File::create(&auto_path)?;
    writeln!(
        auto_csv,
        "graph,algorithm,auto_ran,auto_ms,best_strategy,best_ms,best_over_auto"
    )?;
    println!(
        "{:<16} {:>9} {:>10} {:<10} {:<13} {:<13} {:>10} {:>6} {:>8} {:>4} {:<6} {:>10} {:>7} note",
        "graph",
        "vertices",
        "edges",
        "algorithm",
        "strategy",
        "ran",
        "ms",
        "iters",
        "us/iter",
        "pull",
        "check",
        "gunrock_ms",
        "g/ours"
    );
    let mut wrong = 0;
    for case in cases::cases(args) {
        let m = (case.build)()?;
        let g = Graph::from_pattern(&m, args.max_weight, args.seed)?;
        drop(m);
        let s = g.symmetric();
        drop(g);
        let n = s.vertices();
        let source = s.max_degree_vertex().ok_or("a graph with no vertices")?;
        let ds = gpu.upload_graph(&s)?;
        // Gunrock on the same graph and source, where it is small enough to write.
        let mtx: Option<PathBuf> = match &args.gunrock_bin {
            Some(_) if s.edges() <= args.gunrock_max_edges => {
                let path = mtx_dir.join(format!("{}.mtx", case.name));
                write_mtx(&s, &path)?;
                Some(path)
            }
            _ => None,
        };
        let gunrock_for = |app: &str| -> Option<(Option<f64>, String)> {
            match (&args.gunrock_bin, &mtx) {
                (Some(bin), Some(mtx)) => Some(gunrock(bin, app, mtx, source, &gunrock_dir)),
                (Some(_), None) => Some((None, "graph over --gunrock-max-edges".into())),
                _ => None,
            }
        };
        let g_bfs = gunrock_for("bfs");
        let g_sssp = gunrock_for("sssp");
        let g_pr = gunrock_for("pr");
        let mut rows = Vec::new();
        let want = bfs_levels(&s, source);
        let row = |algorithm, asked, r: (f64, GraphStats, Result<(), String>), gunrock| LibRow {
            graph: case.name.clone(),
            vertices: n,
            edges: s.edges(),
            algorithm,
            asked,
            ran: r.1.strategy,
            median_ms: r.0,
            iterations: r.1.iterations,
            pull_levels: r.1.pull_levels,
            ok: r.2,
            gunrock,
        };
        // `--algorithms` picks the sections below (default: all).
        let wants =
            |name: &str| args.algorithms.is_empty() || args.algorithms.iter().any(|a| a == name);
        // BFS, push only and direction-optimizing, in every loop it has.
        for (direction, strategies) in [
            (
                None,
                &[
                    Strategy::Auto,
                    Strategy::Host,
                    Strategy::DeviceFlags,
                    Strategy::DeviceQueue,
                ][..],
            ),
            (
                Some(Switch::BEAMER),
                &[Strategy::Auto, Strategy::Host, Strategy::DeviceQueue][..],
            ),
        ] {
            for &strategy in strategies.iter().filter(|_| wants("bfs")) {
                let options = BfsOptions {
                    strategy,
                    direction,
                    ..BfsOptions::default()
                };
                let r = time_calls(
                    &gpu,
                    args.reps,
                    || {
                        let run = bfs(&gpu, &ds, source, &options)?;
                        Ok((run.stats.clone(), run))
                    },
                    |run| check_levels(&gpu, &s, source, &want, &run.levels, run.parents.as_ref()),
                )?;
                let name = if direction.is_some() { "bfs-do" } else { "bfs" };
                rows.push(row(name, strategy, r, g_bfs.clone()));
            }
        }
        if wants("sssp") {
            // SSSP (near-far, the default method) on the weights.
            let dist_want = dijkstra(&s, source);
            for strategy in [Strategy::Auto, Strategy::DeviceFlags, Strategy::Host] {
                let options = SsspOptions {
                    strategy,
                    ..SsspOptions::default()
                };
                let r = time_calls(
                    &gpu,
                    args.reps,
                    || {
                        let run = loops::graph::sssp(&gpu, &ds, source, &options)?;
                        Ok((run.stats.clone(), run))
                    },
                    |run| {
                        let got = gpu.download(&run.dist).map_err(|e| e.to_string())?;
                        compare("dist", &dist_want, &got)
                    },
                )?;
                rows.push(row("sssp", strategy, r, g_sssp.clone()));
            }
        }
        // PageRank, f32, a fixed count of iterations: the module drivers (device loop and host
        // loop) on a state made once.
        let iterations = args.pagerank_iterations;
        let pr_want = if wants("pagerank") {
            pagerank_ref(&s, 0.85, iterations as usize)
        } else {
            Vec::new()
        };
        let mut state = pagerank::PageRank::<f32>::new(&gpu, &s)?;
        let pr_stats = |iterations| GraphStats {
            algorithm: "pagerank",
            schedule: "auto".to_string(),
            strategy: Strategy::Host,
            iterations,
            frontier_vertices: 0,
            max_frontier: 0,
            advances: 0,
            pull_levels: 0,
            last_change: None,
            time: std::time::Duration::ZERO,
        };
        // On graphs of up to 10^5 vertices also 200 iterations: the per-iteration cost without
        // the run's fixed costs.
        let long = [
            (Strategy::Auto, 200u32),
            (Strategy::DeviceQueue, 200u32),
            (Strategy::Host, 200),
        ];
        let runs = [
            (Strategy::Auto, iterations),
            (Strategy::DeviceQueue, iterations),
            (Strategy::Host, iterations),
        ];
        let runs = runs
            .iter()
            .chain(if n <= 100_000 { &long[..] } else { &[] })
            .copied();
        for (strategy, iterations) in runs.filter(|_| wants("pagerank")) {
            let pr_want = if iterations == args.pagerank_iterations {
                pr_want.clone()
            } else {
                pagerank_ref(&s, 0.85, iterations as usize)
            };
            let ranks_after_warmup = std::cell::RefCell::new(Vec::new());
            let r = time_calls(
                &gpu,
                args.reps,
                || {
                    let ran =
                        pagerank::run(strategy, "auto", &gpu, &mut state, 0.85, iterations, None)?;
                    let ran_in = ran.strategy;
                    if ranks_after_warmup.borrow().is_empty() {
                        *ranks_after_warmup.borrow_mut() = gpu.download(state.ranks())?;
                    }
                    let mut stats = pr_stats(ran.iterations);
                    stats.strategy = ran_in;
                    Ok((stats, ()))
                },
                |()| {
                    let got = ranks_after_warmup.borrow();
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
            let name = if iterations == args.pagerank_iterations {
                "pagerank"
            } else {
                "pagerank-200"
            };
            rows.push(row(name, strategy, r, g_pr.clone()));
        }
        if wants("cc") {
            // Components, in both their loops and `auto`: the module drivers on a state made once
            // (the device loop's replay is kept with it, as a caller who runs it again keeps it).
            let cc_want = components(&s);
            let mut cc_state = cc::Components::new(&gpu, n)?;
            let mut labels = gpu.zeros::<u32>(n)?;
            for strategy in [Strategy::Auto, Strategy::DeviceQueue, Strategy::Host] {
                let labels_cell = std::cell::RefCell::new(Vec::new());
                let r = time_calls(
                    &gpu,
                    args.reps,
                    || {
                        let (ran_in, iterations) =
                            cc::run(strategy, "auto", &gpu, &mut cc_state, &ds, &mut labels)?;
                        if labels_cell.borrow().is_empty() {
                            *labels_cell.borrow_mut() = gpu.download(&labels)?;
                        }
                        let mut stats = pr_stats(iterations);
                        stats.algorithm = "components";
                        stats.strategy = ran_in;
                        Ok((stats, ()))
                    },
                    |()| compare("labels", &cc_want, &labels_cell.borrow()),
                )?;
                rows.push(row("components", strategy, r, None));
            }
        }
        // k-core, in both its loops and `auto`: the module drivers on a state made once (the
        // simple view is made on the host).
        if n <= args.kcore_max_vertices && wants("kcore") {
            let core_want = loops::graph::reference::core_numbers(&s);
            let mut kc = kcore::KCore::new(&gpu, &s)?;
            for strategy in [Strategy::Auto, Strategy::DeviceQueue, Strategy::Host] {
                let cores_cell = std::cell::RefCell::new(Vec::new());
                let r = time_calls(
                    &gpu,
                    args.reps,
                    || {
                        let (ran_in, iterations, _) = kcore::run(strategy, "auto", &gpu, &mut kc)?;
                        if cores_cell.borrow().is_empty() {
                            *cores_cell.borrow_mut() = gpu.download(kc.cores())?;
                        }
                        let mut stats = pr_stats(iterations);
                        stats.algorithm = "k-core";
                        stats.strategy = ran_in;
                        Ok((stats, ()))
                    },
                    |()| compare("cores", &core_want, &cores_cell.borrow()),
                )?;
                rows.push(row("k-core", strategy, r, None));
            }
        }
        for r in &rows {
            wrong += r.ok.is_err() as usize;
            print_row(r, &mut csv)?;
        }
        // The per-class summary: DO-BFS against the best plain BFS and push-only BFS; `auto`
        // against the best fixed loop of each algorithm.
        summary(&rows);
        auto_summary(&rows, &mut auto_csv)?;
    }
    println!("wrote {} and {}", csv_path.display(), auto_path.display());
    Ok(wrong)
}

/// `auto` against the best fixed loop of each algorithm of one graph (the same run): a line each
/// and a row of `library_auto.csv` (`best_over_auto`: 1 where auto picked the best, the target
/// is >= 0.9).
fn auto_summary(rows: &[LibRow], csv: &mut impl Write) -> std::io::Result<()> {
    let mut algorithms: Vec<&str> = rows.iter().map(|r| r.algorithm).collect();
    algorithms.dedup();
    for algorithm in algorithms {
        let of = |r: &&LibRow| r.algorithm == algorithm;
        let Some(auto) = rows.iter().filter(of).find(|r| r.asked == Strategy::Auto) else {
            continue;
        };
        let Some(best) = rows
            .iter()
            .filter(of)
            .filter(|r| r.asked != Strategy::Auto)
            .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms))
        else {
            continue;
        };
        let ratio = best.median_ms / auto.median_ms;
        println!(
            "  {}: {algorithm} auto ({}) {:.3} ms, best fixed ({}) {:.3} ms: best/auto {:.2}",
            auto.graph,
            auto.ran.name(),
            auto.median_ms,
            best.asked.name(),
            best.median_ms,
            ratio
        );
        writeln!(
            csv,
            "{},{algorithm},{},{:.4},{},{:.4},{:.3}",
            auto.graph,
            auto.ran.name(),
            auto.median_ms,
            best.asked.name(),
            best.median_ms,
            ratio
        )?;
    }
    Ok(())
}

/// DO-BFS (`auto`) against the best push-only BFS of the same graph, and against push only in the
/// same device loop (`bfs-do` with `Switch::PUSH_ONLY` is not run: the push-only device queue
/// is the comparison).
fn summary(rows: &[LibRow]) {
    let best_bfs = rows
        .iter()
        .filter(|r| r.algorithm == "bfs")
        .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
    let do_auto = rows
        .iter()
        .find(|r| r.algorithm == "bfs-do" && r.asked == Strategy::Auto);
    let do_host = rows
        .iter()
        .find(|r| r.algorithm == "bfs-do" && r.asked == Strategy::Host);
    if let (Some(best), Some(d), Some(h)) = (best_bfs, do_auto, do_host) {
        println!(
            "  {}: bfs-do auto ({}) {:.3} ms, best push-only bfs ({}) {:.3} ms: {:.2}x; bfs-do host {:.3} ms",
            d.graph,
            d.ran.name(),
            d.median_ms,
            best.ran.name(),
            best.median_ms,
            best.median_ms / d.median_ms,
            h.median_ms
        );
    }
}
