//! Kernels written with a `lanes` loop, on the GPU, against f64 CPU references under every
//! schedule they are stamped with: the SpMM of `examples/kernels/spmm.rs` (`spmm::lanes`) at k in
//! {1, 3, 8, 32, 100, 128} (a width of one lane, widths below and at a warp, and past it, strided)
//! and, on the generated set (with an arrow and a long-tailed power-law), also {24, 48} (the wider
//! fused paths: 8 and 16 values per lane under `group4`), and
//! the GraphSAGE layer of `examples/kernels/gnn.rs` (mean over the neighbours, bias, ReLU) at
//! feature widths {3, 16, 64, 256}; the generated matrices and every real matrix, f32 and f64.
//! Inputs are fresh random values each run; outputs are poisoned (NaN) before each run.
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use loops::check::{check_rows, RowCheck};
use loops::io::host::expected_error_bound;
use loops::prelude::*;
use sprs::CsMat;

const KS: [usize; 6] = [1, 3, 8, 32, 100, 128];
/// Lengths that take the wider fused paths (`kernels_gen::schedule::lanes::vector_for`): 24 is 8
/// values per lane under `group4`, 48 is 16 there (128, in [`KS`], is 8 under `warp` and
/// `group16`, 16 under `group8`). Sixteen values under `warp` (`n = 160`): `shifted_all`.
const KS_WIDE: [usize; 2] = [24, 48];
const FEATURES: [usize; 4] = [3, 16, 64, 256];

fn poisoned<T: Float>(gpu: &Gpu, len: usize) -> loops::Result<DeviceBuffer<T>> {
    let mut b = gpu.zeros::<T>(len)?;
    gpu.fill(&mut b, T::POISON)?;
    Ok(b)
}

/// `sum over the row's entries of weight(entry) * b[col * k + j]` in f64 for every row and `j`,
/// with the per-entry bound of a sum of that many terms in `T`, and each row's entry count.
fn gathered<T: Float>(
    a: &CsMat<T>,
    b: &[T],
    k: usize,
    weight: impl Fn(T) -> f64,
) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let (mut want, mut bound) = (vec![0.0; a.rows() * k], vec![0.0; a.rows() * k]);
    let mut degree = vec![0; a.rows()];
    let mut scale = vec![0.0; k];
    for (r, row) in a.outer_iterator().enumerate() {
        scale.iter_mut().for_each(|s| *s = 0.0);
        degree[r] = row.nnz();
        for (c, &v) in row.iter() {
            let w = weight(v);
            for j in 0..k {
                let p = w * b[c * k + j].to_f64();
                want[r * k + j] += p;
                scale[j] += p.abs();
            }
        }
        for j in 0..k {
            bound[r * k + j] = expected_error_bound::<T>(row.nnz(), scale[j]);
        }
    }
    (want, bound, degree)
}

#[allow(clippy::too_many_arguments)]
fn spmm_lanes<T: Float>(
    gpu: &Gpu,
    da: &DeviceCsr<T>,
    schedules: &[&str],
    reference: &(Vec<f64>, Vec<f64>),
    b: &DeviceBuffer<T>,
    k: usize,
    rows: usize,
    mut record: impl FnMut(&str, Result<(bool, String), String>),
) {
    for s in schedules {
        let run = || -> loops::Result<RowCheck> {
            let mut dc = poisoned::<T>(gpu, rows * k)?;
            kernels::spmm::lanes::launch(s, gpu, da, b, &mut dc, k)?;
            Ok(check_rows(&gpu.download(&dc)?, &reference.0, &reference.1))
        };
        record(
            s,
            run()
                .map(|c| (c.passed(), c.to_string()))
                .map_err(|e| e.to_string()),
        );
    }
}

fn spmm_all<T: Float>(matrices: Vec<(String, CsMat<T>)>, ks: &[usize]) {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}; {}",
        gpu.name(),
        T::RUST_NAME
    );
    let mut tally = common::Tally::default();
    for (m, (name, a)) in matrices.iter().enumerate() {
        let da = gpu.upload_csr(a).unwrap_or_else(|e| panic!("{name}: {e}"));
        for &k in ks {
            let b: Vec<T> = loops::io::generate::random_vector(
                a.cols() * k,
                seed.wrapping_add((m * 131 + k) as u64),
            );
            let db = gpu.upload(&b).expect("upload b");
            let (want, bound, _) = gathered(a, &b, k, |v| v.to_f64());
            spmm_lanes(
                &gpu,
                &da,
                kernels::spmm::lanes::SCHEDULES,
                &(want, bound),
                &db,
                k,
                a.rows(),
                |s, outcome| tally.record(name, &format!("spmm lanes k={k:<3} {s}"), outcome),
            );
        }
    }
    tally.finish(matrices.len());
}

