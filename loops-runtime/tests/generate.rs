//! Generators: determinism, CSR invariants, shapes and the properties each one promises.

use loops_runtime::generate::{self, RMAT_ABCD};
use loops_runtime::Float;

/// Offsets from 0 to nnz, non-decreasing; columns strictly increasing within each row and below
/// `cols`; values in [-1, 1). Returns the row lengths.
fn check_invariants<T: Float>(m: &sprs::CsMat<T>) -> Vec<usize> {
    assert!(m.is_csr());
    let indptr = m.indptr();
    let ip = indptr.as_slice().expect("generators give a proper indptr");
    assert_eq!(ip.len(), m.rows() + 1);
    assert_eq!(ip[0], 0);
    assert_eq!(ip[m.rows()], m.nnz());
    assert_eq!(m.indices().len(), m.nnz());
    assert_eq!(m.data().len(), m.nnz());
    let mut lengths = Vec::with_capacity(m.rows());
    for r in 0..m.rows() {
        assert!(ip[r] <= ip[r + 1], "offsets decrease at row {r}");
        let cols = &m.indices()[ip[r]..ip[r + 1]];
        assert!(
            cols.windows(2).all(|w| w[0] < w[1]),
            "row {r} not sorted and distinct: {cols:?}"
        );
        assert!(
            cols.iter().all(|&c| c < m.cols()),
            "row {r} has a column out of range"
        );
        lengths.push(cols.len());
    }
    for v in m.data() {
        let v = v.to_f64();
        assert!((-1.0..1.0).contains(&v), "value {v} outside [-1, 1)");
    }
    lengths
}

fn same<T: Float>(a: &sprs::CsMat<T>, b: &sprs::CsMat<T>) -> bool {
    a.shape() == b.shape()
        && a.indptr().as_slice() == b.indptr().as_slice()
        && a.indices() == b.indices()
        && a.data()
            .iter()
            .zip(b.data())
            .all(|(x, y)| x.to_f64().to_bits() == y.to_f64().to_bits())
}

/// Every generator, by name, at a small size, for a given seed.
fn all_f64(seed: u64) -> Vec<(&'static str, sprs::CsMat<f64>)> {
    all::<f64>(seed)
}

fn all<T: Float>(seed: u64) -> Vec<(&'static str, sprs::CsMat<T>)> {
    vec![
        ("uniform", generate::uniform(1000, 700, 9, seed)),
        ("uniform-dense-rows", generate::uniform(50, 40, 30, seed)),
        (
            "power_law",
            generate::power_law(3000, 2000, 8.0, 1.3, false, seed),
        ),
        (
            "power_law_contiguous",
            generate::power_law(3000, 2000, 8.0, 1.3, true, seed),
        ),
        ("rmat", generate::rmat(10, 8, seed)),
        ("banded", generate::banded(5000, 16, seed)),
        ("grid2d", generate::grid2d(37, 23, seed)),
        ("arrow", generate::arrow(500, seed)),
        (
            "with_empty_rows",
            generate::with_empty_rows(2000, 300, 0.8, 5, seed),
        ),
        (
            "one_huge_row",
            generate::one_huge_row(999, 5000, 4000, seed),
        ),
        // Larger than a block of rows, so several random streams (and threads) are involved.
        (
            "uniform-multiblock",
            generate::uniform(20_000, 20_000, 4, seed),
        ),
    ]
}

#[test]
fn every_generator_keeps_the_csr_invariants() {
    for (name, m) in all_f64(1) {
        let lengths = check_invariants(&m);
        println!(
            "{name:22} {:>6} x {:<6} nnz {:>7} longest row {}",
            m.rows(),
            m.cols(),
            m.nnz(),
            lengths.iter().max().unwrap_or(&0)
        );
    }
    for (_, m) in all::<f32>(1) {
        check_invariants(&m);
    }
}

#[test]
fn same_seed_same_matrix_other_seed_other_matrix() {
    let (a, b, c) = (all_f64(42), all_f64(42), all_f64(43));
    for ((name, a), ((_, b), (_, c))) in a.iter().zip(b.iter().zip(&c)) {
        assert!(same(a, b), "{name}: same seed, different matrices");
        assert!(!same(a, c), "{name}: different seeds, same matrix");
    }
}

#[test]
fn f32_and_f64_get_the_same_values() {
    for ((name, a), (_, b)) in all::<f32>(7).iter().zip(&all::<f64>(7)) {
        assert_eq!(a.indices(), b.indices(), "{name}");
        assert!(
            a.data().iter().zip(b.data()).all(|(x, y)| *x as f64 == *y),
            "{name}"
        );
    }
}

#[test]
fn values_are_spread_over_the_interval() {
    let m = generate::uniform::<f64>(1000, 1000, 20, 3);
    let (mut lo, mut hi, mut sum) = (f64::MAX, f64::MIN, 0.0);
    for &v in m.data() {
        lo = lo.min(v);
        hi = hi.max(v);
        sum += v;
    }
    let mean = sum / m.nnz() as f64;
    assert!(lo < -0.99 && hi > 0.99, "{lo} {hi}");
    assert!(mean.abs() < 0.02, "mean {mean}");
    // On the 2^-23 grid.
    assert!(m
        .data()
        .iter()
        .all(|v| ((v + 1.0) * 8388608.0).fract() == 0.0));
}

