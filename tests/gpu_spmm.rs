//! `spmm` and `sddmm` of `loops::ops` on the GPU against f64 CPU references: every k of
//! {1,2,3,4,5,8,16,31,32,33,64,128} (odd k take the one-element loads), f32 and f64, the generated
//! shapes (empty rows, one very long row, power-law, ...) and every real matrix, outputs poisoned
//! (NaN) before each run. SpMM runs as the op (`auto`) and under each mapping forced (one group per
//! row; rows capped, the long rows' tails added by a second kernel with atomics), so both kernels
//! are checked on every case.
#![cfg(feature = "gpu")]

mod common;
#[path = "../examples/bench/dense_check.rs"]
mod dense_check;

use dense_check::{sample_rows, DenseReference};
use loops::prelude::*;
use loops::runtime::ops::spmm::{spmm_with, SpmmMapping};

const KS: [usize; 12] = [1, 2, 3, 4, 5, 8, 16, 31, 32, 33, 64, 128];

/// Every matrix: generated (with the real ones' seed) then real.
fn matrices<T: Float>(seed: u64) -> Vec<(String, sprs::CsMat<T>)> {
    let mut all = common::generated_matrices::<T>(seed);
    all.extend(common::real_matrices::<T>());
    all
}

/// Runs `what` on one case and checks it; a line for the log, Err on failure.
fn checked<T: Float>(
    gpu: &Gpu,
    out: &mut DeviceBuffer<T>,
    reference: &DenseReference,
    what: &str,
    run: impl FnOnce(&Gpu, &mut DeviceBuffer<T>) -> Result<(), LoopsError>,
) -> Result<(), String> {
    gpu.fill(out, T::POISON).map_err(|e| e.to_string())?;
    run(gpu, out).map_err(|e| format!("{what}: {e}"))?;
    let got = gpu.download(out).map_err(|e| e.to_string())?;
    let check = reference.check(&got);
    if check.passed() {
        Ok(())
    } else {
        Err(format!("{what}: {check}"))
    }
}

