//! The tile-set formats on the GPU: one SpMV computation written for CSR, CSC and COO, a segmented
//! sum over a plain `Offsets` layout, and SpMV over a tile subset (a frontier), each under every
//! schedule its kernel is instantiated with, on the generated matrices and every file of
//! ../shared/data/matrices, f32 and f64, against an f64 CPU reference. Outputs are NaN-poisoned
//! before each run (zeroed where a kernel adds into them with atomics) and inputs are fresh random
//! values each run. Also: upload/download round trips of every format through sprs.
//!
//! CSC is checked two ways: `y = A^T x` (one dot product per column, a tile reduction, poisoned
//! output) and `y = A x` (each column scatters its products into `y` with `atomic_add`).
#![cfg(feature = "gpu")]

mod common;
use loops_kernels as kernels;

use loops::check::{check_rows, check_spmv, RowCheck};
use loops::io::host::expected_error_bound;
use loops::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use sprs::{CsMat, TriMat};

/// One matrix, uploaded in every format.
struct Uploaded<T> {
    csr: DeviceCsr<T>,
    csc: DeviceCsc<T>,
    /// From a `TriMat` holding the entries in a random order: the upload sorts them by row.
    coo: DeviceCoo<T>,
    /// The matrix's row offsets as a plain layout; its atoms index the matrix's values.
    offsets: DeviceOffsets,
    values: DeviceBuffer<T>,
}

type Check<T> = fn(&Gpu, &str, &CsMat<T>, &Uploaded<T>, u64) -> loops::Result<RowCheck>;

fn poisoned<T: Float>(gpu: &Gpu, len: usize) -> loops::Result<DeviceBuffer<T>> {
    let mut b = gpu.zeros::<T>(len)?;
    gpu.fill(&mut b, T::POISON)?;
    Ok(b)
}

/// The entries of `a` as triplets in a random order.
fn shuffled_triplets<T: Float>(a: &CsMat<T>, seed: u64) -> TriMat<T> {
    let mut entries: Vec<(usize, usize, T)> = a.iter().map(|(&v, (r, c))| (r, c, v)).collect();
    entries.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    let mut t = TriMat::with_capacity(a.shape(), entries.len());
    for (r, c, v) in entries {
        t.add_triplet(r, c, v);
    }
    t
}

fn upload<T: Float>(gpu: &Gpu, a: &CsMat<T>, seed: u64) -> loops::Result<Uploaded<T>> {
    let indptr: Vec<usize> = a.indptr().raw_storage().to_vec();
    Ok(Uploaded {
        csr: gpu.upload_csr(a)?,
        csc: gpu.upload_csc(a)?,
        coo: gpu.upload_coo(&shuffled_triplets(a, seed))?,
        offsets: gpu.upload_offsets(&indptr)?,
        values: gpu.upload(a.data())?,
    })
}

fn spmv_csr<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    m: &Uploaded<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed);
    let dx = gpu.upload(&x)?;
    let mut dy = poisoned::<T>(gpu, a.rows())?;
    kernels::spmv::launch(schedule, gpu, &m.csr, &dx, &mut dy)?;
    Ok(check_spmv(a, &x, &gpu.download(&dy)?))
}

/// `y = A^T x` over the columns of a CSC matrix.
fn spmv_csc_transposed<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    m: &Uploaded<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    let x: Vec<T> = loops::io::generate::random_vector(a.rows(), seed);
    let dx = gpu.upload(&x)?;
    let mut dy = poisoned::<T>(gpu, a.cols())?;
    kernels::spmv_csc::transposed::launch(schedule, gpu, &m.csc, &dx, &mut dy)?;
    let at: CsMat<T> = a.transpose_view().to_owned();
    Ok(check_spmv(&at, &x, &gpu.download(&dy)?))
}

/// `y = A x` by atomic scatter over the columns of a CSC matrix.
fn spmv_csc_scatter<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    m: &Uploaded<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed);
    let dx = gpu.upload(&x)?;
    let mut dy = gpu.zeros::<T>(a.rows())?;
    kernels::spmv_csc::scatter::launch(schedule, gpu, &m.csc, &dx, &mut dy)?;
    Ok(check_spmv(a, &x, &gpu.download(&dy)?))
}

/// `y = A x` over the rows of a COO matrix (uploaded from shuffled triplets).
fn spmv_coo_rows<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    m: &Uploaded<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed);
    let dx = gpu.upload(&x)?;
    let mut dy = poisoned::<T>(gpu, a.rows())?;
    kernels::spmv_coo::rows::launch(schedule, gpu, &m.coo, &dx, &mut dy)?;
    Ok(check_spmv(a, &x, &gpu.download(&dy)?))
}

/// `y = A x` atom-major over the entries of a COO matrix, `atomic_add` into `y[a.tile_of(nz)]`.
fn spmv_coo_atoms<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    m: &Uploaded<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed);
    let dx = gpu.upload(&x)?;
    let mut dy = gpu.zeros::<T>(a.rows())?;
    kernels::spmv_coo::atoms::launch(schedule, gpu, &m.coo, &dx, &mut dy)?;
    Ok(check_spmv(a, &x, &gpu.download(&dy)?))
}

