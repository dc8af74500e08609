//! The rows of the benchmark: what each holds, the printed table and `graphs.csv`.

use std::io::Write;
use std::path::Path;

use crate::bench::{self, world::WorldTag};
use crate::gunrock::{gunrock_published, Gunrock};
use crate::Bench;

/// The frontier loop a row ran in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    Host,
    Device,
    /// The device loop with a step that appends its next frontier itself
    /// (`LoopOn::DeviceQueue`): BFS only.
    QueueOnDevice,
}

impl LoopKind {
    pub fn name(self) -> &'static str {
        match self {
            LoopKind::Host => "host",
            LoopKind::Device => "device",
            LoopKind::QueueOnDevice => "device-queue",
        }
    }
}

/// One kernel's run on one graph: a line of the table and of the CSV.
pub struct Row {
    pub graph: String,
    pub vertices: usize,
    pub edges: usize,
    pub algorithm: &'static str,
    pub kernel: String,
    /// The frontier loop it ran in.
    pub loop_kind: LoopKind,
    pub median_ms: f64,
    pub mteps: f64,
    pub iterations: u32,
    /// NaN where no naive kernel ran (the world set).
    pub speedup_vs_naive: f64,
    pub ok: bool,
    pub tag: Option<WorldTag>,
    /// The edges relaxed (out-edges of every frontier processed, counted on the device in one
    /// more run): SSSP rows only.
    pub relaxed_edges: Option<u64>,
    /// Direction-optimizing BFS: the levels that pulled.
    pub pull_levels: Option<u32>,
    /// A published Gunrock number for this algorithm on a graph of this class, with its source
    /// (`push_row` looks it up where the row has none and is not of the world set).
    pub gunrock: Option<Gunrock>,
}

/// The table's header.
pub fn print_header() {
    println!(
        "{:<24} {:>9} {:>10} {:<5} {:<14} {:<12} {:>10} {:>9} {:>6} {:>8} {:>8}  check",
        "graph",
        "vertices",
        "edges",
        "algo",
        "kernel",
        "loop",
        "median ms",
        "MTEPS",
        "iters",
        "us/level",
        "vs naive"
    );
}

impl Bench<'_> {
    /// Prints a row, counts it if wrong, and writes the CSV anew with it (so that a run cut off
    /// keeps its rows).
    pub fn push_row(&mut self, mut row: Row, check: &Result<(), String>) -> std::io::Result<()> {
        if row.gunrock.is_none() && row.tag.is_none() {
            row.gunrock = gunrock_published(&row.graph, row.algorithm);
        }
        print_row(&row, check);
        self.wrong += check.is_err() as usize;
        self.rows.push(row);
        write_csv(&self.csv, &self.rows)
    }
}

/// Microseconds per level: the traversal's median time over the levels it ran.
fn us_per_level(row: &Row) -> f64 {
    row.median_ms * 1e3 / row.iterations.max(1) as f64
}

fn print_row(row: &Row, check: &Result<(), String>) {
    let mut extra = String::new();
    if let Some(pulls) = row.pull_levels {
        extra.push_str(&format!(", {pulls} pulled"));
    }
    if let Some(g) = row.gunrock {
        extra.push_str(&format!(
            "  | Gunrock {} {}: {} on {}, {}",
            g.version,
            g.primitive_name(),
            g.value_text(),
            g.graph,
            g.gpu
        ));
    }
    println!(
        "{:<24} {:>9} {:>10} {:<5} {:<14} {:<12} {:>10.3} {:>9.1} {:>6} {:>8.2} {:>8}  {}{}{extra}",
        row.graph,
        row.vertices,
        row.edges,
        row.algorithm,
        row.kernel,
        row.loop_kind.name(),
        row.median_ms,
        row.mteps,
        row.iterations,
        us_per_level(row),
        // Rows with no naive kernel beside them (the algorithms, the world set) print a dash.
        if row.speedup_vs_naive.is_finite() {
            format!("{:.2}x", row.speedup_vs_naive)
        } else {
            "-".to_string()
        },
        match check {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("WRONG: {e}"),
        },
        row.relaxed_edges
            .map_or(String::new(), |e| format!("  {e} edges relaxed"))
    );
}

fn write_csv(path: &Path, rows: &[Row]) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        f,
        "graph,vertices,edges,algorithm,kernel,loop,median_ms,mteps,iterations,us_per_level,speedup_vs_naive,status,class,half,relaxed_edges,pull_levels,gunrock_value,gunrock_unit,gunrock_source"
    )?;
    for r in rows {
        let versus = if r.speedup_vs_naive.is_nan() {
            String::new()
        } else {
            format!("{:.4}", r.speedup_vs_naive)
        };
        writeln!(
            f,
            "{},{},{},{},{},{},{:.6},{:.3},{},{:.3},{},{},{},{},{},{},{},{},{}",
            bench::csv::field(&r.graph),
            r.vertices,
            r.edges,
            r.algorithm,
            r.kernel,
            r.loop_kind.name(),
            r.median_ms,
            r.mteps,
            r.iterations,
            us_per_level(r),
            versus,
            if r.ok { "ok" } else { "wrong" },
            r.tag.as_ref().map_or("", |t| t.class.as_str()),
            r.tag.as_ref().map_or("", |t| t.half()),
            r.relaxed_edges.map_or(String::new(), |e| e.to_string()),
            r.pull_levels.map_or(String::new(), |p| p.to_string()),
            r.gunrock.map_or(String::new(), |g| g.value.to_string()),
            r.gunrock.map_or("", |g| g.unit.name()),
            bench::csv::field(&r.gunrock.map_or(String::new(), |g| g.describe())),
        )?;
    }
    f.flush()
}
