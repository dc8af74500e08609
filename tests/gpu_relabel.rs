//! The relabelling by in-degree on the GPU (`loops::ops::relabel`, issue 42) against the host's
//! (`io::host::relabel_by_degree` with `Degree::In`): the relabelled matrix array for array
//! (offsets, sorted columns, values) and both permutations, f32 and f64, on fresh random
//! matrices (skewed, symmetric Graph500, a banded and an arrow one, rows and columns left empty,
//! one vertex, none). The op poisons the buffers its kernels write (-1), and before each call a
//! 64 MB buffer is filled with 0xFF bytes and freed, so that the allocations the op leaves
//! uninitialised (the transposes' results) are likely to start poisoned: an entry nobody wrote
//! shows. Also: the relabelled product is the permuted product, and a matrix
//! that is not square is refused.
#![cfg(feature = "gpu")]

mod common;

use loops::io::host::{relabel_by_degree, Degree};
use loops::ops::relabel::relabel_by_in_degree;
use loops::prelude::*;
use rand::{Rng, SeedableRng};

/// Fills and frees a buffer of `bytes` so that the allocations after it start as 0xFF bytes.
fn poison_free_memory(gpu: &Gpu, bytes: usize) {
    let mut b = gpu.zeros::<u32>(bytes / 4).unwrap();
    gpu.fill(&mut b, u32::MAX).unwrap();
    gpu.synchronize().unwrap();
    drop(b);
}

/// A random square matrix with skewed columns, some rows and columns empty, random values.
fn skewed<T: Float>(rng: &mut impl Rng, n: usize) -> sprs::CsMat<T> {
    let mut t = sprs::TriMat::new((n, n));
    for r in 0..n {
        if rng.random_bool(0.2) {
            continue;
        }
        let len = if rng.random_bool(0.05) {
            rng.random_range(0..n.min(500) + 1)
        } else {
            rng.random_range(0..8)
        };
        let mut cols: Vec<usize> = (0..len)
            .map(|_| {
                let u: f64 = rng.random();
                // Low columns are hubs; the top tenth of the columns is never used.
                ((u * u * u) * (n as f64 * 0.9)) as usize
            })
            .collect();
        cols.sort_unstable();
        cols.dedup();
        for c in cols {
            t.add_triplet(r, c, T::from_f64(rng.random_range(-1.0..1.0)));
        }
    }
    t.to_csr()
}

fn check_one<T: Float>(gpu: &Gpu, name: &str, host: &sprs::CsMat<T>) {
    let (want, p) = relabel_by_degree(host, Degree::In).unwrap();
    let a = gpu.upload_csr(host).unwrap();
    poison_free_memory(gpu, 64 << 20);
    let (b, dp) = relabel_by_in_degree(gpu, &a).unwrap();
    let got = gpu.download_csr(&b).unwrap();
    assert_eq!(got.shape(), want.shape(), "{name}");
    assert_eq!(
        got.indptr().to_proper(),
        want.indptr().to_proper(),
        "{name}: offsets"
    );
    assert_eq!(got.indices(), want.indices(), "{name}: columns");
    let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(got.data()), bits(want.data()), "{name}: values");
    let as_usize = |v: Vec<i32>| v.into_iter().map(|x| x as usize).collect::<Vec<_>>();
    assert_eq!(
        as_usize(gpu.download(&dp.old_of).unwrap()),
        p.old_of,
        "{name}: old_of"
    );
    assert_eq!(
        as_usize(gpu.download(&dp.new_of).unwrap()),
        p.new_of,
        "{name}: new_of"
    );
    // `a` is left as it was.
    assert_eq!(gpu.download_csr(&a).unwrap(), *host, "{name}: a changed");
    // The relabelled product, read back through the permutation, is A x.
    let n = host.rows();
    if n > 0 {
        let x: Vec<T> = loops::io::generate::random_vector(n, 7);
        let px: Vec<T> = p.permute(&x);
        let dx = gpu.upload(&px).unwrap();
        let mut dy = gpu.zeros::<T>(n).unwrap();
        b.spmv(gpu, T::from_f64(1.0), &dx, T::from_f64(0.0), &mut dy)
            .unwrap();
        let y = p.unpermute(&gpu.download(&dy).unwrap());
        let (reference, scale) = loops::check::spmv_reference(host, &x);
        let offsets = host.indptr().to_proper().to_vec();
        for (i, (g, w)) in y.iter().zip(&reference).enumerate() {
            let bound =
                loops::check::expected_error_bound::<T>(offsets[i + 1] - offsets[i], scale[i]);
            assert!(
                (g.to_f64() - w).abs() <= bound,
                "{name}: y[{i}] = {}, want {w} (bound {bound})",
                g.to_f64()
            );
        }
    }
}

fn every_case<T: Float>() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    use loops::io::generate as g;
    let cases: Vec<(String, sprs::CsMat<T>)> = vec![
        ("empty".into(), sprs::CsMat::zero((0, 0))),
        ("one vertex, no edge".into(), sprs::CsMat::zero((1, 1))),
        ("skewed_1000".into(), skewed(&mut rng, 1000)),
        ("skewed_70000".into(), skewed(&mut rng, 70_000)),
        ("rmat_14".into(), g::rmat(14, 8, rng.random())),
        ("kronecker_13".into(), g::kronecker(13, 16, rng.random())),
        ("banded_5000".into(), g::banded(5000, 9, rng.random())),
        ("arrow_20000".into(), g::arrow(20_000, rng.random())),
        (
            "power_law_30000".into(),
            g::power_law(30_000, 30_000, 12.0, 2.0, false, rng.random()),
        ),
    ];
    for (name, m) in &cases {
        check_one(&gpu, name, m);
    }
}

#[test]
fn relabelling_matches_the_host_f32() {
    every_case::<f32>();
}

#[test]
fn relabelling_matches_the_host_f64() {
    every_case::<f64>();
}

#[test]
fn a_matrix_that_is_not_square_is_refused() {
    let gpu = common::gpu();
    let m: sprs::CsMat<f32> = loops::io::generate::uniform(100, 120, 4, 1);
    let a = gpu.upload_csr(&m).unwrap();
    let e = relabel_by_in_degree(&gpu, &a).err().expect("refused");
    assert!(e.to_string().contains("square"), "{e}");
}