#[test]
fn uniform_shape() {
    let m = generate::uniform::<f32>(300, 100, 7, 5);
    assert_eq!(m.shape(), (300, 100));
    assert!(check_invariants(&m).iter().all(|&l| l == 7));
    // More per row than columns: every row is full.
    let m = generate::uniform::<f32>(10, 6, 50, 5);
    assert!(check_invariants(&m).iter().all(|&l| l == 6));
    // Columns are spread: every column is hit somewhere in a big enough matrix.
    let m = generate::uniform::<f64>(2000, 50, 3, 5);
    let mut hit = [false; 50];
    m.indices().iter().for_each(|&c| hit[c] = true);
    assert!(hit.iter().all(|&h| h));
}

#[test]
fn power_law_shape() {
    let (rows, cols, mean) = (100_000, 50_000, 8.0);
    let m = generate::power_law::<f32>(rows, cols, mean, 2.0, false, 9);
    let lengths = check_invariants(&m);
    let actual = m.nnz() as f64 / rows as f64;
    assert!(
        (actual - mean).abs() < 0.15 * mean,
        "mean row length {actual}, wanted about {mean}"
    );
    let max = *lengths.iter().max().unwrap();
    let median = {
        let mut l = lengths.clone();
        l.sort_unstable();
        l[rows / 2]
    };
    assert!(
        max > 50 * median,
        "not heavy-tailed: max {max}, median {median}"
    );
    // Capped at cols.
    let m = generate::power_law::<f32>(2000, 30, 10.0, 1.1, false, 9);
    assert!(check_invariants(&m).iter().all(|&l| l <= 30));
    assert!(check_invariants(&m).contains(&30));
}

#[test]
fn power_law_contiguous_rows_are_runs() {
    let a = generate::power_law::<f64>(5000, 3000, 6.0, 1.5, true, 4);
    let b = generate::power_law::<f64>(5000, 3000, 6.0, 1.5, false, 4);
    // Same row lengths as the random-column variant.
    assert_eq!(a.indptr().as_slice(), b.indptr().as_slice());
    for r in 0..a.rows() {
        let cols = a.outer_view(r).unwrap().indices().to_vec();
        assert!(
            cols.windows(2).all(|w| w[1] == w[0] + 1),
            "row {r} is not contiguous"
        );
    }
    let starts: std::collections::HashSet<usize> = (0..a.rows())
        .filter_map(|r| a.outer_view(r).unwrap().indices().first().copied())
        .collect();
    assert!(starts.len() > 500, "runs should start at random columns");
}

#[test]
fn rmat_is_a_simple_skewed_graph() {
    let scale = 12;
    let n = 1 << scale;
    let m = generate::rmat::<f32>(scale, 16, 8);
    assert_eq!(m.shape(), (n, n));
    let lengths = check_invariants(&m); // sorted and distinct: no duplicate edges
    for r in 0..n {
        assert!(
            m.outer_view(r)
                .unwrap()
                .indices()
                .binary_search(&r)
                .is_err(),
            "self-loop at {r}"
        );
    }
    let drawn = 16 * n;
    assert!(
        m.nnz() <= drawn && m.nnz() > drawn / 2,
        "nnz {} of {drawn} drawn",
        m.nnz()
    );
    // Skew: vertex 0 (all-"a" quadrant) has by far the most edges.
    let max = *lengths.iter().max().unwrap();
    assert_eq!(lengths[0], max);
    assert!(max > 20 * 16, "max degree {max}");
    assert_eq!(RMAT_ABCD.iter().sum::<f64>(), 1.0);
}

#[test]
fn banded_shape() {
    let m = generate::banded::<f64>(1000, 16, 2);
    assert_eq!(m.shape(), (1000, 1000));
    assert!(check_invariants(&m).iter().all(|&l| l == 16));
    for r in 0..1000 {
        let cols = m.outer_view(r).unwrap().indices().to_vec();
        assert!(cols.windows(2).all(|w| w[1] == w[0] + 1));
        assert!(
            cols[0] <= r && r <= cols[15],
            "row {r} does not cover the diagonal"
        );
        assert!(cols[15] - cols[0] < 16);
    }
    assert_eq!(m.outer_view(500).unwrap().indices()[0], 492);
    // Bandwidth beyond the size: dense.
    let m = generate::banded::<f64>(5, 16, 2);
    assert_eq!(m.nnz(), 25);
}

#[test]
fn grid2d_shape() {
    let (w, h) = (37, 23);
    let m = generate::grid2d::<f64>(w, h, 1);
    assert_eq!(m.shape(), (w * h, w * h));
    check_invariants(&m);
    assert_eq!(m.nnz(), 5 * w * h - 2 * w - 2 * h);
    // Structurally symmetric, with the diagonal.
    let s = m.map(|_| 1.0);
    assert_eq!(s.to_csc().transpose_into().indices(), s.indices());
    assert!((0..w * h).all(|r| m.get(r, r).is_some()));
    assert_eq!(generate::grid2d::<f32>(1, 1, 1).nnz(), 1);
    assert_eq!(generate::grid2d::<f32>(0, 5, 1).nnz(), 0);
}

