//! Every kernel of `examples/kernels` under every schedule it is instantiated with, on the GPU, against
//! an f64 CPU reference: the generated matrices and every file of ../shared/data/matrices, f32 and f64.
//! Outputs are poisoned (NaN) before each run and inputs are fresh random values each run; each entry
//! is checked against its own error bound. The rule under test: the code after the atom loop runs
//! exactly once per tile with the complete reduction, whatever the schedule splits the tile into.
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use loops::check::{check_rows, RowCheck};
use loops::io::host::{expected_error_bound, spmv_reference};
use loops::prelude::*;
use sprs::CsMat;

type Check<T> = fn(&Gpu, &str, &CsMat<T>, &DeviceCsr<T>, u64) -> loops::Result<RowCheck>;

fn poisoned<T: Float>(gpu: &Gpu, len: usize) -> loops::Result<DeviceBuffer<T>> {
    let mut b = gpu.zeros::<T>(len)?;
    gpu.fill(&mut b, T::POISON)?;
    Ok(b)
}

fn spmv<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed);
    let dx = gpu.upload(&x)?;
    let mut dy = poisoned::<T>(gpu, a.rows())?;
    kernels::spmv::launch(schedule, gpu, da, &dx, &mut dy)?;
    Ok(loops::check::check_spmv(a, &x, &gpu.download(&dy)?))
}

fn spmv_axpby<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed);
    let y0: Vec<T> = loops::io::generate::random_vector(a.rows(), seed ^ 1);
    let (alpha, beta) = (T::from_f64(1.5), T::from_f64(-0.75));
    let dx = gpu.upload(&x)?;
    let mut dy = gpu.upload(&y0)?;
    kernels::spmv_axpby::launch(schedule, gpu, da, &dx, &mut dy, alpha, beta)?;
    let (ax, scale) = spmv_reference(a, &x);
    let nnz = row_lengths(a);
    let want: Vec<f64> = (0..a.rows())
        .map(|r| 1.5 * ax[r] - 0.75 * y0[r].to_f64())
        .collect();
    // The product's bound, scaled by alpha, plus the rounding of the two products and the sum.
    let bound: Vec<f64> = (0..a.rows())
        .map(|r| {
            1.5 * expected_error_bound::<T>(nnz[r], scale[r])
                + 4.0 * T::UNIT_ROUNDOFF * (1.5 * scale[r] + 0.75 * y0[r].to_f64().abs())
        })
        .collect();
    Ok(check_rows(&gpu.download(&dy)?, &want, &bound))
}

fn spmm_k<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
    seed: u64,
    k: usize,
) -> loops::Result<RowCheck> {
    let b: Vec<T> = loops::io::generate::random_vector(a.cols() * k, seed);
    let db = gpu.upload(&b)?;
    let mut dc = poisoned::<T>(gpu, a.rows() * k)?;
    kernels::spmm::launch(schedule, gpu, da, &db, &mut dc, k)?;
    let (mut want, mut bound) = (vec![0.0; a.rows() * k], vec![0.0; a.rows() * k]);
    for j in 0..k {
        let column: Vec<T> = (0..a.cols()).map(|c| b[c * k + j]).collect();
        let (y, scale) = spmv_reference(a, &column);
        let nnz = row_lengths(a);
        for r in 0..a.rows() {
            want[r * k + j] = y[r];
            bound[r * k + j] = expected_error_bound::<T>(nnz[r], scale[r]);
        }
    }
    Ok(check_rows(&gpu.download(&dc)?, &want, &bound))
}

/// SpMM with `K` columns in `B`, as a [`Check`].
fn spmm<T: Float, const K: usize>(
    gpu: &Gpu,
    s: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    spmm_k(gpu, s, a, da, seed, K)
}

fn row_max_abs<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
    _seed: u64,
) -> loops::Result<RowCheck> {
    let mut dm = poisoned::<T>(gpu, a.rows())?;
    kernels::row_max_abs::launch(schedule, gpu, da, &mut dm)?;
    // Max is exact in any order: the bound is zero.
    let want: Vec<f64> = (0..a.rows())
        .map(|r| {
            a.outer_view(r).map_or(0.0, |row| {
                row.iter()
                    .map(|(_, v)| v.to_f64().abs())
                    .fold(0.0, f64::max)
            })
        })
        .collect();
    Ok(check_rows(&gpu.download(&dm)?, &want, &vec![0.0; a.rows()]))
}

fn column_sums<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
    _seed: u64,
) -> loops::Result<RowCheck> {
    // Atomics add into the output, so it starts at zero.
    let mut ds = gpu.zeros::<T>(a.cols())?;
    kernels::column_sums::launch(schedule, gpu, da, &mut ds)?;
    let (mut want, mut scale, mut count) = (
        vec![0.0; a.cols()],
        vec![0.0; a.cols()],
        vec![0usize; a.cols()],
    );
    for (v, (_, c)) in a.iter() {
        want[c] += v.to_f64();
        scale[c] += v.to_f64().abs();
        count[c] += 1;
    }
    let bound: Vec<f64> = (0..a.cols())
        .map(|c| expected_error_bound::<T>(count[c], scale[c]))
        .collect();
    Ok(check_rows(&gpu.download(&ds)?, &want, &bound))
}

