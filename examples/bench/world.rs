//! The world set's summary (issue 24): how close `auto` comes to the best fixed schedule, per
//! class of matrix and per half (the tuning half, even seeds, and the held-out half, odd seeds),
//! and how it fares against cuSPARSE ALG1. Shared by `bench_spmv --world` (one row per matrix) and
//! `bench_graphs --world` (one row per graph and algorithm).

use std::fmt::Write as _;

use super::{geomean, MatrixResult, AUTO};

/// `auto` is said to fall behind ALG1 below this share of ALG1's speed.
pub const BEHIND_ALG1: f64 = 0.95;

/// Where a matrix of the world set belongs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldTag {
    /// The generator class (`loops::io::generate::WORLD_CLASSES`).
    pub class: String,
    /// An odd seed: judged on, not tuned on.
    pub held_out: bool,
}

impl WorldTag {
    /// `"tuning"` or `"held_out"`, as the CSV and the summary write it.
    pub fn half(&self) -> &'static str {
        if self.held_out {
            "held_out"
        } else {
            "tuning"
        }
    }
}

/// One case of the world set as the summary sees it: a matrix, or a graph and an algorithm.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldRow {
    pub name: String,
    pub tag: WorldTag,
    pub auto_ms: Option<f64>,
    /// The fastest fixed schedule (never `auto`, cuSPARSE or the copy): (name, ms).
    pub best: Option<(String, f64)>,
    /// cuSPARSE ALG1, where there is one (SpMV).
    pub alg1_ms: Option<f64>,
}

impl WorldRow {
    /// From an SpMV result of the world set (`None` for a matrix of another set).
    pub fn from_spmv(r: &MatrixResult) -> Option<WorldRow> {
        Some(WorldRow {
            name: r.name.clone(),
            tag: r.world.clone()?,
            auto_ms: r.ms(AUTO),
            best: r.best_schedule().map(|(k, t)| (k.to_string(), t)),
            alg1_ms: r.alg1_ms(),
        })
    }

    /// From the timed kernels of one case (a graph and an algorithm): `auto`'s time, and the best of
    /// the others that are not in `baselines` (kernels that are not schedules, such as a naive
    /// kernel written by hand). Failed kernels are left out by the caller.
    pub fn from_times(
        name: &str,
        tag: WorldTag,
        times: &[(&str, f64)],
        baselines: &[&str],
    ) -> WorldRow {
        WorldRow {
            name: name.to_string(),
            tag,
            auto_ms: times.iter().find(|t| t.0 == AUTO).map(|t| t.1),
            best: times
                .iter()
                .filter(|t| t.0 != AUTO && !baselines.contains(&t.0))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|t| (t.0.to_string(), t.1)),
            alg1_ms: None,
        }
    }

    /// best ms / auto ms: 1.0 is a perfect choice.
    pub fn auto_vs_best(&self) -> Option<f64> {
        Some(self.best.as_ref()?.1 / self.auto_ms?)
    }

    /// ALG1 ms / auto ms: above 1, auto is faster.
    pub fn auto_vs_alg1(&self) -> Option<f64> {
        Some(self.alg1_ms? / self.auto_ms?)
    }

    /// Some schedule beats ALG1, yet auto runs below [`BEHIND_ALG1`] of ALG1's speed.
    pub fn auto_misses_a_win(&self) -> bool {
        match (self.best.as_ref(), self.alg1_ms, self.auto_vs_alg1()) {
            (Some((_, best)), Some(alg1), Some(auto)) => *best < alg1 && auto < BEHIND_ALG1,
            _ => false,
        }
    }
}

/// The figures of one group of rows (a class and a half, or all classes and a half).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupFigures {
    /// Rows with both auto and a best schedule.
    pub cases: usize,
    pub geomean_vs_best: Option<f64>,
    /// The worst auto/best and its row's name.
    pub min_vs_best: Option<(f64, String)>,
    pub geomean_vs_alg1: Option<f64>,
    /// Rows where some schedule beats ALG1 but auto is below 0.95x ALG1.
    pub missed_wins: usize,
}

/// The figures of `rows` (any mix; the caller picks the group).
pub fn figures<'a>(rows: impl IntoIterator<Item = &'a WorldRow>) -> GroupFigures {
    let rows: Vec<&WorldRow> = rows.into_iter().collect();
    let vs_best: Vec<(f64, &str)> = rows
        .iter()
        .filter_map(|r| r.auto_vs_best().map(|v| (v, r.name.as_str())))
        .collect();
    GroupFigures {
        cases: vs_best.len(),
        geomean_vs_best: geomean(vs_best.iter().map(|v| v.0)),
        min_vs_best: vs_best
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|&(v, n)| (v, n.to_string())),
        geomean_vs_alg1: geomean(rows.iter().filter_map(|r| r.auto_vs_alg1())),
        missed_wins: rows.iter().filter(|r| r.auto_misses_a_win()).count(),
    }
}

/// The classes of `rows` in their first-seen order.
fn classes(rows: &[WorldRow]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in rows {
        if !out.contains(&r.tag.class.as_str()) {
            out.push(&r.tag.class);
        }
    }
    out
}

fn ratio_text(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"))
}

/// The table: a line per class and half, then per half over all classes. `what` names the cases
/// (`matrices`, `graph runs`); the ALG1 columns only where any row has ALG1.
pub fn summary(rows: &[WorldRow], what: &str) -> String {
    let mut s = String::new();
    if rows.is_empty() {
        return s;
    }
    let with_alg1 = rows.iter().any(|r| r.alg1_ms.is_some());
    let _ = writeln!(
        s,
        "world set, auto against the best fixed schedule of each of the {what} (best ms / auto ms, 1 = perfect){}:",
        if with_alg1 {
            "; against cuSPARSE ALG1 (ALG1 ms / auto ms); missed: some schedule beats ALG1, auto is below 0.95x ALG1"
        } else {
            ""
        }
    );
    let mut head = format!(
        "  {:<16} {:<9} {:>5} {:>9} {:>9}  {:<28}",
        "class", "half", "cases", "geo/best", "min/best", "worst case"
    );
    if with_alg1 {
        let _ = write!(head, " {:>9} {:>7}", "geo/alg1", "missed");
    }
    let _ = writeln!(s, "{}", head.trim_end());
    let mut line = |class: &str, half: &str, f: GroupFigures| {
        let (min, worst) = f
            .min_vs_best
            .map_or(("-".to_string(), "-".to_string()), |(v, n)| {
                (format!("{v:.3}"), n)
            });
        let mut l = format!(
            "  {:<16} {:<9} {:>5} {:>9} {:>9}  {:<28}",
            class,
            half,
            f.cases,
            ratio_text(f.geomean_vs_best),
            min,
            worst
        );
        if with_alg1 {
            let _ = write!(
                l,
                " {:>9} {:>7}",
                ratio_text(f.geomean_vs_alg1),
                f.missed_wins
            );
        }
        let _ = writeln!(s, "{}", l.trim_end());
    };
    let halves = [("tuning", false), ("held_out", true)];
    for class in classes(rows) {
        for (half, held_out) in halves {
            let group = rows
                .iter()
                .filter(|r| r.tag.class == class && r.tag.held_out == held_out);
            line(class, half, figures(group));
        }
    }
    for (half, held_out) in halves {
        line(
            "all",
            half,
            figures(rows.iter().filter(|r| r.tag.held_out == held_out)),
        );
    }
    s
}
