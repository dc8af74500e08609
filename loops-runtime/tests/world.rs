//! The world generators (issue 24): CSR invariants, each class's degree statistics within the
//! ranges its documentation promises, determinism per seed, and the world set's halves and size.

use loops_runtime::generate::{self, world_set, WorldSpec, WORLD_CLASSES};

/// Row-length statistics of a matrix, after checking the CSR invariants (offsets from 0 to nnz,
/// columns sorted, distinct and in range).
#[derive(Debug)]
struct Stats {
    mean: f64,
    longest: usize,
    empty_fraction: f64,
    /// Rows of at most 6 entries, as a fraction.
    short_fraction: f64,
    /// The most rows that share one column, as a fraction of the rows.
    densest_column: f64,
    /// Nonzeros with `col < row`, as a fraction.
    lower: f64,
    /// Nonzeros within `band` of the diagonal, as a fraction.
    near: f64,
}

fn stats(m: &sprs::CsMat<f64>, band: usize) -> Stats {
    assert!(m.is_csr());
    let ip = m.indptr();
    let ip = ip.as_slice().expect("a proper indptr");
    assert_eq!(ip.len(), m.rows() + 1);
    assert_eq!((ip[0], ip[m.rows()]), (0, m.nnz()));
    let (mut longest, mut empty, mut short, mut lower, mut near) = (0, 0, 0, 0, 0);
    let mut per_column = vec![0usize; m.cols()];
    for r in 0..m.rows() {
        let cols = &m.indices()[ip[r]..ip[r + 1]];
        assert!(cols.windows(2).all(|w| w[0] < w[1]), "row {r} not sorted");
        assert!(cols.iter().all(|&c| c < m.cols()), "row {r} out of range");
        longest = longest.max(cols.len());
        empty += cols.is_empty() as usize;
        short += (cols.len() <= 6) as usize;
        for &c in cols {
            per_column[c] += 1;
            lower += (c < r) as usize;
            near += (c.abs_diff(r) <= band) as usize;
        }
    }
    let rows = m.rows() as f64;
    let nnz = m.nnz().max(1) as f64;
    Stats {
        mean: m.nnz() as f64 / rows,
        longest,
        empty_fraction: empty as f64 / rows,
        short_fraction: short as f64 / rows,
        densest_column: *per_column.iter().max().unwrap_or(&0) as f64 / rows,
        lower: lower as f64 / nnz,
        near: near as f64 / nnz,
    }
}

fn same(a: &sprs::CsMat<f64>, b: &sprs::CsMat<f64>) -> bool {
    a.shape() == b.shape()
        && a.indptr().as_slice() == b.indptr().as_slice()
        && a.indices() == b.indices()
        && a.data() == b.data()
}

fn spec(class: &'static str, rows: usize, seed: u64) -> WorldSpec {
    WorldSpec {
        class,
        seed,
        name: format!("{class}_{rows}_s{seed}"),
        held_out: seed % 2 == 1,
        rows,
    }
}

/// (rows, seed) of the statistics tests: four seeds at 10^4 rows, two at 10^5 (debug builds are
/// slow).
const CASES: [(usize, u64); 6] = [
    (10_000, 0),
    (10_000, 1),
    (10_000, 2),
    (10_000, 3),
    (100_000, 0),
    (100_000, 1),
];

#[test]
fn snap_power_law_degrees() {
    for (rows, seed) in CASES {
        let s = stats(&generate::snap_power_law(rows, seed), 0);
        assert!((2.0..=10.0).contains(&s.mean), "{rows} {seed}: {s:?}");
        assert!((1000..=10_000).contains(&s.longest), "{rows} {seed}: {s:?}");
        // Hubs are also targets: some column is hit by far more rows than the mean.
        assert!(s.densest_column * rows as f64 > 20.0 * s.mean, "{s:?}");
        // Random order: no banded structure.
        assert!(s.near < 0.05, "{rows} {seed}: {s:?}");
    }
}

#[test]
fn citation_degrees() {
    for (rows, seed) in CASES {
        let s = stats(&generate::citation(rows, seed), 0);
        assert_eq!(s.lower, 1.0, "only older rows are cited");
        assert!((4.0..=16.0).contains(&s.mean), "{rows} {seed}: {s:?}");
        assert!((500..=1500).contains(&s.longest), "{rows} {seed}: {s:?}");
    }
}

#[test]
fn web_graph_degrees_and_dangling_runs() {
    for (rows, seed) in CASES {
        let m = generate::web_graph(rows, seed);
        let s = stats(&m, 256);
        assert!(
            (0.2..=0.6).contains(&s.empty_fraction),
            "{rows} {seed}: {s:?}"
        );
        assert!((1000..=10_000).contains(&s.longest), "{rows} {seed}: {s:?}");
        let linked_mean = s.mean / (1.0 - s.empty_fraction);
        assert!((4.0..=16.0).contains(&linked_mean), "{rows} {seed}: {s:?}");
        // Host locality: most links land near their page.
        assert!(s.near > 0.5, "{rows} {seed}: {s:?}");
        // Empty rows come in runs: the mean run of empty rows is at least 10.
        let ip = m.indptr();
        let ip = ip.as_slice().unwrap();
        let empty = |r: usize| ip[r] == ip[r + 1];
        let runs = (0..rows)
            .filter(|&r| empty(r) && (r == 0 || !empty(r - 1)))
            .count();
        let mean_run = s.empty_fraction * rows as f64 / runs as f64;
        assert!(mean_run >= 10.0, "{rows} {seed}: mean empty run {mean_run}");
    }
}