fn spmm_all<T: Float>() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); device {}",
        gpu.name()
    );
    let mut failures = Vec::new();
    let mut cases = 0;
    for (i, (name, a)) in matrices::<T>(seed).iter().enumerate() {
        let da = gpu.upload_csr(a).expect("upload");
        let rows = sample_rows(a, None);
        for &k in &KS {
            let b: Vec<T> =
                loops::generate::random_vector(a.cols() * k, seed ^ (i * 131 + k) as u64);
            let reference = DenseReference::spmm(a, &b, k, &rows);
            let db = gpu.upload(&b).expect("upload b");
            let mut dc = gpu.zeros::<T>(a.rows() * k).expect("c");
            let mut line = Vec::new();
            let mut record = |r: Result<(), String>| match r {
                Ok(()) => line.push("ok"),
                Err(e) => {
                    line.push("FAIL");
                    failures.push(format!("{name} k={k} {}: {e}", T::RUST_NAME));
                }
            };
            record(checked(&gpu, &mut dc, &reference, "op", |g, c| {
                da.spmm(g, &db, k, c)
            }));
            for mapping in [SpmmMapping::Rows, SpmmMapping::Split] {
                let what = format!("{mapping:?}");
                record(checked(&gpu, &mut dc, &reference, &what, |g, c| {
                    spmm_with(g, &da, &db, k, c, mapping).map(|_| ())
                }));
            }
            cases += 1;
            println!(
                "{name:<36} {:>8} x {:<8} nnz {:>9} k {k:>3} {}: op/rows/split {}",
                a.rows(),
                a.cols(),
                a.nnz(),
                T::RUST_NAME,
                line.join("/")
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures in {cases} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn sddmm_all<T: Float>() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); device {}",
        gpu.name()
    );
    let mut failures = Vec::new();
    let mut cases = 0;
    for (i, (name, a)) in matrices::<T>(seed).iter().enumerate() {
        let da = gpu.upload_csr(a).expect("upload");
        let rows = sample_rows(a, None);
        for &k in &KS {
            let s = seed ^ (i * 131 + k) as u64;
            let x: Vec<T> = loops::generate::random_vector(a.rows() * k, s);
            let y: Vec<T> = loops::generate::random_vector(a.cols() * k, s ^ 0x9e37);
            let reference = DenseReference::sddmm(a, &x, &y, k, &rows);
            let dx = gpu.upload(&x).expect("upload x");
            let dy = gpu.upload(&y).expect("upload y");
            let mut out = gpu.zeros::<T>(a.nnz()).expect("out");
            let r = checked(&gpu, &mut out, &reference, "sddmm", |g, o| {
                da.sddmm(g, &dx, &dy, k, o)
            });
            cases += 1;
            println!(
                "{name:<36} {:>8} x {:<8} nnz {:>9} k {k:>3} {}: {}",
                a.rows(),
                a.cols(),
                a.nnz(),
                T::RUST_NAME,
                if r.is_ok() { "ok" } else { "FAIL" }
            );
            if let Err(e) = r {
                failures.push(format!("{name} k={k} {}: {e}", T::RUST_NAME));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures in {cases} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn spmm_f32_matches_the_cpu() {
    spmm_all::<f32>();
}

#[test]
fn spmm_f64_matches_the_cpu() {
    spmm_all::<f64>();
}

#[test]
fn sddmm_f32_matches_the_cpu() {
    sddmm_all::<f32>();
}

#[test]
fn sddmm_f64_matches_the_cpu() {
    sddmm_all::<f64>();
}

/// Bad arguments are errors before anything runs, and leave the output alone.
#[test]
fn bad_arguments_are_errors() {
    let gpu = common::gpu();
    let a = gpu
        .upload_csr(&loops::generate::uniform::<f32>(100, 80, 4, 1))
        .unwrap();
    let b = gpu.zeros::<f32>(80 * 8).unwrap();
    let mut c = gpu.zeros::<f32>(100 * 8).unwrap();
    gpu.fill(&mut c, 7.0).unwrap();
    let is_invalid = |e: LoopsError| matches!(e, LoopsError::InvalidArgument { .. });
    let is_short = |e: LoopsError| matches!(e, LoopsError::BufferTooShort { .. });
    assert!(is_invalid(a.spmm(&gpu, &b, 0, &mut c).unwrap_err()));
    assert!(is_short(a.spmm(&gpu, &b, 9, &mut c).unwrap_err()));
    let mut short_c = gpu.zeros::<f32>(100 * 8 - 1).unwrap();
    assert!(is_short(a.spmm(&gpu, &b, 8, &mut short_c).unwrap_err()));
    assert!(is_short(
        a.spmm(&gpu, &b, 1, &mut gpu.zeros::<f32>(99).unwrap())
            .unwrap_err()
    ));
    assert!(is_invalid(
        a.spmm(&gpu, &b, usize::MAX / 2, &mut c).unwrap_err()
    ));
    assert!(gpu.download(&c).unwrap().iter().all(|&v| v == 7.0));

    let x = gpu.zeros::<f32>(100 * 4).unwrap();
    let y = gpu.zeros::<f32>(80 * 4).unwrap();
    let mut out = gpu.zeros::<f32>(a.nnz()).unwrap();
    assert!(is_invalid(a.sddmm(&gpu, &x, &y, 0, &mut out).unwrap_err()));
    assert!(is_short(a.sddmm(&gpu, &x, &y, 5, &mut out).unwrap_err()));
    let mut short_out = gpu.zeros::<f32>(a.nnz() - 1).unwrap();
    assert!(is_short(
        a.sddmm(&gpu, &x, &y, 4, &mut short_out).unwrap_err()
    ));
    a.sddmm(&gpu, &x, &y, 4, &mut out).unwrap();
}

/// The doc examples of `CsrOps::spmm` and `CsrOps::sddmm`, run.
#[test]
fn doc_examples() {
    let gpu = Gpu::new(0).unwrap();
    // A = [[1, 2], [0, 3]], B = [[1, 0, 2], [4, 1, 0]] (k = 3).
    let a = sprs::CsMat::new((2, 2), vec![0, 2, 3], vec![0, 1, 1], vec![1.0f32, 2.0, 3.0]);
    let a = gpu.upload_csr(&a).unwrap();
    let b = gpu.upload(&[1.0f32, 0.0, 2.0, 4.0, 1.0, 0.0]).unwrap();
    let mut c = gpu.zeros::<f32>(2 * 3).unwrap();
    a.spmm(&gpu, &b, 3, &mut c).unwrap();
    assert_eq!(
        gpu.download(&c).unwrap(),
        vec![9.0, 2.0, 2.0, 12.0, 3.0, 0.0]
    );

    // out[nz] = x[row] · y[col] at (0,0), (0,1), (1,1), with k = 2.
    let x = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let y = gpu.upload(&[5.0f32, 6.0, 7.0, 8.0]).unwrap();
    let mut out = gpu.zeros::<f32>(3).unwrap();
    a.sddmm(&gpu, &x, &y, 2, &mut out).unwrap();
    assert_eq!(gpu.download(&out).unwrap(), vec![17.0, 23.0, 53.0]);
}