/// `out = max(mean over the neighbours of h + bias, 0)`: the mean's bound is the sum's over the
/// degree, plus the rounding of the division, the bias's addition and the f64 reference's.
// Rows, features and the bias are indexed together.
#[allow(clippy::needless_range_loop)]
fn sage_all<T: Float>(matrices: Vec<(String, CsMat<T>)>) {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}; {}",
        gpu.name(),
        T::RUST_NAME
    );
    let u = T::UNIT_ROUNDOFF;
    let mut tally = common::Tally::default();
    for (m, (name, a)) in matrices.iter().enumerate() {
        let da = gpu.upload_csr(a).unwrap_or_else(|e| panic!("{name}: {e}"));
        for f in FEATURES {
            let s = seed.wrapping_add((m * 131 + f) as u64);
            let h: Vec<T> = loops::io::generate::random_vector(a.cols() * f, s);
            let bias: Vec<T> = loops::io::generate::random_vector(f, s ^ 0x5eed);
            let (dh, dbias) = (gpu.upload(&h).expect("h"), gpu.upload(&bias).expect("bias"));
            let (sum, sum_bound, degree) = gathered(a, &h, f, |_| 1.0);
            let (mut want, mut bound) = (vec![0.0; sum.len()], vec![0.0; sum.len()]);
            for r in 0..a.rows() {
                for j in 0..f {
                    let i = r * f + j;
                    let d = degree[r].max(1) as f64;
                    let mean = if degree[r] > 0 { sum[i] / d } else { 0.0 };
                    let y = mean + bias[j].to_f64();
                    want[i] = y.max(0.0);
                    // ReLU is 1-Lipschitz: the bound of `mean + bias` carries over.
                    bound[i] = sum_bound[i] / d
                        + 4.0 * u * (mean.abs() + bias[j].to_f64().abs() + sum[i].abs() / d);
                }
            }
            for sched in kernels::gnn::SCHEDULES {
                let run = || -> loops::Result<RowCheck> {
                    let mut dout = poisoned::<T>(&gpu, a.rows() * f)?;
                    kernels::gnn::launch(sched, &gpu, &da, &dh, &dbias, &mut dout, f)?;
                    Ok(check_rows(&gpu.download(&dout)?, &want, &bound))
                };
                tally.record(
                    name,
                    &format!("sage_mean f={f:<3} {sched}"),
                    run()
                        .map(|c| (c.passed(), c.to_string()))
                        .map_err(|e| e.to_string()),
                );
            }
        }
    }
    tally.finish(matrices.len());
}

/// The generated set plus two hub matrices (an arrow: one full row and one full column; a
/// power-law with a long tail), at every k of [`KS`] and [`KS_WIDE`].
fn generated_with_hubs<T: Float>() -> Vec<(String, CsMat<T>)> {
    let seed = common::fresh_seed();
    let mut m = common::generated_matrices::<T>(seed);
    m.push((
        "arrow 20000".into(),
        loops::io::generate::arrow(20_000, seed + 11),
    ));
    m.push((
        "power-law 30000 mean 12 a=1.6".into(),
        loops::io::generate::power_law(30_000, 30_000, 12.0, 1.6, false, seed + 12),
    ));
    m
}

fn all_ks() -> Vec<usize> {
    KS.iter().chain(KS_WIDE.iter()).copied().collect()
}

#[test]
fn spmm_lanes_generated_f32() {
    spmm_all(generated_with_hubs::<f32>(), &all_ks());
}

#[test]
fn spmm_lanes_generated_f64() {
    spmm_all(generated_with_hubs::<f64>(), &all_ks());
}

#[test]
fn spmm_lanes_real_f32() {
    spmm_all(common::real_matrices::<f32>(), &KS);
}

#[test]
fn spmm_lanes_real_f64() {
    spmm_all(common::real_matrices::<f64>(), &KS);
}

#[test]
fn sage_mean_generated_f32() {
    sage_all(common::generated_matrices::<f32>(common::fresh_seed()));
}

#[test]
fn sage_mean_generated_f64() {
    sage_all(common::generated_matrices::<f64>(common::fresh_seed()));
}

#[test]
fn sage_mean_real_f32() {
    sage_all(common::real_matrices::<f32>());
}

#[test]
fn sage_mean_real_f64() {
    sage_all(common::real_matrices::<f64>());
}

