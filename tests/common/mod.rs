//! Shared by the GPU tests: the matrices every kernel runs on, fresh random inputs, and the device.
#![allow(dead_code)]

use loops::prelude::*;
use sprs::CsMat;

pub mod data;

/// Whether the real-matrix tests run on the whole corpus (`$LOOPS_DATA_DIR`, else
/// `../shared/data/matrices`), not only the repository's small matrices (see [`data`]).
pub fn has_corpus() -> bool {
    data::real_matrix_dir().1
}

/// Every `.mtx` file of the real-matrix folder ([`data::real_matrix_dir`]: the corpus, else the
/// repository's `data/matrices` after one `skipped` line), by name, symmetric forms expanded.
pub fn real_matrices<T: Float>() -> Vec<(String, CsMat<T>)> {
    let (dir, _) = data::real_matrix_dir();
    let paths = data::mtx_files(&dir);
    assert!(!paths.is_empty(), "no .mtx files in {}", dir.display());
    let all = paths
        .into_iter()
        .map(|p| {
            let m = loops::io::mtx::read_csr::<T>(&p)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_name().unwrap().to_string_lossy().into_owned(), m)
        })
        .collect();
    filtered(all)
}

/// The generated shapes the issues name: uniform, power-law, one huge row, many empty rows, no
/// nonzeros, 1x1, and sizes around the block boundaries.
pub fn generated_matrices<T: Float>(seed: u64) -> Vec<(String, CsMat<T>)> {
    use loops::io::generate as g;
    filtered(vec![
        (
            "uniform 10000x8000 x12".into(),
            g::uniform(10_000, 8_000, 12, seed),
        ),
        (
            "power-law 20000 mean 8".into(),
            g::power_law(20_000, 20_000, 8.0, 2.0, false, seed + 1),
        ),
        (
            "power-law contiguous 5000".into(),
            g::power_law(5_000, 5_000, 16.0, 2.0, true, seed + 2),
        ),
        (
            "one huge row 3000 (2^17 atoms)".into(),
            g::one_huge_row(3_000, 1 << 17, 1 << 17, seed + 3),
        ),
        (
            "many empty rows 50000".into(),
            g::with_empty_rows(50_000, 50_000, 0.9, 4, seed + 4),
        ),
        ("0 nnz 1000x1000".into(), g::empty(1_000, 1_000)),
        ("0 rows".into(), g::empty(0, 10)),
        ("1x1".into(), g::uniform(1, 1, 1, seed + 5)),
        (
            "257 rows (block + 1)".into(),
            g::uniform(257, 300, 5, seed + 6),
        ),
        ("rmat scale 12".into(), g::rmat(12, 8, seed + 7)),
        ("arrow 3000".into(), g::arrow(3_000, seed + 8)),
        ("banded 40000 x16".into(), g::banded(40_000, 16, seed + 9)),
        ("grid 100x90".into(), g::grid2d(100, 90, seed + 10)),
        ("10x0 (no columns)".into(), g::empty(10, 0)),
        (
            "rows at group/block boundaries".into(),
            boundary_rows(seed + 11),
        ),
    ])
}

/// Rows of exactly 0, 1, and one less, equal and one more than every power of two from 32 to 2048
/// atoms: the sizes where a group, a warp, a block or a merge-path segment ends.
pub fn boundary_rows<T: Float>(seed: u64) -> CsMat<T> {
    let mut lengths = vec![0usize, 1];
    for p in [32usize, 64, 128, 256, 512, 1024, 2048] {
        lengths.extend([p - 1, p, p + 1]);
    }
    let lengths: Vec<usize> = lengths
        .iter()
        .cycle()
        .take(3 * lengths.len())
        .copied()
        .collect();
    // Distinct, sorted columns (every other one), shifted per row so rows read different parts of x.
    let cols = 8192;
    let mut offsets = vec![0usize];
    let mut indices = Vec::new();
    for (r, &len) in lengths.iter().enumerate() {
        indices.extend((0..len).map(|i| i * 2 + r));
        offsets.push(indices.len());
    }
    let values: Vec<T> = loops::io::generate::random_vector(indices.len(), seed);
    CsMat::new((lengths.len(), cols), offsets, indices, values)
}

/// `LOOPS_MATRIX_FILTER=a,b` keeps the matrices whose name contains one of the parts: for slow tools
/// such as compute-sanitizer. Unset, every matrix runs.
pub fn filtered<T>(matrices: Vec<(String, CsMat<T>)>) -> Vec<(String, CsMat<T>)> {
    let Ok(filter) = std::env::var("LOOPS_MATRIX_FILTER") else {
        return matrices;
    };
    let kept: Vec<_> = matrices
        .into_iter()
        .filter(|(name, _)| filter.split(',').any(|part| name.contains(part)))
        .collect();
    assert!(
        !kept.is_empty(),
        "LOOPS_MATRIX_FILTER={filter} keeps no matrix"
    );
    kept
}