#[test]
fn arrow_shape() {
    let n = 500;
    let m = generate::arrow::<f32>(n, 3);
    let lengths = check_invariants(&m);
    assert_eq!(m.nnz(), 3 * n - 2);
    assert_eq!(lengths[0], n);
    assert!(lengths[1..].iter().all(|&l| l == 2));
    assert!((0..n).all(|r| m.get(r, 0).is_some() && m.get(r, r).is_some()));
    assert_eq!(generate::arrow::<f32>(1, 3).nnz(), 1);
}

#[test]
fn degenerate_shapes() {
    let e = generate::empty::<f64>(7, 3);
    assert_eq!((e.shape(), e.nnz()), ((7, 3), 0));
    check_invariants(&e);
    assert_eq!(generate::empty::<f32>(0, 0).shape(), (0, 0));
    assert_eq!(generate::uniform::<f32>(0, 10, 3, 1).nnz(), 0);
    assert_eq!(generate::uniform::<f32>(10, 0, 3, 1).nnz(), 0);

    let m = generate::with_empty_rows::<f64>(10_000, 100, 0.9, 4, 6);
    let lengths = check_invariants(&m);
    assert_eq!((lengths[0], lengths[9_999]), (0, 0));
    let empty = lengths.iter().filter(|&&l| l == 0).count();
    assert!((8_700..9_300).contains(&empty), "{empty} empty rows");
    assert!(lengths.iter().all(|&l| l == 0 || l == 4));
    let longest_run = lengths
        .split(|&l| l > 0)
        .map(|run| run.len())
        .max()
        .unwrap();
    assert!(
        longest_run >= 20,
        "no long run of empty rows ({longest_run})"
    );
    assert_eq!(generate::with_empty_rows::<f64>(50, 10, 1.0, 3, 6).nnz(), 0);

    let m = generate::one_huge_row::<f32>(1001, 100_000, 60_000, 2);
    let lengths = check_invariants(&m);
    assert_eq!(lengths[500], 60_000);
    assert!(lengths.iter().enumerate().all(|(r, &l)| r == 500 || l == 2));
    assert_eq!(
        generate::one_huge_row::<f32>(3, 10, 100, 2).nnz(),
        10 + 2 + 2
    );
}

#[test]
fn random_vectors() {
    let a = generate::random_vector::<f32>(10_000, 1);
    assert_eq!(a, generate::random_vector::<f32>(10_000, 1));
    assert_ne!(a, generate::random_vector::<f32>(10_000, 2));
    assert!(a.iter().all(|v| (-1.0..1.0).contains(v)));
    let b = generate::random_vector::<f64>(10_000, 1);
    assert!(a.iter().zip(&b).all(|(x, y)| *x as f64 == *y));
    assert!(generate::random_vector::<f64>(0, 1).is_empty());
}

#[test]
#[should_panic(expected = "exponent")]
fn power_law_rejects_an_infinite_mean() {
    generate::power_law::<f32>(10, 10, 3.0, 1.0, false, 1);
}

#[test]
#[should_panic(expected = "scale")]
fn rmat_rejects_a_huge_scale() {
    generate::rmat::<f32>(40, 1, 1);
}

/// Generation speed (release mode: cargo test --release -p loops-runtime --test generate --
/// --ignored --nocapture).
#[test]
#[ignore = "speed measurement: run in release mode with --nocapture"]
fn generation_speed() {
    let time = |name: &str, f: &dyn Fn() -> usize| {
        let t = std::time::Instant::now();
        let nnz = f();
        let s = t.elapsed().as_secs_f64();
        println!(
            "{name:40} {nnz:>11} nnz in {s:6.2} s ({:.0} M nnz/s)",
            nnz as f64 / s / 1e6
        );
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{threads} threads");
    time("banded 8.4M rows x 16 (f32)", &|| {
        generate::banded::<f32>(8_400_000, 16, 1).nnz()
    });
    time("uniform 6.25M x 6.25M, 16/row (f32)", &|| {
        generate::uniform::<f32>(6_250_000, 6_250_000, 16, 1).nnz()
    });
    time("power_law 10M x 10M, mean 10 (f32)", &|| {
        generate::power_law::<f32>(10_000_000, 10_000_000, 10.0, 2.0, false, 1).nnz()
    });
    time("power_law_contiguous 10M, mean 10 (f32)", &|| {
        generate::power_law::<f32>(10_000_000, 10_000_000, 10.0, 2.0, true, 1).nnz()
    });
    time("rmat scale 22, edge factor 16 (f32)", &|| {
        generate::rmat::<f32>(22, 16, 1).nnz()
    });
    time("grid2d 3000 x 3000 (f32)", &|| {
        generate::grid2d::<f32>(3000, 3000, 1).nnz()
    });
}