/// Long rows, which `lrb` runs in pieces of a warp each (kernels-gen's `schedule::pieces`: bins
/// of more than 256 nonzeros, pieces of 256, combined by chunks of 32 pieces): an arrow of
/// 100000 (one row of 391 pieces, 13 chunks), a power-law with a long tail, and rows at the
/// pieces' and chunks' edges (257, 512, 4096, 4097, 8192 = one full chunk, 8193, 24577 = three
/// chunks and one piece of one nonzero), next to short and empty rows. `spmm::lanes` under `lrb`, and
/// `max(A B + bias, 0)` under `lrb` and `warp` (a value before the atom loop, which the pieces'
/// combination must count once; and an epilogue), at k in {1, 3, 8, 32, 128}.
const LONG_KS: [usize; 5] = [1, 3, 8, 32, 128];

fn long_rows<T: Float>() -> Vec<(String, CsMat<T>)> {
    let seed = common::fresh_seed();
    let cols = 30_000;
    // Bins 9..=12 too (257-4096 nonzeros), which `lrb` also runs in pieces of 256 for these
    // bodies, the short bins' group (17, 32), the warps' (64, 65, 128, 129); on this small set
    // the pieces are of 64 nonzeros (2048 = one full chunk of them, 2049 two chunks).
    let lengths = [
        4097usize, 0, 8192, 3, 8193, 24577, 1, 0, 5000, 257, 17, 300, 511, 512, 32, 2048, 4096, 64,
        65, 128, 129, 2049,
    ];
    let mut indptr = vec![0usize];
    let mut indices = Vec::new();
    for &l in &lengths {
        indices.extend(0..l);
        indptr.push(indices.len());
    }
    let data = loops::io::generate::random_vector::<T>(indices.len(), seed + 21);
    let edges = CsMat::new((lengths.len(), cols), indptr, indices, data);
    vec![
        (
            "arrow 100000".into(),
            loops::io::generate::arrow(100_000, seed + 11),
        ),
        (
            "power-law 60000 mean 16 a=1.3".into(),
            loops::io::generate::power_law(60_000, 60_000, 16.0, 1.3, false, seed + 12),
        ),
        ("rows at the pieces' edges".into(), edges),
    ]
}

fn long_rows_all<T: Float>() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}; {}",
        gpu.name(),
        T::RUST_NAME
    );
    let matrices = long_rows::<T>();
    let mut tally = common::Tally::default();
    for (m, (name, a)) in matrices.iter().enumerate() {
        let da = gpu.upload_csr(a).unwrap_or_else(|e| panic!("{name}: {e}"));
        for k in LONG_KS {
            let s = seed.wrapping_add((m * 131 + k) as u64);
            let b: Vec<T> = loops::io::generate::random_vector(a.cols() * k, s);
            let bias: Vec<T> = loops::io::generate::random_vector(k, s ^ 0x5eed);
            let (db, dbias) = (gpu.upload(&b).expect("b"), gpu.upload(&bias).expect("bias"));
            let (want, bound, _) = gathered(a, &b, k, |v| v.to_f64());
            spmm_lanes(
                &gpu,
                &da,
                &["lrb"],
                &(want.clone(), bound.clone()),
                &db,
                k,
                a.rows(),
                |s, outcome| tally.record(name, &format!("spmm lanes k={k:<3} {s}"), outcome),
            );
            // The pieces combine in a fixed order: two runs give the same bits.
            let twice = || -> loops::Result<Vec<Vec<T>>> {
                (0..2)
                    .map(|_| {
                        let mut dc = poisoned::<T>(&gpu, a.rows() * k)?;
                        kernels::spmm::lanes::launch("lrb", &gpu, &da, &db, &mut dc, k)?;
                        gpu.download(&dc)
                    })
                    .collect()
            };
            tally.record(
                name,
                &format!("spmm lanes k={k:<3} lrb twice, same bits"),
                twice()
                    .map(|r| {
                        let same = r[0]
                            .iter()
                            .zip(&r[1])
                            .all(|(x, y)| x.to_f64().to_bits() == y.to_f64().to_bits());
                        (same, if same { "same".into() } else { "differ".into() })
                    })
                    .map_err(|e| e.to_string()),
            );
            // The bias joins the sum (one more term, its size in the bound); ReLU is 1-Lipschitz.
            let u = T::UNIT_ROUNDOFF;
            let (mut relu, mut relu_bound) = (want, bound);
            for (i, (w, e)) in relu.iter_mut().zip(&mut relu_bound).enumerate() {
                let y = *w + bias[i % k].to_f64();
                *e += 4.0 * u * (w.abs() + bias[i % k].to_f64().abs());
                *w = y.max(0.0);
            }
            for sched in kernels::spmm::long_rows::SCHEDULES {
                let run = || -> loops::Result<RowCheck> {
                    let mut dc = poisoned::<T>(&gpu, a.rows() * k)?;
                    kernels::spmm::long_rows::launch(sched, &gpu, &da, &db, &dbias, &mut dc, k)?;
                    Ok(check_rows(&gpu.download(&dc)?, &relu, &relu_bound))
                };
                tally.record(
                    name,
                    &format!("bias relu k={k:<3} {sched}"),
                    run()
                        .map(|c| (c.passed(), c.to_string()))
                        .map_err(|e| e.to_string()),
                );
            }
        }
    }
    tally.finish(matrices.len());
}

