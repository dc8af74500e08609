use super::*;
use crate::host::compressed_to_sprs;
use proptest::prelude::*;
use sprs::{CsMat, TriMat};

fn example() -> TriMat<f64> {
    // Out of row order, with a duplicate (1, 2) and an empty row 3.
    TriMat::from_triplets(
        (5, 4),
        vec![2, 0, 1, 4, 1, 0, 1],
        vec![1, 3, 2, 0, 0, 0, 2],
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    )
}

#[test]
fn tile_sizes_count_the_longest_empty_run() {
    let of = |offsets: &[i32]| tile_sizes(offsets).stats;
    assert_eq!(of(&[0]).longest_empty_run, 0);
    assert_eq!(of(&[0, 0, 0]).longest_empty_run, 2);
    // Sizes 0, 3, 0, 0, 0, 1, 0: runs of 1, 3 and 1.
    let t = of(&[0, 0, 3, 3, 3, 3, 4, 4]);
    assert_eq!((t.max_tile_atoms, t.longest_empty_run), (3, 3));
    assert_eq!((t.tiles, t.atoms, t.empty_tiles), (7, 4, 5));
    assert_eq!((t.histogram[0], t.histogram[2]), (6, 1));
    assert_eq!(of(&[0, 2, 4]).longest_empty_run, 0);
}

#[test]
fn size_check_needs_no_allocation() {
    let big = i32::MAX as usize + 1;
    assert!(check_fits_32(
        "Csr",
        i32::MAX as usize,
        i32::MAX as usize,
        i32::MAX as usize
    )
    .is_ok());
    let e = check_fits_32("Csr", 10, 10, big).unwrap_err();
    match &e {
        LoopsError::TooLarge {
            format,
            rows,
            cols,
            nnz,
            what,
        } => {
            assert_eq!((*format, *rows, *cols, *nnz), ("Csr", 10, 10, big));
            assert_eq!(*what, Dimension::Nnz);
        }
        other => panic!("{other:?}"),
    }
    let text = e.to_string();
    assert!(
        text.contains("2147483648 stored entries")
            && text.contains("number of nonzeros exceeds i32::MAX"),
        "{text}"
    );
    assert!(matches!(
        check_fits_32("Coo", big, 1, 0),
        Err(LoopsError::TooLarge {
            what: Dimension::Rows,
            ..
        })
    ));
    assert!(matches!(
        check_fits_32("Csc", 1, usize::MAX, 0),
        Err(LoopsError::TooLarge {
            what: Dimension::Cols,
            ..
        })
    ));
}

/// Matrices whose dimensions exceed 32 bits but that hold almost nothing: the conversions refuse
/// them before allocating offsets for 2^31 tiles.
#[test]
fn oversized_matrices_are_refused_before_allocating() {
    let big = i32::MAX as usize + 1;
    let wide: CsMat<f32> = CsMat::new((2, big), vec![0, 0, 0], vec![], vec![]);
    for e in [
        Csc32::from_sprs(&wide).unwrap_err(),
        Coo32::from_sprs(&wide).unwrap_err(),
    ] {
        assert!(
            matches!(e, LoopsError::TooLarge { cols, what: Dimension::Cols, .. } if cols == big),
            "{e}"
        );
    }
    let tall: TriMat<f32> = TriMat::new((big, 3));
    let e = Coo32::from_trimat(&tall).unwrap_err();
    assert!(
        matches!(e, LoopsError::TooLarge { rows, what: Dimension::Rows, .. } if rows == big),
        "{e}"
    );
    let e = subset_shape("k", TileSetShape { tiles: 1, atoms: 1 }, big).unwrap_err();
    assert!(e.to_string().contains("2147483648 entries"), "{e}");
}

#[test]
fn coo_sorts_by_row_stably_and_keeps_duplicates() {
    let t = example();
    let c = Coo32::from_trimat(&t).unwrap();
    assert_eq!(c.row_offsets, vec![0, 2, 5, 6, 6, 7]);
    assert_eq!(c.row_indices, vec![0, 0, 1, 1, 1, 2, 4]);
    // Input order within each row: row 0 had (0,3,2.0) then (0,0,6.0).
    assert_eq!(c.col_indices, vec![3, 0, 2, 0, 2, 1, 0]);
    assert_eq!(c.values, vec![2.0, 6.0, 3.0, 5.0, 7.0, 1.0, 4.0]);
    // Back to sprs: the same matrix (duplicates sum in both).
    let back = c.to_trimat();
    assert_eq!(back.nnz(), 7);
    assert_eq!(back.to_csr::<usize>(), t.to_csr::<usize>());
    // Already sorted input keeps its exact order.
    let again = Coo32::from_trimat(&back).unwrap();
    assert_eq!(again, c);
}

#[test]
fn coo_from_compressed_in_both_orders() {
    let csr: CsMat<f64> = example().to_csr();
    let a = Coo32::from_sprs(&csr).unwrap();
    let b = Coo32::from_sprs(&csr.to_csc()).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.nnz(), csr.nnz());
    assert_eq!(a.to_trimat().to_csr::<usize>(), csr);
}

#[test]
fn csc_from_both_orders_round_trips() {
    let csr: CsMat<f64> = example().to_csr();
    let csc = csr.to_csc();
    let a = Csc32::from_sprs(&csr).unwrap();
    let b = Csc32::from_sprs(&csc).unwrap();
    assert_eq!(a, b);
    assert_eq!((a.rows, a.cols), (5, 4));
    assert_eq!(a.col_offsets.len(), 5);
    assert_eq!(a.to_sprs(), csc);
    assert!(a.to_sprs().is_csc());
    let checked = Csc32::from_parts(
        5,
        4,
        a.col_offsets.clone(),
        a.row_indices.clone(),
        a.values.clone(),
    )
    .unwrap();
    assert_eq!(checked, a);
    assert!(Csc32::from_parts(5, 4, vec![0, 1, 1, 1, 1], vec![5], vec![1.0]).is_err());
}