/// Whether the graph tests take their small inputs: `LOOPS_SMALL_GRAPHS=1`, which
/// `tests/sanitize.sh` sets (under compute-sanitizer a launch costs milliseconds, and a graph of
/// thousands of levels, run under every schedule and loop, takes hours). Smaller generated graphs,
/// fewer levels and sources, repeated configurations dropped; every schedule and loop strategy
/// still runs (each graph test file's docs say what its small mode keeps).
pub fn small_graphs() -> bool {
    std::env::var("LOOPS_SMALL_GRAPHS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// `full`, or `small` under [`small_graphs`].
pub fn sized<T>(full: T, small: T) -> T {
    if small_graphs() {
        small
    } else {
        full
    }
}

/// `sources`, or under [`small_graphs`] the first `small` of them: another source of the same
/// graph runs the same kernels under the same schedules and loops again (a repeated
/// configuration), and under a sanitizer each of its levels costs milliseconds a launch.
pub fn sized_sources(sources: &[u32], small: usize) -> &[u32] {
    if small_graphs() {
        &sources[..small.min(sources.len())]
    } else {
        sources
    }
}

/// A star, then a path: vertex 0 with an out-edge (weight `star_weight(leaf)`) to each of
/// `leaves` leaves, and the leaves `1..=path` chained (`path_weight(leaf)`): one vertex longer
/// than any group, then many levels of one vertex. 100,000 leaves all on the path, or under
/// [`small_graphs`] 1,500 leaves (still longer than a block) and a path of 45 (past the levels a
/// device loop launches directly, into its replays).
pub fn star_and_path(
    leaves: u32,
    star_weight: impl Fn(u32) -> u32,
    path_weight: impl Fn(u32) -> u32,
) -> (u32, Vec<(u32, u32, u32)>) {
    let (leaves, path) = if small_graphs() {
        (leaves.min(1_500), 45.min(leaves))
    } else {
        (leaves, leaves)
    };
    let mut edges: Vec<(u32, u32, u32)> = (1..=leaves).map(|u| (0, u, star_weight(u))).collect();
    edges.extend((1..path).map(|u| (u, u + 1, path_weight(u))));
    (leaves, edges)
}

/// A seed that differs on every run (printed by the tests, so a failure can be replayed with
/// `LOOPS_SEED`).
pub fn fresh_seed() -> u64 {
    if let Some(s) = std::env::var("LOOPS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return s;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// The BFS and SSSP sources of a graph test: vertex 0 and a vertex of largest out-degree (one
/// with out-edges, reaching much of a power-law graph), if that is another.
pub fn graph_sources(g: &loops::graph::Graph) -> Vec<u32> {
    let mut s = vec![0];
    if let Some(v) = g.max_degree_vertex() {
        if v != 0 {
            s.push(v);
        }
    }
    s
}

/// The device. No GPU is a failure: the GPU tests never skip.
pub fn gpu() -> Gpu {
    Gpu::new(0).unwrap_or_else(|e| panic!("the `gpu` feature's tests need a CUDA device: {e}"))
}

/// Checks counted by kernel and schedule, and the failures named by matrix: a GPU test runs every
/// check, then prints the table and fails if any check did.
#[derive(Default)]
pub struct Tally {
    rows: Vec<(String, usize, usize)>,
    failures: Vec<String>,
}

impl Tally {
    /// Records one check of `key` (kernel and schedule) on `matrix`: passed, or its report.
    pub fn record(&mut self, matrix: &str, key: &str, outcome: Result<(bool, String), String>) {
        let row = match self.rows.iter().position(|(k, _, _)| k == key) {
            Some(i) => &mut self.rows[i],
            None => {
                self.rows.push((key.to_string(), 0, 0));
                self.rows.last_mut().expect("just pushed")
            }
        };
        row.2 += 1;
        match outcome {
            Ok((true, _)) => row.1 += 1,
            Ok((false, report)) => self.failures.push(format!("{matrix} / {key}: {report}")),
            Err(e) => self.failures.push(format!("{matrix} / {key}: error: {e}")),
        }
    }

    /// Prints passed / run per key and panics with every failure, if any.
    pub fn finish(self, matrices: usize) {
        let width = self
            .rows
            .iter()
            .map(|(k, _, _)| k.len())
            .max()
            .unwrap_or(0)
            .max(17);
        println!(
            "{:<width$} passed / run  ({matrices} matrices)",
            "kernel / schedule"
        );
        for (key, passed, run) in &self.rows {
            println!("{key:<width$} {passed} / {run}");
        }
        assert!(
            self.failures.is_empty(),
            "{} failures:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}