#[test]
fn circuit_degrees_dense_rows_and_columns() {
    for (rows, seed) in CASES {
        let s = stats(&generate::circuit(rows, seed), 64);
        assert!(s.short_fraction > 0.85, "{rows} {seed}: {s:?}");
        assert!((2.0..=7.5).contains(&s.mean), "{rows} {seed}: {s:?}");
        assert!(
            (1000..=100_000).contains(&s.longest),
            "{rows} {seed}: {s:?}"
        );
        assert!(s.densest_column >= 0.25, "{rows} {seed}: {s:?}");
    }
}

#[test]
fn road_network_degrees_symmetry_and_locality() {
    for (rows, seed) in CASES {
        let m = generate::road_network(rows, seed);
        let s = stats(&m, rows / 50);
        assert!((2.0..=3.0).contains(&s.mean), "{rows} {seed}: {s:?}");
        assert!((1..=6).contains(&s.longest), "{rows} {seed}: {s:?}");
        assert_eq!(s.empty_fraction, 0.0, "every intersection has a street");
        assert!(s.near > 0.6, "{rows} {seed}: {s:?}");
        let t = m.transpose_view().to_csr();
        assert_eq!(m.indices(), t.indices(), "symmetric");
        assert_eq!(m.indptr().as_slice(), t.indptr().as_slice());
    }
}

#[test]
fn fem_degrees_and_band() {
    for (rows, seed) in CASES {
        let m = generate::fem(rows, seed);
        let side = (rows as f64).cbrt().round() as usize;
        let s = stats(&m, 2 * side * side + 2 * side + 2);
        assert!((15.0..=34.0).contains(&s.mean), "{rows} {seed}: {s:?}");
        assert!(s.longest <= 40, "{rows} {seed}: {s:?}");
        assert_eq!(s.near, 1.0, "banded");
        let t = m.transpose_view().to_csr();
        assert_eq!(m.indices(), t.indices(), "structurally symmetric");
    }
}

#[test]
fn every_class_is_deterministic_per_seed() {
    for &class in WORLD_CLASSES {
        let a: sprs::CsMat<f64> = spec(class, 20_000, 5).matrix();
        let b: sprs::CsMat<f64> = spec(class, 20_000, 5).matrix();
        let c: sprs::CsMat<f64> = spec(class, 20_000, 6).matrix();
        assert!(same(&a, &b), "{class}: same seed, different matrices");
        assert!(!same(&a, &c), "{class}: different seeds, same matrix");
        let f: sprs::CsMat<f32> = spec(class, 20_000, 5).matrix();
        assert_eq!(a.indices(), f.indices(), "{class}: f32 and f64 differ");
    }
}

#[test]
fn tiny_sizes_do_not_panic() {
    for &class in WORLD_CLASSES {
        for rows in [0, 1, 2, 3, 10, 100] {
            let m: sprs::CsMat<f64> = spec(class, rows, 1).matrix();
            stats(&m, 0);
        }
    }
}

#[test]
fn world_set_halves_and_names() {
    let set = world_set(4);
    assert_eq!(set.len(), WORLD_CLASSES.len() * (4 + 4 + 2));
    for s in &set {
        assert_eq!(s.held_out, s.seed % 2 == 1, "{}", s.name);
        assert!(s.name.starts_with(s.class) && s.name.ends_with(&format!("_s{}", s.seed)));
    }
    let names: std::collections::HashSet<_> = set.iter().map(|s| &s.name).collect();
    assert_eq!(names.len(), set.len(), "names are unique");
    for &class in WORLD_CLASSES {
        for half in [false, true] {
            assert!(set.iter().any(|s| s.class == class && s.held_out == half));
        }
    }
}

/// The whole set: sizes and build time (release: `cargo test --release -p loops-runtime --test
/// world -- --ignored --nocapture`).
#[test]
#[ignore]
fn world_set_size_and_time() {
    let started = std::time::Instant::now();
    let mut total = 0;
    for s in world_set(4) {
        let t = std::time::Instant::now();
        let m: sprs::CsMat<f32> = s.matrix();
        let st = stats(&m.map(|&v| v as f64), 0);
        total += m.nnz();
        println!(
            "{:<28} {:>9} nnz {:>6.2}/row longest {:>6} empty {:.2} densest col {:.3} {:>7.0?}",
            s.name,
            m.nnz(),
            st.mean,
            st.longest,
            st.empty_fraction,
            st.densest_column,
            t.elapsed()
        );
    }
    println!("{total} nonzeros in {:.1?}", started.elapsed());
    assert!(total <= 110_000_000, "{total} nonzeros");
}

#[test]
fn banded_bandwidth_varies_within_its_range() {
    let widths: Vec<usize> = (0..16)
        .map(|seed| generate::world_bandwidth(100_000, seed))
        .collect();
    assert!(widths.iter().all(|w| (3..=40).contains(w)), "{widths:?}");
    assert!(widths.iter().any(|&w| w != widths[0]), "{widths:?}");
    assert!((0..16).all(|seed| (3..=12).contains(&generate::world_bandwidth(1_000_000, seed))));
    let m: sprs::CsMat<f64> = spec("banded", 1000, 3).matrix();
    assert_eq!(m.nnz(), 1000 * generate::world_bandwidth(1000, 3));
}
