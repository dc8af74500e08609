//! Rust's forms the kernel language takes, on the GPU under the schedules they matter to, against
//! an f64 CPU reference on fresh random inputs (outputs poisoned before each run), f32 and f64:
//!
//! - `let`s before a tile-invariant loop around the atom loop (`let deg = ..; for j in 0..k { .. }`),
//!   which the carry schedules run at the start of each round;
//! - the path forms of the math methods (`T::max(a, b)`, `T::recip(x)`), `if` / `else` as a value,
//!   and an unsuffixed literal typed by its later use (`let mut c = 0; c += flags[..]`: a `u32`).
#![cfg(feature = "gpu")]

mod common;

use loops::check::{check_rows, RowCheck};
use loops::io::host::{expected_error_bound, spmv_reference};
use loops::prelude::*;
use sprs::CsMat;

/// `C = D^-1 A B` (each row of `A B` divided by the row's entry count) with `B` of `k` columns:
/// the row's degree and its reciprocal are `let`s before the loop over the columns.
macro_rules! spmm_mean {
    ($($schedule:tt)*) => {
        #[load_balanced($($schedule)*)]
        pub fn spmm_mean<T: Float>(a: Csr<T>, b: &[T], c: &mut [T], k: usize) {
            for row in a.tiles() {
                let deg = a.row_offsets[row + 1] - a.row_offsets[row];
                let scale = if deg > 0 { T::recip(T::from(deg)) } else { 0.0 };
                for j in 0..k {
                    let mut sum = 0.0;
                    for nz in a.atoms(row) {
                        sum += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j];
                    }
                    c[row * k + j] = sum * scale;
                }
            }
        }
    };
}

/// Per row: how many entries have a flagged column (`c`, a `u32` from its use), and the largest
/// value among them (`T::NEG_INFINITY` if none).
macro_rules! flagged_max {
    ($($schedule:tt)*) => {
        #[load_balanced($($schedule)*)]
        pub fn flagged_max<T: Float>(a: Csr<T>, flags: &[u32], count: &mut [u32], best: &mut [T]) {
            for row in a.tiles() {
                let mut c = 0;
                let mut m = T::NEG_INFINITY;
                for nz in a.atoms(row) {
                    let f = flags[a.col_indices[nz] as usize];
                    c += f;
                    m = T::max(m, if f != 0 { a.values[nz] } else { T::NEG_INFINITY });
                }
                count[row] = c;
                best[row] = m;
            }
        }
    };
}

/// A module per schedule holding both kernels under it.
macro_rules! both {
    ($module:ident, $($attr:tt)*) => {
        mod $module {
            use super::*;
            spmm_mean!($($attr)*);
            flagged_max!($($attr)*);
        }
    };
}

both!(thread, schedule = "thread");
both!(warp, schedule = "warp");
both!(merge_path, schedule = "merge_path");
both!(work_oriented, schedule = "work_oriented");
both!(
    work_oriented16,
    schedule = "work_oriented",
    items_per_thread = 16
);
both!(split, schedule = "split");
both!(lrb, schedule = "lrb");
both!(auto, schedule = "auto");

/// `spmm_mean` has a loop around its atom loop, which `hierarchical` refuses.
mod hierarchical {
    use super::*;
    flagged_max!(schedule = "hierarchical");
}

const SPMM_MEAN: &[&str] = &[
    "thread",
    "warp",
    "merge_path",
    "work_oriented",
    "work_oriented16",
    "split",
    "lrb",
    "auto",
];
const FLAGGED_MAX: &[&str] = &[
    "thread",
    "warp",
    "merge_path",
    "work_oriented",
    "work_oriented16",
    "split",
    "hierarchical",
    "lrb",
    "auto",
];

fn launch_spmm_mean<T: Float>(
    schedule: &str,
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    b: &DeviceBuffer<T>,
    c: &mut DeviceBuffer<T>,
    k: usize,
) -> loops::Result<()> {
    match schedule {
        "thread" => thread::spmm_mean(gpu, a, b, c, k),
        "warp" => warp::spmm_mean(gpu, a, b, c, k),
        "merge_path" => merge_path::spmm_mean(gpu, a, b, c, k),
        "work_oriented" => work_oriented::spmm_mean(gpu, a, b, c, k),
        "work_oriented16" => work_oriented16::spmm_mean(gpu, a, b, c, k),
        "split" => split::spmm_mean(gpu, a, b, c, k),
        "lrb" => lrb::spmm_mean(gpu, a, b, c, k),
        "auto" => auto::spmm_mean(gpu, a, b, c, k),
        other => panic!("spmm_mean has no schedule `{other}`"),
    }
}