/// `huber((A x)[row] - b[row], delta)` through the `#[device]` helpers `huber` and `square`: delta
/// 1 with random inputs takes both of its branches.
fn row_huber<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed);
    let b: Vec<T> = loops::io::generate::random_vector(a.rows(), seed ^ 1);
    let delta = 1.0;
    let (dx, db) = (gpu.upload(&x)?, gpu.upload(&b)?);
    let mut dl = poisoned::<T>(gpu, a.rows())?;
    kernels::row_huber::launch(schedule, gpu, da, &dx, &db, T::from_f64(delta), &mut dl)?;
    let (ax, scale) = spmv_reference(a, &x);
    let nnz = row_lengths(a);
    let huber = |r: f64| {
        if r.abs() <= delta {
            0.5 * r * r
        } else {
            delta * (r.abs() - 0.5 * delta)
        }
    };
    let u = T::UNIT_ROUNDOFF;
    let (mut want, mut bound) = (Vec::new(), Vec::new());
    for r in 0..a.rows() {
        let residual = ax[r] - b[r].to_f64();
        // The residual's error (the product's, then the subtraction's rounding) through a function
        // whose slope is at most delta, plus the rounding of the function's own few operations.
        let e = expected_error_bound::<T>(nnz[r], scale[r])
            + 2.0 * u * (scale[r] + b[r].to_f64().abs());
        want.push(huber(residual));
        bound.push(delta * e + 8.0 * u * (huber(residual) + delta * (residual.abs() + delta)));
    }
    Ok(check_rows(&gpu.download(&dl)?, &want, &bound))
}

fn row_lengths<T: Float>(a: &CsMat<T>) -> Vec<usize> {
    (0..a.rows())
        .map(|r| a.outer_view(r).map_or(0, |v| v.nnz()))
        .collect()
}

/// The kernels, their checks, and the schedules each is instantiated with.
fn checks<T: Float>() -> Vec<(&'static str, Check<T>, &'static [&'static str])> {
    vec![
        ("spmv", spmv::<T>, kernels::spmv::SCHEDULES),
        (
            "spmv_axpby",
            spmv_axpby::<T>,
            kernels::spmv_axpby::SCHEDULES,
        ),
        ("spmm k=1", spmm::<T, 1>, kernels::spmm::SCHEDULES),
        ("spmm k=7", spmm::<T, 7>, kernels::spmm::SCHEDULES),
        ("spmm k=32", spmm::<T, 32>, kernels::spmm::SCHEDULES),
        (
            "row_max_abs",
            row_max_abs::<T>,
            kernels::row_max_abs::SCHEDULES,
        ),
        (
            "column_sums",
            column_sums::<T>,
            kernels::column_sums::SCHEDULES,
        ),
        ("row_huber", row_huber::<T>, kernels::row_huber::SCHEDULES),
    ]
}

fn run_all<T: Float>(matrices: Vec<(String, CsMat<T>)>) {
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
        for (kernel, check, schedules) in checks::<T>() {
            // The host reference of SpMM with 32 columns is slow on big matrices: keep k=32 to those
            // under a million entries (every generated and real matrix today).
            if kernel == "spmm k=32" && a.nnz() > 1_000_000 {
                continue;
            }
            for schedule in schedules {
                let key = format!("{kernel:<12} {schedule}");
                let outcome = check(&gpu, schedule, a, &da, seed.wrapping_add(m as u64))
                    .map(|c| (c.passed(), c.to_string()))
                    .map_err(|e| e.to_string());
                tally.record(name, &key, outcome);
            }
        }
    }
    tally.finish(matrices.len());
}

#[test]
fn every_kernel_and_schedule_generated_f32() {
    run_all(common::generated_matrices::<f32>(common::fresh_seed()));
}

#[test]
fn every_kernel_and_schedule_generated_f64() {
    run_all(common::generated_matrices::<f64>(common::fresh_seed()));
}

#[test]
fn every_kernel_and_schedule_real_matrices_f32() {
    run_all(common::real_matrices::<f32>());
}

#[test]
fn every_kernel_and_schedule_real_matrices_f64() {
    run_all(common::real_matrices::<f64>());
}

/// `launch` runs the module of the schedule it is given by name (`spmv` is stamped under every
/// name of `loops::SCHEDULES`), each checked against the CPU reference with `y` poisoned before;
/// a name the kernel is not stamped under (the slip `mergepath`) is an error that names its
/// schedules, and launches nothing: `y` stays poisoned.
fn launch_by_name<T: Float>() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); {}",
        T::RUST_NAME
    );
    for (name, a) in common::generated_matrices::<T>(seed).into_iter().take(3) {
        let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed);
        let da = gpu.upload_csr(&a).unwrap();
        let dx = gpu.upload(&x).unwrap();
        for schedule in loops::SCHEDULES {
            let mut dy = poisoned::<T>(&gpu, a.rows()).unwrap();
            kernels::spmv::launch(schedule.name, &gpu, &da, &dx, &mut dy)
                .unwrap_or_else(|e| panic!("{name} {}: {e}", schedule.name));
            let check = loops::check::check_spmv(&a, &x, &gpu.download(&dy).unwrap());
            assert!(check.passed(), "{name} {}: {check}", schedule.name);
        }
        let mut dy = poisoned::<T>(&gpu, a.rows()).unwrap();
        let err = kernels::spmv::launch("mergepath", &gpu, &da, &dx, &mut dy).unwrap_err();
        assert!(matches!(err, LoopsError::InvalidArgument { .. }), "{err}");
        assert!(err.to_string().contains("merge_path12"), "{err}");
        let y = gpu.download(&dy).unwrap();
        assert!(
            y.iter().all(|v| v.to_f64().is_nan()),
            "{name}: a launch ran"
        );
    }
}

#[test]
fn launch_by_schedule_name_f32() {
    launch_by_name::<f32>();
}

#[test]
fn launch_by_schedule_name_f64() {
    launch_by_name::<f64>();
}
