//! Csr32 validation, triplet conversion, the SpMV reference and its error bound.

use loops_runtime::formats::host::{
    csr_from_triplets, expected_error_bound, spmv_reference, Csr32, Dimension, MatrixError,
};
use loops_runtime::generate;
use loops_runtime::{Float, LoopsError};
use proptest::prelude::*;

const BIG: usize = i32::MAX as usize + 1;

fn small() -> (Vec<i32>, Vec<i32>, Vec<f32>) {
    // 3 x 4: row 0 = {1, 3}, row 1 = {}, row 2 = {0}
    (vec![0, 2, 2, 3], vec![1, 3, 0], vec![1.0, 2.0, 3.0])
}

// ------------------------------------------------------------------------------------------------
// Csr32
// ------------------------------------------------------------------------------------------------

#[test]
fn from_parts_accepts_a_valid_matrix() {
    let (o, i, v) = small();
    let m = Csr32::from_parts(3, 4, o, i, v).unwrap();
    assert_eq!((m.rows, m.cols, m.nnz()), (3, 4, 3));
    let e = Csr32::<f64>::from_parts(0, 0, vec![0], vec![], vec![]).unwrap();
    assert_eq!(e.nnz(), 0);
}

#[test]
fn offsets_of_the_wrong_length() {
    let (_, i, v) = small();
    let e = Csr32::from_parts(3, 4, vec![0, 2, 3], i, v).unwrap_err();
    assert_eq!(
        e,
        MatrixError::OffsetsLength {
            rows: 3,
            len: 3,
            expected: 4
        }
    );
    assert!(e.to_string().contains("rows + 1 = 4"), "{e}");
    let e = Csr32::<f32>::from_parts(0, 0, vec![], vec![], vec![]).unwrap_err();
    assert_eq!(
        e,
        MatrixError::OffsetsLength {
            rows: 0,
            len: 0,
            expected: 1
        }
    );
}

#[test]
fn first_offset_not_zero() {
    let (_, i, v) = small();
    let e = Csr32::from_parts(3, 4, vec![1, 2, 2, 3], i, v).unwrap_err();
    assert_eq!(e, MatrixError::FirstOffset { value: 1 });
}

#[test]
fn offsets_decrease() {
    let (_, i, v) = small();
    let e = Csr32::from_parts(3, 4, vec![0, 2, 1, 3], i, v).unwrap_err();
    assert_eq!(
        e,
        MatrixError::OffsetsDecrease {
            position: 2,
            value: 1,
            previous: 2
        }
    );
    assert!(
        e.to_string().contains("offsets[2] = 1 < offsets[1] = 2"),
        "{e}"
    );
    let e = Csr32::<f32>::from_parts(2, 4, vec![0, -1, 0], vec![], vec![]).unwrap_err();
    assert_eq!(
        e,
        MatrixError::OffsetsDecrease {
            position: 1,
            value: -1,
            previous: 0
        }
    );
}

#[test]
fn last_offset_disagrees_with_the_arrays() {
    let (o, i, mut v) = small();
    let e = Csr32::from_parts(3, 4, vec![0, 2, 2, 4], i.clone(), v.clone()).unwrap_err();
    assert_eq!(
        e,
        MatrixError::NnzMismatch {
            rows: 3,
            last: 4,
            indices: 3,
            values: 3
        }
    );
    v.push(9.0);
    let e = Csr32::from_parts(3, 4, o, i, v).unwrap_err();
    assert_eq!(
        e,
        MatrixError::NnzMismatch {
            rows: 3,
            last: 3,
            indices: 3,
            values: 4
        }
    );
}

#[test]
fn column_index_out_of_range() {
    let (o, _, v) = small();
    let e = Csr32::from_parts(3, 4, o.clone(), vec![1, 4, 0], v.clone()).unwrap_err();
    assert_eq!(
        e,
        MatrixError::IndexOutOfRange {
            position: 1,
            row: 0,
            value: 4,
            cols: 4
        }
    );
    assert!(e.to_string().contains("indices[1] = 4 (in row 0)"), "{e}");
    let e = Csr32::from_parts(3, 4, o, vec![1, 3, -1], v).unwrap_err();
    assert_eq!(
        e,
        MatrixError::IndexOutOfRange {
            position: 2,
            row: 2,
            value: -1,
            cols: 4
        }
    );
}