#[test]
fn spmm_lanes_long_rows_f32() {
    long_rows_all::<f32>();
}

#[test]
fn spmm_lanes_long_rows_f64() {
    long_rows_all::<f64>();
}

/// `lanes(s..e)` over `i32` ranges ending at `i32::MAX` (lengths 7, 8, 96, 100: the last stride
/// would step past it) and ordinary ones (128, 160: the wider fused paths), with unaligned offsets (`off`, `w` odd: the four-value path's
/// scalar side) and aligned ones, on a small generated matrix under every schedule, f32 and f64.
/// Before the strides ran on 64-bit offsets, the stride after the last wrapped the `int` and the
/// loop went on at negative values (an illegal address or a hang).
fn shifted_all<T: Float>() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}; {}",
        gpu.name(),
        T::RUST_NAME
    );
    // Rows of 0 to 40 entries, a few hundred rows.
    let a: CsMat<T> = loops::io::generate::power_law(300, 200, 6.0, 2.0, false, seed);
    let da = gpu.upload_csr(&a).expect("upload");
    let mut tally = common::Tally::default();
    // 96, 128 and 160 values: the wider fused paths (8 or 16 values per lane under `warp`,
    // `group8`, `group4`), aligned and not.
    let cases: [(i32, i32, bool); 12] = [
        (i32::MAX - 96, i32::MAX, true),
        (i32::MAX - 96, i32::MAX, false),
        (-64, 64, true),
        (-64, 64, false),
        (-80, 80, true),
        (-80, 80, false),
        (i32::MAX - 7, i32::MAX, false),
        (i32::MAX - 8, i32::MAX, false),
        (i32::MAX - 100, i32::MAX, false),
        (i32::MAX - 100, i32::MAX, true),
        (-5, 27, true),
        (3, 3, false),
    ];
    for (case, &(s, e, aligned)) in cases.iter().enumerate() {
        let n = (e as i64 - s as i64) as usize;
        // x[j + off] for j in s..e lands at 1..=n (unaligned) or 4..n + 4 (aligned); a row of y
        // is w wide.
        let (first, w) = if aligned {
            (4i64, n as i64 + 8)
        } else {
            (1i64, n as i64 + 1)
        };
        let off = first - s as i64;
        let x: Vec<T> = loops::io::generate::random_vector(n + 8, seed.wrapping_add(case as u64));
        let dx = gpu.upload(&x).expect("upload x");
        let len = a.rows() * w as usize + 8;
        let mut want = vec![f64::NAN; len];
        let mut bound = vec![0.0; len];
        for (r, row) in a.outer_iterator().enumerate() {
            for jj in 0..n {
                let (mut sum, mut scale) = (0.0, 0.0);
                for (_, &v) in row.iter() {
                    let p = v.to_f64() * x[jj + first as usize].to_f64();
                    sum += p;
                    scale += p.abs();
                }
                let at = r * w as usize + jj + first as usize;
                want[at] = sum;
                bound[at] = expected_error_bound::<T>(row.nnz(), scale);
            }
        }
        for sch in kernels::spmm::shifted::SCHEDULES {
            let run = || -> loops::Result<(bool, String)> {
                let mut dy = poisoned::<T>(&gpu, len)?;
                kernels::spmm::shifted::launch(sch, &gpu, &da, &dx, &mut dy, s, e, w, off)?;
                let got = gpu.download(&dy)?;
                // Untouched elements stay poisoned; every written one is within its bound.
                for (i, g) in got.iter().enumerate() {
                    let g = g.to_f64();
                    let ok = if want[i].is_nan() {
                        g.is_nan()
                    } else {
                        (g - want[i]).abs() <= bound[i]
                    };
                    if !ok {
                        return Ok((false, format!("element {i}: got {g}, want {}", want[i])));
                    }
                }
                Ok((true, format!("{len} elements")))
            };
            tally.record(
                "shifted",
                &format!("lanes({s}..{e}) aligned={aligned} {sch}"),
                run().map_err(|e| e.to_string()),
            );
        }
    }
    tally.finish(1);
}

#[test]
fn lanes_near_i32_max_f32() {
    shifted_all::<f32>();
}

#[test]
fn lanes_near_i32_max_f64() {
    shifted_all::<f64>();
}