#[test]
fn unsorted_or_duplicate_compressed_parts_go_back_to_sprs() {
    // Row 0 holds columns 2, 0, 2 (unsorted, a duplicate): sprs gets them sorted and summed.
    let m = compressed_to_sprs(
        sprs::CompressedStorage::CSR,
        (2, 3),
        &[0, 3, 3],
        &[2, 0, 2],
        &[1.0f64, 2.0, 4.0],
    );
    assert_eq!(m.indices(), &[0, 2]);
    assert_eq!(m.data(), &[2.0, 5.0]);
    let m = compressed_to_sprs(
        sprs::CompressedStorage::CSC,
        (3, 2),
        &[0, 2, 2],
        &[2, 0],
        &[1.0f64, 2.0],
    );
    assert!(m.is_csc());
    assert_eq!(m.indices(), &[0, 2]);
    assert_eq!(m.data(), &[2.0, 1.0]);
}

#[test]
fn offsets_are_checked() {
    assert_eq!(checked_offsets(&[0, 2, 2, 5]).unwrap(), vec![0, 2, 2, 5]);
    assert_eq!(checked_offsets(&[0]).unwrap(), vec![0]);
    assert!(checked_offsets(&[]).is_err());
    assert!(checked_offsets(&[1, 2]).is_err());
    assert!(checked_offsets(&[0, 3, 2]).is_err());
    assert!(matches!(
        checked_offsets(&[0, i32::MAX as usize + 1]),
        Err(LoopsError::TooLarge { .. })
    ));
}

#[test]
fn coo_refuses_bad_triplets() {
    assert!(Coo32::from_triplets((2, 2), &[0, 2], &[0, 0], &[1.0f32, 2.0]).is_err());
    assert!(Coo32::from_triplets((2, 2), &[0, 1], &[0, 2], &[1.0f32, 2.0]).is_err());
    assert!(Coo32::from_triplets((2, 2), &[0], &[0, 1], &[1.0f32, 2.0]).is_err());
}

proptest! {
    /// Any triplets: the COO is sorted by row, its offsets delimit the rows, each row keeps its
    /// input order, and it is the same matrix.
    #[test]
    fn coo_of_any_triplets(
        rows in 1usize..40,
        cols in 1usize..40,
        entries in proptest::collection::vec((0usize..1000, 0usize..1000, -100i32..100), 0..200),
    ) {
        let (ri, ci, v): (Vec<usize>, Vec<usize>, Vec<f64>) = entries
            .iter()
            .map(|&(r, c, v)| (r % rows, c % cols, v as f64))
            .fold((vec![], vec![], vec![]), |(mut a, mut b, mut c), (r, cc, vv)| {
                a.push(r);
                b.push(cc);
                c.push(vv);
                (a, b, c)
            });
        let coo = Coo32::from_triplets((rows, cols), &ri, &ci, &v).unwrap();
        prop_assert_eq!(coo.row_offsets.len(), rows + 1);
        for r in 0..rows {
            let range = coo.row_offsets[r] as usize..coo.row_offsets[r + 1] as usize;
            prop_assert!(coo.row_indices[range.clone()].iter().all(|&x| x as usize == r));
            let want: Vec<(i32, f64)> = (0..ri.len())
                .filter(|&k| ri[k] == r)
                .map(|k| (ci[k] as i32, v[k]))
                .collect();
            let got: Vec<(i32, f64)> = range.map(|k| (coo.col_indices[k], coo.values[k])).collect();
            prop_assert_eq!(got, want);
        }
        let t = TriMat::from_triplets((rows, cols), ri, ci, v);
        prop_assert_eq!(coo.to_trimat().to_csr::<usize>(), t.to_csr::<usize>());
    }
}

/// A device CSR of `nnz` entries in one row whose buffers hold nothing: no GPU needed to check
/// what is decided on the host.
fn hollow_csr(nnz: usize) -> DeviceCsr<f32> {
    let offsets = DeviceBuffer::empty();
    DeviceCsr {
        core: TileCore::new(1, nnz, tile_sizes(&[0, nnz as i32])),
        cols: 4,
        offsets,
        wide_offsets: None,
        indices: DeviceBuffer::empty(),
        values: DeviceBuffer::empty(),
    }
}

#[test]
fn swap_values_checks_the_length_and_changes_nothing_on_error() {
    let mut a = hollow_csr(3);
    let mut wrong = DeviceBuffer::<f32>::empty();
    let e = a.swap_values(&mut wrong).unwrap_err();
    match &e {
        LoopsError::InvalidArgument { op, detail } => {
            assert_eq!(*op, "DeviceCsr::swap_values");
            assert!(
                detail.contains("the new values have 0 elements")
                    && detail.contains("1x4 matrix has 3 stored entries"),
                "{detail}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().starts_with("DeviceCsr::swap_values: "), "{e}");
    assert_eq!(
        (a.nnz(), a.values().len()),
        (3, 0),
        "the matrix is unchanged"
    );
    // The right length (here 0 for an empty matrix) swaps.
    let mut empty = hollow_csr(0);
    let mut none = DeviceBuffer::<f32>::empty();
    empty.swap_values(&mut none).unwrap();
}