#[test]
fn sizes_beyond_i32_are_refused_before_allocating() {
    let e = Csr32::<f32>::from_parts(BIG, 1, vec![0], vec![], vec![]).unwrap_err();
    assert_eq!(
        e,
        MatrixError::TooLarge {
            what: Dimension::Rows,
            value: BIG,
            excess: 1
        }
    );
    assert!(
        e.to_string().contains("exceeds i32::MAX (2147483647) by 1"),
        "{e}"
    );
    let e = Csr32::<f32>::from_parts(1, BIG + 9, vec![0, 0], vec![], vec![]).unwrap_err();
    assert_eq!(
        e,
        MatrixError::TooLarge {
            what: Dimension::Cols,
            value: BIG + 9,
            excess: 10
        }
    );

    // A 2^31 x 1 CSC matrix has a 2-entry indptr: cheap to build, too large to convert.
    let tall = sprs::CsMat::<f32>::new_csc((BIG, 1), vec![0, 1], vec![BIG - 1], vec![1.0]);
    let e = Csr32::from_sprs(&tall).unwrap_err();
    assert_eq!(
        e,
        MatrixError::TooLarge {
            what: Dimension::Rows,
            value: BIG,
            excess: 1
        }
    );
    let wide = sprs::CsMat::<f32>::new((1, BIG), vec![0, 1], vec![BIG - 1], vec![1.0]);
    let e = Csr32::from_sprs(&wide).unwrap_err();
    assert!(
        matches!(
            e,
            MatrixError::TooLarge {
                what: Dimension::Cols,
                ..
            }
        ),
        "{e}"
    );
    let le: LoopsError = e.into();
    assert!(le.to_string().contains("number of columns"), "{le}");
}

#[test]
fn from_sprs_csr() {
    let m = generate::with_empty_rows::<f32>(500, 300, 0.5, 6, 3);
    let c = Csr32::from_sprs(&m).unwrap();
    let ip: Vec<i32> = m
        .indptr()
        .as_slice()
        .unwrap()
        .iter()
        .map(|&o| o as i32)
        .collect();
    assert_eq!(c.offsets, ip);
    assert_eq!(
        c.indices,
        m.indices().iter().map(|&i| i as i32).collect::<Vec<_>>()
    );
    assert_eq!(c.values, m.data());
    // It passes its own validation.
    let again = Csr32::from_parts(
        c.rows,
        c.cols,
        c.offsets.clone(),
        c.indices.clone(),
        c.values.clone(),
    )
    .unwrap();
    assert_eq!(again, c);
}

#[test]
fn from_sprs_csc_converts_to_csr() {
    for m in [
        generate::uniform::<f64>(200, 300, 7, 1),
        generate::arrow::<f64>(100, 2),
        generate::with_empty_rows::<f64>(300, 50, 0.6, 4, 3),
        generate::empty::<f64>(5, 6),
    ] {
        let from_csr = Csr32::from_sprs(&m).unwrap();
        let csc = m.to_csc();
        assert!(!csc.is_csr());
        let from_csc = Csr32::from_sprs(&csc).unwrap();
        assert_eq!(from_csc, from_csr);
    }
}

#[test]
fn from_sprs_of_a_sliced_matrix() {
    let m = generate::uniform::<f32>(100, 80, 5, 4);
    let view = m.slice_outer(10..30);
    let owned = view.to_owned();
    let c = Csr32::from_sprs(&owned).unwrap();
    assert_eq!(c.rows, 20);
    assert_eq!(c.offsets[0], 0);
    assert_eq!(c.nnz(), 100);
    assert_eq!(&c.values[..], &m.data()[50..150]);
}

// ------------------------------------------------------------------------------------------------
// Triplets to CSR
// ------------------------------------------------------------------------------------------------

#[test]
fn duplicates_are_summed_in_input_order() {
    let mut t = sprs::TriMat::new((3, 3));
    t.add_triplet(2, 1, 1.0);
    t.add_triplet(0, 2, 5.0);
    t.add_triplet(2, 1, 2.0);
    t.add_triplet(0, 0, -1.0);
    t.add_triplet(2, 0, 7.0);
    t.add_triplet(2, 1, 4.0);
    let m = csr_from_triplets(&t);
    assert_eq!(m.indptr().as_slice().unwrap(), &[0, 2, 2, 4]);
    assert_eq!(m.indices(), &[0, 2, 0, 1]);
    assert_eq!(m.data(), &[-1.0, 5.0, 7.0, 7.0]);
    // Summation order is the input order: (1e16 + 1) + -1e16 = 0, not 1.
    let mut t = sprs::TriMat::new((1, 1));
    for v in [1e16, 1.0, -1e16] {
        t.add_triplet(0, 0, v);
    }
    assert_eq!(csr_from_triplets(&t).data(), &[0.0]);
}

proptest! {
    #[test]
    fn triplets_agree_with_sprs(
        rows in 1usize..15,
        cols in 1usize..15,
        entries in prop::collection::vec((0usize..15, 0usize..15, -8i32..8), 0..60),
    ) {
        let mut t = sprs::TriMat::new((rows, cols));
        for (r, c, v) in entries {
            // Small integers: sums are exact in any order.
            t.add_triplet(r % rows, c % cols, v as f64);
        }
        let ours = csr_from_triplets(&t);
        let theirs: sprs::CsMat<f64> = t.to_csr();
        prop_assert_eq!(ours.proper_indptr().to_vec(), theirs.proper_indptr().to_vec());
        prop_assert_eq!(ours.indices(), theirs.indices());
        prop_assert_eq!(ours.data(), theirs.data());
    }
}

