//! `segmented_sort` and `transpose` on the GPU against their CPU references, exactly (every column
//! index, row index and value, bit for bit): rows of every length class of the sort's bins
//! (0, 1, 2..32, 33..4096, longer, up to 131073 entries: five and six merge passes), repeated
//! columns in a row (stability: each value is its entry's original position, so an unstable sort
//! shows), the generated shapes and the real matrices with each row's entries shuffled, f32 and
//! f64.
#![cfg(feature = "gpu")]

mod common;

use loops::io::host::Csc32;
use loops::io::host::Csr32;
use loops::ops::sort::{shuffle_rows, sort_rows_reference};
use loops::ops::transpose::transpose_reference;
use loops::prelude::*;
use rand::{Rng, SeedableRng};

/// A host CSR matrix with the given row lengths, columns drawn from `0..cols` (repeats likely),
/// each value its entry's position (exact in f32 below 2^24 entries).
fn with_lengths<T: Float>(lengths: &[usize], cols: usize, seed: u64) -> Csr32<T> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut offsets = vec![0i32];
    let mut indices = Vec::new();
    for &len in lengths {
        indices.extend((0..len).map(|_| rng.random_range(0..cols as i32)));
        offsets.push(indices.len() as i32);
    }
    let values = (0..indices.len()).map(|i| T::from_f64(i as f64)).collect();
    Csr32::from_parts(lengths.len(), cols, offsets, indices, values).expect("valid parts")
}

/// The matrices of the test, as host CSR with each row's entries shuffled, by name; `Some(m)` is
/// the sprs matrix it came from (no repeated entries), whose CSC the transpose must equal too.
fn matrices<T: Float>(seed: u64) -> Vec<(String, Csr32<T>, Option<sprs::CsMat<T>>)> {
    let mut classes: Vec<usize> = (0..=40).collect();
    classes.extend([
        50, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025,
        2047, 2048, 2049, 3000, 4095, 4096, 4097, 5000, 8192, 8193, 16_385, 100_000, 131_073,
    ]);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x5027);
    let many_short: Vec<usize> = (0..30_000).map(|_| rng.random_range(0..=70)).collect();
    let many_long: Vec<usize> = (0..600).map(|_| rng.random_range(0..=12_000)).collect();
    let mut out: Vec<(String, Csr32<T>, Option<sprs::CsMat<T>>)> = vec![
        (
            "every length class, 1000 columns".into(),
            with_lengths(&classes, 1000, seed),
            None,
        ),
        (
            "every length class, 7 columns (repeats)".into(),
            with_lengths(&classes, 7, seed + 1),
            None,
        ),
        (
            "30000 rows of 0..70".into(),
            with_lengths(&many_short, 5000, seed + 2),
            None,
        ),
        (
            "600 rows of 0..12000".into(),
            with_lengths(&many_long, 100_000, seed + 3),
            None,
        ),
    ];
    let sprs_sets = common::generated_matrices::<T>(seed + 4)
        .into_iter()
        .chain(common::real_matrices::<T>());
    for (name, m) in sprs_sets {
        let csr = Csr32::from_sprs(&m).expect("fits 32 bits");
        out.push((name, csr, Some(m)));
    }
    for (i, (_, csr, _)) in out.iter_mut().enumerate() {
        shuffle_rows(
            &csr.offsets,
            &mut csr.indices,
            &mut csr.values,
            seed.wrapping_add(100 + i as u64),
        );
    }
    out
}

fn upload<T: Float>(gpu: &Gpu, m: &Csr32<T>) -> Result<DeviceCsr<T>, String> {
    let offsets: Vec<usize> = m.offsets.iter().map(|&o| o as usize).collect();
    gpu.upload_csr_parts(m.rows, m.cols, &offsets, &m.indices, &m.values)
        .map_err(|e| e.to_string())
}

/// Where two arrays first differ, if they do (values compared bit for bit).
fn first_difference<A: PartialEq + std::fmt::Debug>(
    what: &str,
    got: &[A],
    want: &[A],
) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!(
            "{what}: {} entries, expected {}",
            got.len(),
            want.len()
        ));
    }
    got.iter()
        .zip(want)
        .position(|(g, w)| g != w)
        .map(|i| format!("{what}[{i}] = {:?}, expected {:?}", got[i], want[i]))
}

fn bits<T: Float>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