/// Row sums of the values through a plain offsets layout (the matrix's row offsets).
fn segment_sums<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    m: &Uploaded<T>,
    _seed: u64,
) -> loops::Result<RowCheck> {
    let mut ds = poisoned::<T>(gpu, a.rows())?;
    kernels::segment_sums::launch(schedule, gpu, &m.offsets, &m.values, &mut ds)?;
    let (mut want, mut bound) = (Vec::new(), Vec::new());
    for r in 0..a.rows() {
        let row = a.outer_view(r).expect("a row");
        want.push(row.iter().map(|(_, v)| v.to_f64()).sum::<f64>());
        let scale: f64 = row.iter().map(|(_, v)| v.to_f64().abs()).sum();
        bound.push(expected_error_bound::<T>(row.nnz(), scale));
    }
    Ok(check_rows(&gpu.download(&ds)?, &want, &bound))
}

/// SpMV over a random subset of the rows, listed in random order, with ids outside the matrix mixed
/// in (skipped by the kernel). Rows in the subset must match the reference; every other entry of
/// `y` must keep its value bit for bit.
fn spmv_frontier<T: Float>(
    gpu: &Gpu,
    schedule: &str,
    a: &CsMat<T>,
    m: &Uploaded<T>,
    seed: u64,
) -> loops::Result<RowCheck> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let fraction: f64 = rng.random_range(0.0..0.6);
    let mut frontier: Vec<u32> = (0..a.rows() as u32)
        .filter(|_| rng.random_bool(fraction))
        .collect();
    frontier.extend([a.rows() as u32, a.rows() as u32 + 7, u32::MAX]);
    // Repeated rows: each copy computes the row again (the segment schedules' prefix sum counts
    // its atoms once per copy).
    let repeats: Vec<u32> = frontier.iter().take(5).copied().collect();
    frontier.extend(repeats);
    frontier.shuffle(&mut rng);
    let mut active = vec![false; a.rows()];
    for &r in &frontier {
        if (r as usize) < a.rows() {
            active[r as usize] = true;
        }
    }
    let x: Vec<T> = loops::io::generate::random_vector(a.cols(), seed ^ 3);
    // Inactive rows hold values the kernel must leave alone; active rows start poisoned.
    let before: Vec<T> = loops::io::generate::random_vector::<T>(a.rows(), seed ^ 5)
        .into_iter()
        .zip(&active)
        .map(|(v, &on)| if on { T::POISON } else { v })
        .collect();
    let dx = gpu.upload(&x)?;
    let dfrontier = gpu.upload(&frontier)?;
    let mut dy = gpu.upload(&before)?;
    kernels::spmv_frontier::launch(schedule, gpu, &m.csr, &dfrontier, &dx, &mut dy)?;
    let y = gpu.download(&dy)?;
    let (want, bound): (Vec<f64>, Vec<f64>) = (0..a.rows())
        .map(|r| {
            if active[r] {
                let row = a.outer_view(r).expect("a row");
                let (mut s, mut scale) = (0.0, 0.0);
                for (c, v) in row.iter() {
                    let p = v.to_f64() * x[c].to_f64();
                    s += p;
                    scale += p.abs();
                }
                (s, expected_error_bound::<T>(row.nnz(), scale))
            } else {
                (before[r].to_f64(), 0.0)
            }
        })
        .collect();
    let mut check = check_rows(&y, &want, &bound);
    // Untouched means the same bits, not only the same value.
    for r in 0..a.rows() {
        if !active[r] && y[r].to_f64().to_bits() != before[r].to_f64().to_bits() {
            check.bad_rows += 1;
        }
    }
    Ok(check)
}