// ------------------------------------------------------------------------------------------------
// SpMV reference and error bound
// ------------------------------------------------------------------------------------------------

#[test]
fn reference_matches_a_dense_product() {
    let m = generate::power_law::<f64>(300, 200, 6.0, 1.5, false, 5);
    let x = generate::random_vector::<f64>(200, 6);
    let (y, scale) = spmv_reference(&m, &x);
    let dense = m.to_dense();
    for r in 0..300 {
        let expect: f64 = (0..200).map(|c| dense[[r, c]] * x[c]).sum();
        let s: f64 = (0..200).map(|c| (dense[[r, c]] * x[c]).abs()).sum();
        assert!((y[r] - expect).abs() <= 1e-12 * s.max(1e-300), "row {r}");
        assert!((scale[r] - s).abs() <= 1e-12 * s.max(1e-300), "row {r}");
    }
    // CSC storage gives the same.
    let (y2, s2) = spmv_reference(&m.to_csc(), &x);
    for r in 0..300 {
        assert!((y[r] - y2[r]).abs() <= 1e-12 * scale[r].max(1e-300));
        assert!((scale[r] - s2[r]).abs() <= 1e-12 * scale[r].max(1e-300));
    }
}

/// What a simple device kernel computes: each row summed sequentially in T.
fn spmv_in<T: Float>(m: &sprs::CsMat<T>, x: &[T], skip_last: bool) -> Vec<f64> {
    (0..m.rows())
        .map(|r| {
            let row = m.outer_view(r).unwrap();
            let n = row.nnz() - (skip_last && row.nnz() > 0) as usize;
            let mut sum = T::from_f64(0.0);
            for (c, &v) in row.iter().take(n) {
                sum = sum + v * x[c];
            }
            sum.to_f64()
        })
        .collect()
}

fn within_bound<T: Float>(m: &sprs::CsMat<T>, y: &[f64], y_ref: &[f64], scale: &[f64]) -> usize {
    (0..m.rows())
        .filter(|&r| {
            (y[r] - y_ref[r]).abs()
                <= expected_error_bound::<T>(m.outer_view(r).unwrap().nnz(), scale[r])
        })
        .count()
}

#[test]
fn a_correct_f32_kernel_is_within_the_bound_and_a_wrong_one_is_not() {
    for m in [
        generate::uniform::<f32>(2000, 3000, 16, 1),
        generate::power_law::<f32>(2000, 3000, 16.0, 1.3, false, 2),
        generate::arrow::<f32>(2000, 3),
    ] {
        let x = generate::random_vector::<f32>(m.cols(), 9);
        let (y_ref, scale) = spmv_reference(&m, &x);
        let good = spmv_in(&m, &x, false);
        assert_eq!(within_bound(&m, &good, &y_ref, &scale), m.rows());
        // Dropping one term per row must be caught in (nearly) every non-empty row.
        let bad = spmv_in(&m, &x, true);
        let nonempty = (0..m.rows())
            .filter(|&r| m.outer_view(r).unwrap().nnz() > 0)
            .count();
        let caught = m.rows() - within_bound(&m, &bad, &y_ref, &scale);
        assert!(
            caught as f64 >= 0.99 * nonempty as f64,
            "caught {caught} of {nonempty} wrong rows"
        );
    }
}

#[test]
fn a_correct_f64_kernel_is_within_the_bound() {
    let m = generate::power_law::<f64>(3000, 3000, 20.0, 1.2, false, 4);
    let x = generate::random_vector::<f64>(3000, 5);
    let (y_ref, scale) = spmv_reference(&m, &x);
    assert_eq!(
        within_bound(&m, &spmv_in(&m, &x, false), &y_ref, &scale),
        m.rows()
    );
    let caught = m.rows() - within_bound(&m, &spmv_in(&m, &x, true), &y_ref, &scale);
    assert!(caught > 2900, "{caught}");
}

#[test]
fn bound_edge_cases() {
    assert_eq!(expected_error_bound::<f32>(0, 5.0), 0.0);
    let u = f32::UNIT_ROUNDOFF;
    assert_eq!(expected_error_bound::<f32>(1, 1.0), 2.0 * 2.0 * u);
    assert_eq!(expected_error_bound::<f32>(10_000_000, 1.0), f64::INFINITY);
    assert!(expected_error_bound::<f64>(10_000_000, 1.0) < 1e-8);
    assert_eq!(expected_error_bound::<f64>(5, 0.0), 0.0);
}

#[test]
#[should_panic(expected = "x has 3 elements but A has 4 columns")]
fn reference_checks_the_vector_length() {
    let m = generate::empty::<f32>(2, 4);
    let _ = spmv_reference(&m, &[0.0; 3]);
}
