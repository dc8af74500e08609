//! The CSV of a run: one line per (matrix, kernel).

use std::io::{self, Write};

use super::MatrixResult;

/// The header line's fields.
pub const HEADER: &[&str] = &[
    "matrix",
    "rows",
    "cols",
    "nnz",
    "precision",
    "kernel",
    "median_ms",
    "effective_gb_s",
    "speedup_vs_cusparse_alg1",
    "pct_of_copy_bandwidth",
    "model_bytes",
    "timing",
    "samples",
    "per_launch_median_ms",
    "status",
    "class",
    "half",
    "traffic_dram_bytes",
    "traffic_l2_bytes",
    "pct_of_copy_bandwidth_by_traffic",
    "l2_gb_s_by_traffic",
];

/// A field, quoted when it holds a comma, a quote or a line break (RFC 4180).
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(String::new, |v| format!("{v:.decimals$}"))
}

/// Writes the header and one line per kernel of every matrix. Columns a kernel has no value for (not
/// timed, or no cuSPARSE ALG1 to compare with) are empty; so are `class` and `half` outside the
/// world set.
pub fn write(mut w: impl Write, results: &[MatrixResult]) -> io::Result<()> {
    writeln!(w, "{}", HEADER.join(","))?;
    for r in results {
        for m in &r.kernels {
            let ms = m.median_ms;
            let line = [
                field(&r.name),
                r.rows.to_string(),
                r.cols.to_string(),
                r.nnz.to_string(),
                r.precision.to_string(),
                field(&m.kernel),
                opt(ms, 6),
                opt(ms.map(|t| r.gb_per_s(t)), 1),
                opt(ms.and_then(|t| r.speedup(t)), 4),
                opt(ms.and_then(|t| r.pct_of_copy(t)), 1),
                r.bytes.to_string(),
                m.timing.label(),
                m.timing.samples().to_string(),
                opt(m.per_launch_ms, 6),
                field(m.status()),
                r.world
                    .as_ref()
                    .map_or_else(String::new, |t| field(&t.class)),
                r.world.as_ref().map_or("", |t| t.half()).to_string(),
                r.traffic
                    .map_or_else(String::new, |t| t.dram_bytes().to_string()),
                r.traffic
                    .map_or_else(String::new, |t| t.l2_bytes_served().to_string()),
                opt(ms.and_then(|t| r.pct_of_copy_by_traffic(t)), 1),
                opt(ms.and_then(|t| r.l2_gb_per_s(t)), 1),
            ];
            writeln!(w, "{}", line.join(","))?;
        }
    }
    w.flush()
}

/// Splits one CSV line into fields (quoted fields as [`field`] writes them). For the tests, and for
/// whoever wants to read a run back without a CSV crate.
pub fn split_line(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if cur.is_empty() => quoted = true,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}