/// The kernels, their checks, and the schedules each is instantiated with.
fn checks<T: Float>() -> Vec<(&'static str, Check<T>, &'static [&'static str])> {
    vec![
        ("csr spmv", spmv_csr::<T>, kernels::spmv::SCHEDULES),
        (
            "csc A^T x",
            spmv_csc_transposed::<T>,
            kernels::spmv_csc::transposed::SCHEDULES,
        ),
        (
            "csc A x atomic",
            spmv_csc_scatter::<T>,
            kernels::spmv_csc::scatter::SCHEDULES,
        ),
        (
            "coo rows",
            spmv_coo_rows::<T>,
            kernels::spmv_coo::rows::SCHEDULES,
        ),
        (
            "coo atoms",
            spmv_coo_atoms::<T>,
            kernels::spmv_coo::atoms::SCHEDULES,
        ),
        (
            "offsets sums",
            segment_sums::<T>,
            kernels::segment_sums::SCHEDULES,
        ),
        (
            "csr frontier",
            spmv_frontier::<T>,
            kernels::spmv_frontier::SCHEDULES,
        ),
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
    for (i, (name, a)) in matrices.iter().enumerate() {
        let s = seed.wrapping_add(i as u64);
        let m = upload(&gpu, a, s).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (kernel, check, schedules) in checks::<T>() {
            for schedule in schedules {
                let key = format!("{kernel:<15} {schedule}");
                let outcome = check(&gpu, schedule, a, &m, s)
                    .map(|c| (c.passed(), c.to_string()))
                    .map_err(|e| e.to_string());
                tally.record(name, &key, outcome);
            }
        }
    }
    tally.finish(matrices.len());
}

#[test]
fn every_format_and_schedule_generated_f32() {
    run_all(common::generated_matrices::<f32>(common::fresh_seed()));
}

#[test]
fn every_format_and_schedule_generated_f64() {
    run_all(common::generated_matrices::<f64>(common::fresh_seed()));
}

#[test]
fn every_format_and_schedule_real_matrices_f32() {
    run_all(common::real_matrices::<f32>());
}

#[test]
fn every_format_and_schedule_real_matrices_f64() {
    run_all(common::real_matrices::<f64>());
}

/// Every format goes to the device and back to sprs unchanged: CSR and CSC as the same `CsMat`
/// (from either storage order), COO as the same triplets in row order, whatever order they came in.
#[test]
fn round_trips_through_sprs() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!("seed {seed} (replay with LOOPS_SEED={seed})");
    let mut matrices = common::generated_matrices::<f64>(seed);
    matrices.extend(common::real_matrices::<f64>());
    for (i, (name, a)) in matrices.iter().enumerate() {
        let csc = a.to_csc();
        for source in [a, &csc] {
            let back = gpu.download_csr(&gpu.upload_csr(source).unwrap()).unwrap();
            assert!(back.is_csr(), "{name}");
            assert_eq!(&back, a, "{name}: CSR round trip");
            let back = gpu.download_csc(&gpu.upload_csc(source).unwrap()).unwrap();
            assert!(back.is_csc(), "{name}");
            assert_eq!(back, csc, "{name}: CSC round trip");
            let back = gpu.download_coo(&gpu.upload_coo(source).unwrap()).unwrap();
            assert_eq!(
                back.to_csr::<usize>(),
                *a,
                "{name}: COO from CsMat round trip"
            );
        }
        let t = shuffled_triplets(a, seed.wrapping_add(i as u64));
        let dcoo = gpu.upload_coo(&t).unwrap();
        assert_eq!(
            (dcoo.rows(), dcoo.cols(), dcoo.nnz()),
            (a.rows(), a.cols(), a.nnz())
        );
        let back = gpu.download_coo(&dcoo).unwrap();
        let rows = back.row_inds();
        assert!(
            rows.windows(2).all(|w| w[0] <= w[1]),
            "{name}: COO sorted by row"
        );
        assert_eq!(
            back.to_csr::<usize>(),
            *a,
            "{name}: COO from TriMat round trip"
        );
    }
}

/// A tile set too large for 32-bit offsets is refused with the counts before any allocation: a
/// matrix with 2^31 columns and no entries needs no memory to describe.
#[test]
fn oversized_uploads_fail_before_allocating() {
    let gpu = common::gpu();
    let big = i32::MAX as usize + 1;
    let wide: CsMat<f32> = CsMat::new((2, big), vec![0, 0, 0], vec![], vec![]);
    for e in [
        gpu.upload_csr(&wide).unwrap_err(),
        gpu.upload_csc(&wide).unwrap_err(),
        gpu.upload_coo(&wide).unwrap_err(),
    ] {
        assert!(
            matches!(e, LoopsError::TooLarge { cols, .. } if cols == big),
            "{e}"
        );
    }
}

/// A subset whose tiles hold more atoms together than 32-bit offsets reach (one long row listed
/// 2,200 times: 2.2e9 atoms) is refused by the segment schedules, which need them at contiguous
/// offsets, with the count; nothing is launched, and the next launch on the handle works.
#[test]
fn oversized_subset_under_segment_schedules_is_refused() {
    let gpu = common::gpu();
    let long_row = 1_000_000usize;
    let a: CsMat<f32> = CsMat::new(
        (1, long_row),
        vec![0, long_row],
        (0..long_row).collect(),
        vec![1.0; long_row],
    );
    let m = gpu.upload_csr(&a).unwrap();
    let x = gpu.upload(&vec![1.0f32; long_row]).unwrap();
    let mut y = gpu.upload(&[f32::NAN]).unwrap();
    let repeated = gpu.upload(&vec![0u32; 2200]).unwrap();
    for schedule in ["work_oriented", "merge_path"] {
        let e =
            kernels::spmv_frontier::launch(schedule, &gpu, &m, &repeated, &x, &mut y).unwrap_err();
        assert!(
            matches!(e, LoopsError::SubsetAtomsTooLarge { atoms, .. } if atoms == 2_200_000_000),
            "{schedule}: {e}"
        );
        assert!(
            gpu.download(&y).unwrap()[0].is_nan(),
            "{schedule}: y was written"
        );
        let once = gpu.upload(&[0u32]).unwrap();
        kernels::spmv_frontier::launch(schedule, &gpu, &m, &once, &x, &mut y).unwrap();
        assert_eq!(gpu.download(&y).unwrap()[0], long_row as f32, "{schedule}");
        gpu.fill(&mut y, f32::NAN).unwrap();
    }
}
