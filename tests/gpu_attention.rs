//! Sparse attention on the GPU with no trip through the host: SDDMM (the `sddmm` op) gives each
//! stored entry of `A` its score `q_r · k_c`, a row softmax written as a `#[load_balanced]` kernel
//! (three atom loops: the largest score, the sum of exponentials, each entry's weight) turns the
//! scores into weights, `DeviceCsr::swap_values` makes those weights `A`'s values on the device,
//! and the `spmm` op multiplies by `V`. Checked against an f64 CPU reference on generated matrices
//! (power-law rows, empty rows, rectangular) and the real matrices, f32 and f64, under several
//! schedules of the softmax; `A`'s own values and every output are poisoned before the run.
#![cfg(feature = "gpu")]

mod common;

use loops::prelude::*;
use sprs::CsMat;

/// `out[nz] = exp(scale (s[nz] - max_row s)) / Σ_row exp(scale (s - max_row s))`, `s` being `A`'s
/// values: the softmax of each row's scaled scores.
macro_rules! attention_softmax {
    ($($schedule:tt)*) => {
        #[load_balanced($($schedule)*)]
        pub fn row_softmax<T: Float>(a: Csr<T>, scale: T, out: &mut [T]) {
            for row in a.tiles() {
                let mut m = T::NEG_INFINITY;
                for nz in a.atoms(row) {
                    m = max(m, a.values[nz]);
                }
                let mut sum = 0.0;
                for nz in a.atoms(row) {
                    sum += ((a.values[nz] - m) * scale).exp();
                }
                for nz in a.atoms(row) {
                    out[nz] = ((a.values[nz] - m) * scale).exp() / sum;
                }
            }
        }
    };
}

mod thread {
    use super::*;
    attention_softmax!(schedule = "thread");
}
mod warp {
    use super::*;
    attention_softmax!(schedule = "warp");
}
mod merge_path {
    use super::*;
    attention_softmax!(schedule = "merge_path");
}
mod auto {
    use super::*;
    attention_softmax!(schedule = "auto");
}

const SCHEDULES: &[&str] = &["thread", "warp", "merge_path", "auto"];

fn softmax<T: Float>(
    schedule: &str,
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    scale: T,
    out: &mut DeviceBuffer<T>,
) -> loops::Result<()> {
    match schedule {
        "thread" => thread::row_softmax(gpu, a, scale, out),
        "warp" => warp::row_softmax(gpu, a, scale, out),
        "merge_path" => merge_path::row_softmax(gpu, a, scale, out),
        "auto" => auto::row_softmax(gpu, a, scale, out),
        other => panic!("no schedule {other}"),
    }
}

/// The key and query width, and the value width.
const D: usize = 32;
const DV: usize = 24;

fn poisoned<T: Float>(gpu: &Gpu, n: usize) -> DeviceBuffer<T> {
    let mut b = gpu.zeros::<T>(n).unwrap();
    gpu.fill(&mut b, T::POISON).unwrap();
    b
}

/// The f64 reference of the chain, with per-entry bounds: the weights `p` (in `A`'s order) with
/// a relative bound per row, and `C = P V` with a bound per entry.
struct Reference {
    p: Vec<f64>,
    p_rel: Vec<f64>,
    c: Vec<f64>,
    c_bound: Vec<f64>,
}

fn reference<T: Float>(a: &CsMat<T>, q: &[T], k: &[T], v: &[T], scale: f64) -> Reference {
    let u = T::UNIT_ROUNDOFF;
    let f = |x: &[T]| x.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
    let (q, k, v) = (f(q), f(k), f(v));
    let mut p = vec![0.0; a.nnz()];
    let mut p_rel = vec![0.0; a.rows()];
    let mut c = vec![0.0; a.rows() * DV];
    let mut c_bound = vec![0.0; a.rows() * DV];
    let indptr = a.indptr();
    let indptr = indptr.to_proper();
    for r in 0..a.rows() {
        let (start, end) = (indptr[r], indptr[r + 1]);
        let n = end - start;
        if n == 0 {
            continue;
        }
        let cols = &a.indices()[start..end];
        // The scores, and the error bound of each (a dot product of D terms, any order).
        let mut s = Vec::with_capacity(n);
        let mut ds_max: f64 = 0.0;
        for &col in cols {
            let (qr, kc) = (&q[r * D..(r + 1) * D], &k[col * D..(col + 1) * D]);
            s.push(qr.iter().zip(kc).map(|(x, y)| x * y).sum::<f64>());
            let mag: f64 = qr.iter().zip(kc).map(|(x, y)| (x * y).abs()).sum();
            ds_max = ds_max.max(2.0 * (D as f64 + 1.0) * u * mag);
        }
        let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = s.iter().map(|s| ((s - m) * scale).exp()).collect();
        let total: f64 = e.iter().sum();
        for (i, e) in e.iter().enumerate() {
            p[start + i] = e / total;
        }
        // A weight's relative error: each score's error through the exponential (its own and the
        // sum's), the exponentials' and the sum's roundings, the division; doubled.
        p_rel[r] = 2.0 * (2.0 * scale * ds_max + (n as f64 + 8.0) * 4.0 * u);
        for j in 0..DV {
            let mut sum = 0.0;
            let mut mag = 0.0;
            for (i, &col) in cols.iter().enumerate() {
                let t = p[start + i] * v[col * DV + j];
                sum += t;
                mag += t.abs();
            }
            c[r * DV + j] = sum;
            c_bound[r * DV + j] = (p_rel[r] + 2.0 * (n as f64 + 1.0) * u) * mag * 1.01 + 1e-300;
        }
    }
    Reference {
        p,
        p_rel,
        c,
        c_bound,
    }
}