fn launch_flagged_max<T: Float>(
    schedule: &str,
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    flags: &DeviceBuffer<u32>,
    count: &mut DeviceBuffer<u32>,
    best: &mut DeviceBuffer<T>,
) -> loops::Result<()> {
    match schedule {
        "thread" => thread::flagged_max(gpu, a, flags, count, best),
        "warp" => warp::flagged_max(gpu, a, flags, count, best),
        "merge_path" => merge_path::flagged_max(gpu, a, flags, count, best),
        "work_oriented" => work_oriented::flagged_max(gpu, a, flags, count, best),
        "work_oriented16" => work_oriented16::flagged_max(gpu, a, flags, count, best),
        "split" => split::flagged_max(gpu, a, flags, count, best),
        "hierarchical" => hierarchical::flagged_max(gpu, a, flags, count, best),
        "lrb" => lrb::flagged_max(gpu, a, flags, count, best),
        "auto" => auto::flagged_max(gpu, a, flags, count, best),
        other => panic!("flagged_max has no schedule `{other}`"),
    }
}

fn row_lengths<T: Float>(a: &CsMat<T>) -> Vec<usize> {
    (0..a.rows())
        .map(|r| a.outer_view(r).map_or(0, |v| v.nnz()))
        .collect()
}

fn check_spmm_mean<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
    seed: u64,
    k: usize,
) -> loops::Result<RowCheck> {
    let b: Vec<T> = loops::io::generate::random_vector(a.cols() * k, seed);
    let db = gpu.upload(&b)?;
    let mut dc = gpu.zeros::<T>(a.rows() * k)?;
    gpu.fill(&mut dc, T::POISON)?;
    launch_spmm_mean(schedule, gpu, da, &db, &mut dc, k)?;
    let nnz = row_lengths(a);
    let (mut want, mut bound) = (vec![0.0; a.rows() * k], vec![0.0; a.rows() * k]);
    for j in 0..k {
        let column: Vec<T> = (0..a.cols()).map(|c| b[c * k + j]).collect();
        let (y, scale) = spmv_reference(a, &column);
        for r in 0..a.rows() {
            let deg = nnz[r].max(1) as f64;
            want[r * k + j] = if nnz[r] == 0 { 0.0 } else { y[r] / deg };
            // The sum's bound, and the rounding of the reciprocal and of the product.
            bound[r * k + j] = (expected_error_bound::<T>(nnz[r], scale[r])
                + 4.0 * T::UNIT_ROUNDOFF * scale[r])
                / deg;
        }
    }
    Ok(check_rows(&gpu.download(&dc)?, &want, &bound))
}

fn check_flagged_max<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    da: &DeviceCsr<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    let flags: Vec<u32> = loops::io::generate::random_vector::<f64>(a.cols(), seed)
        .iter()
        .map(|v| u32::from(*v > 0.0))
        .collect();
    let dflags = gpu.upload(&flags)?;
    let mut dcount = gpu.zeros::<u32>(a.rows())?;
    gpu.fill(&mut dcount, u32::MAX)?;
    let mut dbest = gpu.zeros::<T>(a.rows())?;
    gpu.fill(&mut dbest, T::POISON)?;
    launch_flagged_max(schedule, gpu, da, &dflags, &mut dcount, &mut dbest)?;
    let (mut count, mut best) = (Vec::new(), Vec::new());
    for r in 0..a.rows() {
        let (mut c, mut m) = (0u32, f64::NEG_INFINITY);
        if let Some(row) = a.outer_view(r) {
            for (col, v) in row.iter() {
                if flags[col] != 0 {
                    c += 1;
                    m = m.max(v.to_f64());
                }
            }
        }
        count.push(f64::from(c));
        best.push(m);
    }
    // Counts and maxima are exact in any order.
    let got_count: Vec<f64> = gpu
        .download(&dcount)?
        .iter()
        .map(|&c| f64::from(c))
        .collect();
    let counted = check_rows(&got_count, &count, &vec![0.0; a.rows()]);
    if !counted.passed() {
        return Ok(counted);
    }
    Ok(check_rows(
        &gpu.download(&dbest)?,
        &best,
        &vec![0.0; a.rows()],
    ))
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
    for (m, (name, a)) in matrices.iter().enumerate() {
        let da = gpu.upload_csr(a).unwrap_or_else(|e| panic!("{name}: {e}"));
        let seed = seed.wrapping_add(m as u64);
        for k in [1, 5] {
            for schedule in SPMM_MEAN {
                let outcome = check_spmm_mean(&gpu, schedule, a, &da, seed, k)
                    .map(|c| (c.passed(), c.to_string()))
                    .map_err(|e| e.to_string());
                tally.record(name, &format!("spmm_mean k={k} {schedule}"), outcome);
            }
        }
        for schedule in FLAGGED_MAX {
            let outcome = check_flagged_max(&gpu, schedule, a, &da, seed)
                .map(|c| (c.passed(), c.to_string()))
                .map_err(|e| e.to_string());
            tally.record(name, &format!("flagged_max {schedule}"), outcome);
        }
    }
    tally.finish(matrices.len());
}

#[test]
fn lets_before_rounds_path_forms_and_inferred_literals_f32() {
    run_all::<f32>();
}

#[test]
fn lets_before_rounds_path_forms_and_inferred_literals_f64() {
    run_all::<f64>();
}