fn check_sort<T: Float>(gpu: &Gpu, m: &Csr32<T>) -> Result<(bool, String), String> {
    let mut a = upload(gpu, m)?;
    a.segmented_sort(gpu).map_err(|e| e.to_string())?;
    let indices = gpu.download(a.indices()).map_err(|e| e.to_string())?;
    let values = gpu.download(a.values()).map_err(|e| e.to_string())?;
    let offsets = gpu.download(a.offsets()).map_err(|e| e.to_string())?;
    let (mut want_i, mut want_v) = (m.indices.clone(), m.values.clone());
    sort_rows_reference(&m.offsets, &mut want_i, &mut want_v);
    let report = first_difference("offsets", &offsets, &m.offsets)
        .or_else(|| first_difference("indices", &indices, &want_i))
        .or_else(|| first_difference("values", &bits(&values), &bits(&want_v)));
    Ok(match report {
        None => (true, String::new()),
        Some(r) => (false, r),
    })
}

fn check_transpose<T: Float>(
    gpu: &Gpu,
    m: &Csr32<T>,
    source: Option<&sprs::CsMat<T>>,
) -> Result<(bool, String), String> {
    let a = upload(gpu, m)?;
    let t = a.transpose(gpu).map_err(|e| e.to_string())?;
    let got = Csc32 {
        rows: t.rows(),
        cols: t.cols(),
        col_offsets: gpu.download(t.col_offsets()).map_err(|e| e.to_string())?,
        row_indices: gpu.download(t.row_indices()).map_err(|e| e.to_string())?,
        values: gpu.download(t.values()).map_err(|e| e.to_string())?,
    };
    let want = transpose_reference(m.rows, m.cols, &m.offsets, &m.indices, &m.values);
    let mut report = if (got.rows, got.cols, t.nnz()) != (m.rows, m.cols, m.nnz()) {
        Some(format!(
            "{}x{} with {} entries, expected {}x{} with {}",
            got.rows,
            got.cols,
            t.nnz(),
            m.rows,
            m.cols,
            m.nnz()
        ))
    } else {
        None
    };
    report = report
        .or_else(|| first_difference("col_offsets", &got.col_offsets, &want.col_offsets))
        .or_else(|| first_difference("row_indices", &got.row_indices, &want.row_indices))
        .or_else(|| first_difference("values", &bits(&got.values), &bits(&want.values)));
    // The tile sizes counted on the GPU: those an upload of the same CSC counts on the host.
    if report.is_none() {
        let uploaded = gpu.upload_csc32(&want).map_err(|e| e.to_string())?;
        if (t.stats(), t.split_mdt()) != (uploaded.stats(), uploaded.split_mdt()) {
            report = Some(format!(
                "tile sizes {:?} (split mdt {}), an upload counts {:?} (split mdt {})",
                t.stats(),
                t.split_mdt(),
                uploaded.stats(),
                uploaded.split_mdt()
            ));
        }
    }
    // The CPU's (sprs's) CSC of the unshuffled matrix: the same arrays.
    if let (None, Some(s)) = (&report, source) {
        let sprs_csc = Csc32::from_sprs(s).map_err(|e| e.to_string())?;
        if sprs_csc.col_offsets != got.col_offsets
            || sprs_csc.row_indices != got.row_indices
            || bits(&sprs_csc.values) != bits(&got.values)
        {
            report = Some("differs from sprs's CSC".into());
        }
    }
    Ok(match report {
        None => (true, String::new()),
        Some(r) => (false, r),
    })
}

fn run_all<T: Float>() {
    let gpu = common::gpu();
    let seed = common::fresh_seed();
    println!(
        "seed {seed} (replay with LOOPS_SEED={seed}); device {}",
        gpu.name()
    );
    let all = matrices::<T>(seed);
    let mut tally = common::Tally::default();
    for (name, m, source) in &all {
        let sort_key = format!("segmented_sort {}", T::RUST_NAME);
        tally.record(name, &sort_key, check_sort(&gpu, m));
        let transpose_key = format!("transpose {}", T::RUST_NAME);
        tally.record(
            name,
            &transpose_key,
            check_transpose(&gpu, m, source.as_ref()),
        );
    }
    tally.finish(all.len());
}

#[test]
fn segmented_sort_and_transpose_f32() {
    run_all::<f32>();
}

#[test]
fn segmented_sort_and_transpose_f64() {
    run_all::<f64>();
}

/// The doc examples of `CsrOps::segmented_sort` and `CsrOps::transpose`.
#[test]
fn doc_examples() -> loops::Result<()> {
    let gpu = Gpu::new(0)?;
    let m = loops::io::generate::power_law::<f32>(1000, 1000, 8.0, 2.0, false, 1);
    let mut a = gpu.upload_csr(&m)?;
    a.segmented_sort(&gpu)?; // sprs keeps rows sorted: nothing moves
    assert_eq!(gpu.download_csr(&a)?, m);
    let at = a.transpose(&gpu)?;
    assert_eq!(gpu.download_csc(&at)?, m.to_csc());
    Ok(())
}