/// Runs the chain on `a` under every schedule of the softmax; returns the failures.
fn check_attention<T: Float>(gpu: &Gpu, name: &str, host: &CsMat<T>, seed: u64) -> Vec<String> {
    let (rows, cols, nnz) = (host.rows(), host.cols(), host.nnz());
    let q: Vec<T> = loops::io::generate::random_vector(rows * D, seed);
    let k: Vec<T> = loops::io::generate::random_vector(cols * D, seed ^ 0x6b);
    let v: Vec<T> = loops::io::generate::random_vector(cols * DV, seed ^ 0x76);
    let scale = 1.0 / (D as f64).sqrt();
    let want = reference(host, &q, &k, &v, T::from_f64(scale).to_f64());
    let (dq, dk, dv) = (
        gpu.upload(&q).unwrap(),
        gpu.upload(&k).unwrap(),
        gpu.upload(&v).unwrap(),
    );
    let mut failures = Vec::new();
    for &schedule in SCHEDULES {
        let what = format!(
            "{name} ({rows}x{cols}, {nnz} nnz), {}, {schedule}",
            T::RUST_NAME
        );
        // A's values are poison: SDDMM must not read them, and the weights must replace them.
        let mut a = gpu.upload_csr(host).unwrap();
        let mut scores = poisoned::<T>(gpu, nnz);
        let mut weights = poisoned::<T>(gpu, nnz);
        let mut c = poisoned::<T>(gpu, rows * DV);
        let mut values = poisoned::<T>(gpu, nnz);
        a.swap_values(&mut values).unwrap();
        // Scores -> A's values -> weights -> A's values -> C, all on the device.
        a.sddmm(gpu, &dq, &dk, D, &mut scores).unwrap();
        a.swap_values(&mut scores).unwrap();
        softmax(schedule, gpu, &a, T::from_f64(scale), &mut weights).unwrap();
        a.swap_values(&mut weights).unwrap();
        a.spmm(gpu, &dv, DV, &mut c).unwrap();

        let p = gpu.download(a.values()).unwrap();
        let got_c = gpu.download(&c).unwrap();
        let indptr = host.indptr();
        let indptr = indptr.to_proper();
        let bad_p = (0..rows)
            .flat_map(|r| (indptr[r]..indptr[r + 1]).map(move |i| (r, i)))
            .find(|&(r, i)| {
                let (g, w) = (p[i].to_f64(), want.p[i]);
                // NaN (the poison) is outside.
                let within = (g - w).abs() <= want.p_rel[r] * w + 1e-300;
                !within
            });
        if let Some((r, i)) = bad_p {
            failures.push(format!(
                "{what}: weight {i} (row {r}) is {:e}, want {:e} (relative bound {:e})",
                p[i].to_f64(),
                want.p[i],
                want.p_rel[r]
            ));
            continue;
        }
        let check = loops::check::check_rows(&got_c, &want.c, &want.c_bound);
        if !check.passed() {
            failures.push(format!("{what}: C = P V: {check}"));
        }
    }
    failures
}

fn run_all<T: Float>(matrices: Vec<(String, CsMat<T>)>) {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}",
        T::RUST_NAME
    );
    let mut failures = Vec::new();
    for (i, (name, a)) in matrices.iter().enumerate() {
        failures.extend(check_attention(&gpu, name, a, seed.wrapping_add(i as u64)));
    }
    println!(
        "{} matrices x {} schedules",
        matrices.len(),
        SCHEDULES.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn generated<T: Float>(seed: u64) -> Vec<(String, CsMat<T>)> {
    use loops::io::generate as g;
    vec![
        (
            "power-law 4000x3000 mean 12".into(),
            g::power_law(4_000, 3_000, 12.0, 2.0, false, seed),
        ),
        (
            "many empty rows 5000".into(),
            g::with_empty_rows(5_000, 5_000, 0.8, 6, seed + 1),
        ),
        (
            "one huge row 300 (2^14 atoms)".into(),
            g::one_huge_row(300, 1 << 14, 1 << 14, seed + 2),
        ),
        ("uniform 1x1".into(), g::uniform(1, 1, 1, seed + 3)),
        ("0 nnz 50x40".into(), g::empty(50, 40)),
    ]
}

#[test]
fn attention_chain_generated_f32() {
    run_all(generated::<f32>(common::fresh_seed()));
}

#[test]
fn attention_chain_generated_f64() {
    run_all(generated::<f64>(common::fresh_seed()));
}

#[test]
fn attention_chain_real_matrices_f32() {
    run_all(common::real_matrices::<f32>());
}

#[test]
fn attention_chain_real_matrices_f64() {
    run_all(common::real_matrices::<f64>());
}

/// The chain's one new call refuses a buffer of the wrong length, on the device too, and leaves
/// the matrix as it was.
#[test]
fn swap_values_refuses_the_wrong_length() {
    let gpu = common::gpu();
    let host = loops::io::generate::uniform::<f32>(100, 80, 5, 3);
    let mut a = gpu.upload_csr(&host).unwrap();
    let mut short = gpu.zeros::<f32>(host.nnz() - 1).unwrap();
    let e = a.swap_values(&mut short).unwrap_err();
    assert!(
        e.to_string()
            .contains(&format!("the new values have {} elements", host.nnz() - 1)),
        "{e}"
    );
    assert_eq!(gpu.download(a.values()).unwrap(), host.data());
    assert_eq!(short.len(), host.nnz() - 1);
}
