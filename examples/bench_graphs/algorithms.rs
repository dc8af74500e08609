//! The rows of issue 26's algorithms (`src/graph/{bfs_do,pagerank,cc,tc}.rs`), each under
//! every schedule and checked against the CPU references of `loops::graph`: the
//! direction-optimizing BFS beside the push-only BFS of the same loop (on the symmetric view,
//! MTEPS by Graph500's count: the reached undirected edges once), PageRank (f32, edges times
//! iterations per second), connected components and triangle counting.

use std::time::Instant;

use loops::graph::{Graph, LoopStats};
use loops::prelude::*;

use crate::cases::Case;
use crate::graph_app::{time_runs, Timing};
use crate::gunrock::gunrock_published;
use crate::output::{LoopKind, Row};
use crate::{Bench, BoxError};

/// PageRank's damping.
const DAMPING: f64 = 0.85;

/// What a row of one of these algorithms did, besides its timing.
struct Outcome {
    /// The work MTEPS counts: edges (per iteration for PageRank).
    work: u64,
    /// Direction-optimizing BFS: the levels that pulled.
    pull_levels: Option<u32>,
    check: Result<(), String>,
}

impl Bench<'_> {
    /// Every algorithm of issue 26 under every schedule on `g`.
    pub fn algorithms(&mut self, case: &Case, g: &Graph) -> Result<(), BoxError> {
        let wanted = |name: &str| {
            self.args.algorithms.is_empty() || self.args.algorithms.iter().any(|a| a == name)
        };
        if wanted("bfs") {
            self.bfs_rows(case, g)?;
        }
        if wanted("pagerank") {
            self.pagerank_rows(case, g)?;
        }
        if wanted("cc") {
            self.components_rows(case, g)?;
        }
        if wanted("tc") {
            self.triangles_rows(case, g)?;
        }
        Ok(())
    }

    /// Records one run.
    fn record(
        &mut self,
        case: &Case,
        g: &Graph,
        (algorithm, kernel): (&'static str, String),
        timing: &Timing,
        outcome: Outcome,
    ) -> Result<(), BoxError> {
        let row = Row {
            graph: case.name.clone(),
            vertices: g.vertices(),
            edges: g.edges(),
            algorithm,
            kernel,
            median_ms: timing.median_ms,
            mteps: outcome.work as f64 / (timing.median_ms * 1e3),
            iterations: timing.stats.iterations,
            speedup_vs_naive: f64::NAN,
            ok: outcome.check.is_ok(),
            tag: case.tag.clone(),
            loop_kind: LoopKind::Host,
            relaxed_edges: None,
            pull_levels: outcome.pull_levels,
            gunrock: gunrock_published(&case.name, algorithm),
        };
        self.push_row(row, &outcome.check)?;
        Ok(())
    }

    /// `bfs-push` and `bfs-do` under every push schedule (`bfs-do` with the pull steps of `--pull`, by default `thread`), on the
    /// symmetric view, from its vertex of largest degree.
    fn bfs_rows(&mut self, case: &Case, g: &Graph) -> Result<(), BoxError> {
        use loops::graph::bfs_do::{push, run, DoBfs, Switch, FAST_PULL};
        use loops::graph::Strategy;
        let gpu = self.gpu;
        let t = Instant::now();
        let s = g.symmetric();
        let source = s.max_degree_vertex().ok_or("a graph with no vertices")?;
        let want = loops::graph::bfs_levels(&s, source);
        let edges500 = loops::graph::undirected_edges_reached(&s, &want);
        eprintln!(
            "{}: symmetrised and BFS reference in {:.2} s",
            case.name,
            t.elapsed().as_secs_f64()
        );
        let ds = gpu.upload_graph(&s)?;
        let mut state = DoBfs::new(gpu, s.vertices())?;
        let mut levels = gpu.zeros::<u32>(s.vertices())?;
        let mut parents = gpu.zeros::<u32>(s.vertices())?;
        for &schedule in push::SCHEDULES {
            let pulls: Vec<&str> = if self.args.pull.is_empty() {
                vec![FAST_PULL]
            } else {
                self.args.pull.iter().map(String::as_str).collect()
            };
            let mut runs = vec![(
                "bfs-push",
                Switch::PUSH_ONLY,
                schedule,
                schedule.to_string(),
            )];
            for &pull in &pulls {
                runs.push(("bfs-do", Switch::BEAMER, pull, format!("{schedule}+{pull}")));
            }
            for (algorithm, switch, pull, kernel) in runs {
                let timing = time_runs(self.args.reps, gpu, || {
                    run(
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
                })?;
                if self.args.bfs_trace && algorithm == "bfs-do" {
                    let levels: Vec<String> = state
                        .trace
                        .iter()
                        .map(|(d, f, us)| format!("{d:?} {f} {us:.0}us"))
                        .collect();
                    eprintln!("  {kernel} levels: {}", levels.join(", "));
                }
                let got = gpu.download(&levels)?;
                let got_parents = gpu.download(&parents)?;
                // The levels against the reference computed once, then the tree.
                let check = loops::graph::compare(&kernel, &want, &got)
                    .and_then(|()| loops::graph::check_bfs_tree(&s, source, &got, &got_parents));
                let outcome = Outcome {
                    work: edges500,
                    pull_levels: Some(state.pull_levels() as u32),
                    check,
                };
                self.record(case, &s, (algorithm, kernel), &timing, outcome)?;
            }
        }
        Ok(())
    }

    /// PageRank in f32, `--pagerank-iterations` of them, against the f64 reference.
    fn pagerank_rows(&mut self, case: &Case, g: &Graph) -> Result<(), BoxError> {
        use loops::graph::pagerank::{run, step, PageRank};
        use loops::graph::Strategy;
        let gpu = self.gpu;
        let iterations = self.args.pagerank_iterations;
        let want = loops::graph::reference::pagerank(g, DAMPING, iterations as usize);
        let mut pr = PageRank::<f32>::new(gpu, g)?;
        // A few roundoffs of f32 per iteration, more where a vertex sums many in-edges.
        let tolerance = f32::UNIT_ROUNDOFF * 64.0 * iterations.max(1) as f64 * 30.0;
        for schedule in step::SCHEDULES {
            let timing = time_runs(self.args.reps, gpu, || {
                run(
                    Strategy::Host,
                    schedule,
                    gpu,
                    &mut pr,
                    DAMPING,
                    iterations,
                    None,
                )
                .map(|stats| LoopStats {
                    iterations: stats.iterations,
                    ..LoopStats::default()
                })
            })?;
            let got = gpu.download(pr.ranks())?;
            let distance: f64 = want
                .iter()
                .zip(&got)
                .map(|(w, &r)| (w - r as f64).abs())
                .sum();
            let check = if distance <= tolerance {
                Ok(())
            } else {
                Err(format!(
                    "L1 distance {distance:e} to the reference, tolerance {tolerance:e}"
                ))
            };
            let outcome = Outcome {
                work: g.edges() as u64 * iterations as u64,
                pull_levels: None,
                check,
            };
            self.record(
                case,
                g,
                ("pagerank", schedule.to_string()),
                &timing,
                outcome,
            )?;
        }
        Ok(())
    }

    /// Connected components (union-find) on the directed graph.
    fn components_rows(&mut self, case: &Case, g: &Graph) -> Result<(), BoxError> {
        use loops::graph::cc::{hook, run, Components};
        let gpu = self.gpu;
        let want = loops::graph::reference::components(g);
        let dg = gpu.upload_graph(g)?;
        let mut state = Components::new(gpu, g.vertices())?;
        let mut labels = gpu.zeros::<u32>(g.vertices())?;
        for schedule in hook::SCHEDULES {
            let timing = time_runs(self.args.reps, gpu, || {
                let host = loops::graph::Strategy::Host;
                run(host, schedule, gpu, &mut state, &dg, &mut labels).map(|(_, iterations)| {
                    LoopStats {
                        iterations,
                        ..LoopStats::default()
                    }
                })
            })?;
            let outcome = Outcome {
                work: g.edges() as u64,
                pull_levels: None,
                check: loops::graph::compare(schedule, &want, &gpu.download(&labels)?),
            };
            self.record(case, g, ("cc", schedule.to_string()), &timing, outcome)?;
        }
        Ok(())
    }

    /// Triangle counting on the oriented simple view.
    fn triangles_rows(&mut self, case: &Case, g: &Graph) -> Result<(), BoxError> {
        use loops::graph::tc::{count, run, Triangles};
        let gpu = self.gpu;
        let t = Instant::now();
        let want = loops::graph::reference::triangles(g);
        eprintln!(
            "{}: {want} triangles on the CPU in {:.2} s",
            case.name,
            t.elapsed().as_secs_f64()
        );
        let mut tc = Triangles::new(gpu, g)?;
        for schedule in count::SCHEDULES {
            let mut got = 0;
            let timing = time_runs(self.args.reps, gpu, || {
                got = run(schedule, gpu, &mut tc)?;
                Ok(LoopStats {
                    iterations: 1,
                    ..LoopStats::default()
                })
            })?;
            let check = if got == want {
                Ok(())
            } else {
                Err(format!("{got} triangles, expected {want}"))
            };
            let outcome = Outcome {
                work: tc.edges() as u64,
                pull_levels: None,
                check,
            };
            self.record(case, g, ("tc", schedule.to_string()), &timing, outcome)?;
        }
        Ok(())
    }
}
