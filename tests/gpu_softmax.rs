//! The three-loop row softmax of `examples/kernels/row_softmax.rs` (the largest value, the sum of
//! the shifted exponentials, each entry's share) on the GPU under every schedule, `work_oriented16`
//! included (issue 37: accepted by the macro, refused by ptxas at load for its shared memory), and
//! with 64 items per thread under `work_oriented` and `merge_path` (shared arrays past 48 KiB, in
//! dynamic shared memory opted into at launch); and sparse attention's softmax of scaled scores.
//! f32 and f64, on the generated matrices (fresh random values each run), outputs poisoned (NaN)
//! before each run, every stored entry checked against an f64 CPU reference within its own bound.
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use loops::check::check_rows;
use loops::prelude::*;
use sprs::CsMat;

fn poisoned<T: Float>(gpu: &Gpu, len: usize) -> loops::Result<DeviceBuffer<T>> {
    let mut b = gpu.zeros::<T>(len)?;
    gpu.fill(&mut b, T::POISON)?;
    Ok(b)
}

/// The softmax of each row of `x` (one value per stored entry of `a`, scaled by `scale`) in f64,
/// and each entry's error bound for type `T`: the exponential's rounding and the sum's (in any
/// order, over the row's entries), relative to the result.
fn reference<T: Float>(a: &CsMat<T>, x: &[T], scale: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut want, mut bound) = (vec![0.0; a.nnz()], vec![0.0; a.nnz()]);
    let offsets = a.indptr().into_raw_storage().to_vec();
    for r in 0..a.rows() {
        let (lo, hi) = (offsets[r], offsets[r + 1]);
        if lo == hi {
            continue;
        }
        let v: Vec<f64> = x[lo..hi].iter().map(|e| scale * e.to_f64()).collect();
        let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = v.iter().map(|e| (e - m).exp()).sum();
        let n = (hi - lo) as f64;
        for (i, e) in v.iter().enumerate() {
            let p = (e - m).exp() / sum;
            want[lo + i] = p;
            // The scaled value's rounding moves the exponent by up to |e| ulps.
            let spread = 1.0 + (e.abs() + m.abs());
            bound[lo + i] = 8.0 * T::UNIT_ROUNDOFF * (n + 16.0) * spread * p + f64::MIN_POSITIVE;
        }
    }
    (want, bound)
}

fn row_softmax<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
) -> loops::Result<(bool, String)> {
    let mut out = poisoned::<T>(gpu, a.nnz())?;
    if kernels::row_softmax::wide_segments::SCHEDULES.contains(&schedule) {
        kernels::row_softmax::wide_segments::launch(schedule, gpu, da, &mut out)?;
    } else {
        kernels::row_softmax::launch(schedule, gpu, da, &mut out)?;
    }
    let (want, bound) = reference(a, a.data(), 1.0);
    let check = check_rows(&gpu.download(&out)?, &want, &bound);
    Ok((check.passed(), check.to_string()))
}

fn attention_softmax<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
    seed: u64,
) -> loops::Result<(bool, String)> {
    let scores: Vec<T> = loops::io::generate::random_vector(a.nnz(), seed);
    let scale = 0.125;
    let ds = gpu.upload(&scores)?;
    let mut probs = poisoned::<T>(gpu, a.nnz())?;
    kernels::row_softmax::attention::launch(
        schedule,
        gpu,
        da,
        &ds,
        T::from_f64(scale),
        &mut probs,
    )?;
    let (want, bound) = reference(a, &scores, scale);
    let check = check_rows(&gpu.download(&probs)?, &want, &bound);
    Ok((check.passed(), check.to_string()))
}

fn run_all<T: Float>() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}; {}",
        gpu.name(),
        T::RUST_NAME
    );
    let matrices = common::generated_matrices::<T>(seed);
    let mut tally = common::Tally::default();
    let schedules: Vec<&str> = kernels::row_softmax::SCHEDULES
        .iter()
        .chain(kernels::row_softmax::wide_segments::SCHEDULES)
        .copied()
        .collect();
    assert!(schedules.contains(&"work_oriented16"));
    for (m, (name, a)) in matrices.iter().enumerate() {
        let da = gpu.upload_csr(a).unwrap_or_else(|e| panic!("{name}: {e}"));
        for schedule in &schedules {
            let outcome = row_softmax(&gpu, schedule, a, &da).map_err(|e| e.to_string());
            tally.record(name, &format!("row_softmax       {schedule}"), outcome);
        }
        for schedule in kernels::row_softmax::attention::SCHEDULES {
            let outcome = attention_softmax(&gpu, schedule, a, &da, seed ^ (m as u64 + 1))
                .map_err(|e| e.to_string());
            tally.record(name, &format!("attention_softmax {schedule}"), outcome);
        }
    }
    tally.finish(matrices.len());
}

#[test]
fn three_loop_softmax_under_every_schedule_f32() {
    run_all::<f32>();
}

#[test]
fn three_loop_softmax_under_every_schedule_f64() {
    run_all::<f64>();
}
