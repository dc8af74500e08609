//! Host-side sparse matrices checked for the device.
//!
//! The host matrix type is [`sprs::CsMat`] (usize indices, either storage order). Kernels read
//! [`Csr32`]: CSR with 32-bit offsets and column indices, validated once on the host so that no kernel
//! can index out of bounds. This module also holds the CPU reference for SpMV and the error bound
//! tests compare a device result against.

use std::fmt;
use std::ops::Add;

use crate::element::Float;

mod relabel;
pub use relabel::{relabel_by_degree, Degree, Relabelling};

/// Which size of a matrix is meant in [`MatrixError::TooLarge`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    /// The rows.
    Rows,
    /// The columns.
    Cols,
    /// The stored entries.
    Nnz,
}

impl fmt::Display for Dimension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dimension::Rows => "number of rows",
            Dimension::Cols => "number of columns",
            Dimension::Nnz => "number of nonzeros",
        })
    }
}

/// A sparse matrix breaks an invariant of the CSR format kernels rely on. Values are `i64` so that
/// the checks of 64-bit offsets ([`crate::formats::wide`]) report them too.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MatrixError {
    /// A size does not fit the 32-bit offsets and indices of the device format.
    #[error("{what} is {value}, which exceeds i32::MAX ({max}) by {excess}: device CSR uses 32-bit offsets and indices", max = i32::MAX)]
    TooLarge {
        /// Which size.
        what: Dimension,
        /// Its value.
        value: usize,
        /// How much it exceeds `i32::MAX` by.
        excess: usize,
    },

    /// `offsets` must have `rows + 1` entries.
    #[error("offsets has {len} entries but a matrix with {rows} rows needs rows + 1 = {expected}")]
    OffsetsLength {
        /// The rows.
        rows: usize,
        /// The offsets' length.
        len: usize,
        /// `rows + 1`.
        expected: usize,
    },

    /// `offsets[0]` must be 0.
    #[error("offsets[0] is {value} but must be 0")]
    FirstOffset {
        /// The first offset.
        value: i64,
    },

    /// Offsets must not decrease (row `position - 1` would have a negative length).
    #[error("offsets decrease at position {position}: offsets[{position}] = {value} < offsets[{}] = {previous}", position - 1)]
    OffsetsDecrease {
        /// Where the offsets decrease.
        position: usize,
        /// The offset there.
        value: i64,
        /// The one before it.
        previous: i64,
    },

    /// The last offset is the number of nonzeros, which both `indices` and `values` must have.
    #[error("the last offset (offsets[{rows}] = {last}) must equal indices.len() = {indices} and values.len() = {values}")]
    NnzMismatch {
        /// The rows.
        rows: usize,
        /// The last offset.
        last: i64,
        /// The indices' length.
        indices: usize,
        /// The values' length.
        values: usize,
    },

    /// A column index outside `0..cols`.
    #[error("indices[{position}] = {value} (in row {row}) is outside the columns 0..{cols}")]
    IndexOutOfRange {
        /// The entry's position in the indices.
        position: usize,
        /// Its row.
        row: usize,
        /// The index.
        value: i64,
        /// The bound it breaks (the columns, or the rows for a row index).
        cols: usize,
    },
}

fn check_fits(what: Dimension, value: usize) -> Result<(), MatrixError> {
    let max = i32::MAX as usize;
    if value > max {
        return Err(MatrixError::TooLarge {
            what,
            value,
            excess: value - max,
        });
    }
    Ok(())
}

/// A CSR matrix with 32-bit offsets and indices, checked for every invariant a kernel relies on:
/// `offsets.len() == rows + 1`, `offsets[0] == 0`, offsets non-decreasing,
/// `offsets[rows] == indices.len() == values.len()`, every index in `0..cols`, and `rows`, `cols`
/// and the number of nonzeros at most `i32::MAX`. Column indices within a row need not be sorted
/// ([`Csr32::from_sprs`] gives sorted ones, because sprs keeps them sorted).
///
/// The fields are public for reading; a value built by hand without [`Csr32::from_parts`] carries no
/// guarantee.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr32<T> {
    /// The rows.
    pub rows: usize,
    /// The columns.
    pub cols: usize,
    /// `rows + 1` offsets: row `r`'s entries are `offsets[r]..offsets[r + 1]`.
    pub offsets: Vec<i32>,
    /// The column of each entry.
    pub indices: Vec<i32>,
    /// The value of each entry.
    pub values: Vec<T>,
}

impl<T: Copy> Csr32<T> {
    /// From a sprs matrix in either storage order (CSC is converted to CSR, with sorted column
    /// indices). Errors, never panics, if rows, cols or nnz exceed `i32::MAX`; the check comes before
    /// any allocation.
    pub fn from_sprs(m: &sprs::CsMat<T>) -> Result<Self, MatrixError> {
        let (rows, cols, nnz) = (m.rows(), m.cols(), m.nnz());
        check_fits(Dimension::Rows, rows)?;
        check_fits(Dimension::Cols, cols)?;
        check_fits(Dimension::Nnz, nnz)?;
        let indptr = m.indptr();
        let (src_idx, src_val) = (m.indices(), m.data());
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0i32);
        if m.is_csr() {
            let mut indices = Vec::with_capacity(nnz);
            let mut values = Vec::with_capacity(nnz);
            for r in 0..rows {
                let range = indptr.outer_inds_sz(r);
                indices.extend(src_idx[range.clone()].iter().map(|&c| c as i32));
                values.extend_from_slice(&src_val[range]);
                offsets.push(indices.len() as i32);
            }
            return Ok(Csr32 {
                rows,
                cols,
                offsets,
                indices,
                values,
            });
        }
        // CSC -> CSR by counting sort on the row index. Walking the columns in order keeps the
        // column indices of each row sorted.
        let mut next = vec![0usize; rows + 1];
        for c in 0..cols {
            for &r in &src_idx[indptr.outer_inds_sz(c)] {
                next[r + 1] += 1;
            }
        }
        for r in 0..rows {
            next[r + 1] += next[r];
        }
        offsets.extend(next[1..].iter().map(|&o| o as i32));
        let mut indices = vec![0i32; nnz];
        let mut source = vec![0usize; nnz]; // position in the CSC arrays of each CSR entry
        for c in 0..cols {
            for k in indptr.outer_inds_sz(c) {
                let r = src_idx[k];
                indices[next[r]] = c as i32;
                source[next[r]] = k;
                next[r] += 1;
            }
        }
        let values = source.into_iter().map(|k| src_val[k]).collect();
        Ok(Csr32 {
            rows,
            cols,
            offsets,
            indices,
            values,
        })
    }

    /// From raw parts, validating every invariant (see the type's documentation). The error names
    /// the first offending position and its value.
    pub fn from_parts(
        rows: usize,
        cols: usize,
        offsets: Vec<i32>,
        indices: Vec<i32>,
        values: Vec<T>,
    ) -> Result<Self, MatrixError> {
        check_fits(Dimension::Rows, rows)?;
        check_fits(Dimension::Cols, cols)?;
        check_fits(Dimension::Nnz, indices.len())?;
        let expected = rows + 1;
        if offsets.len() != expected {
            return Err(MatrixError::OffsetsLength {
                rows,
                len: offsets.len(),
                expected,
            });
        }
        if offsets[0] != 0 {
            return Err(MatrixError::FirstOffset {
                value: offsets[0].into(),
            });
        }
        for (i, w) in offsets.windows(2).enumerate() {
            if w[1] < w[0] {
                return Err(MatrixError::OffsetsDecrease {
                    position: i + 1,
                    value: w[1].into(),
                    previous: w[0].into(),
                });
            }
        }
        let last = offsets[rows];
        if last as usize != indices.len() || indices.len() != values.len() {
            return Err(MatrixError::NnzMismatch {
                rows,
                last: last.into(),
                indices: indices.len(),
                values: values.len(),
            });
        }
        for row in 0..rows {
            let range = offsets[row] as usize..offsets[row + 1] as usize;
            let start = range.start;
            for (k, &c) in indices[range].iter().enumerate() {
                if c < 0 || c as usize >= cols {
                    return Err(MatrixError::IndexOutOfRange {
                        position: start + k,
                        row,
                        value: c.into(),
                        cols,
                    });
                }
            }
        }
        Ok(Csr32 {
            rows,
            cols,
            offsets,
            indices,
            values,
        })
    }

    /// The number of stored entries.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }
}

/// Builds a CSR [`sprs::CsMat`] from triplets in any order, summing duplicate entries (in the order
/// they appear in the triplet matrix). Column indices come out sorted within each row. Explicit
/// zeros, including duplicates that cancel, are kept as stored entries.
///
/// The same result as sprs's `TriMat::to_csr`, by a counting sort on the row instead of a full
/// comparison sort: linear in the number of triplets plus the sort of rows that are not already in
/// column order.
pub fn csr_from_triplets<T: Copy + Add<Output = T>>(t: &sprs::TriMat<T>) -> sprs::CsMat<T> {
    let (rows, cols) = (t.rows(), t.cols());
    let (ri, ci, data) = (t.row_inds(), t.col_inds(), t.data());
    let n = data.len();
    let mut start = vec![0usize; rows + 1];
    for &r in ri {
        start[r + 1] += 1;
    }
    for r in 0..rows {
        start[r + 1] += start[r];
    }
    let mut next = start.clone();
    // Scatter triplet positions into row buckets (stable), then gather (column, value) pairs.
    let mut order = vec![0usize; n];
    for (k, &r) in ri.iter().enumerate() {
        order[next[r]] = k;
        next[r] += 1;
    }
    drop(next);
    let mut bucket: Vec<(usize, T)> = order.iter().map(|&k| (ci[k], data[k])).collect();
    drop(order);

    let mut indptr = Vec::with_capacity(rows + 1);
    indptr.push(0usize);
    let mut indices = Vec::with_capacity(n);
    let mut values = Vec::with_capacity(n);
    for r in 0..rows {
        let row = &mut bucket[start[r]..start[r + 1]];
        if !row.windows(2).all(|w| w[0].0 <= w[1].0) {
            row.sort_by_key(|e| e.0); // stable: duplicates are summed in input order
        }
        let row_start = indices.len();
        for &(c, v) in row.iter() {
            if indices.len() > row_start && *indices.last().unwrap() == c {
                let last = values.last_mut().unwrap();
                *last = *last + v;
            } else {
                indices.push(c);
                values.push(v);
            }
        }
        indptr.push(indices.len());
    }
    debug_assert!(indices.iter().all(|&c| c < cols));
    // SAFETY: indptr starts at 0, is non-decreasing and ends at indices.len() == values.len();
    // every column index comes from the TriMat, whose indices are checked to lie in 0..cols
    // when added; within each row the indices are strictly increasing (sorted, duplicates merged).
    unsafe {
        sprs::CsMat::new_unchecked(
            sprs::CompressedStorage::CSR,
            (rows, cols),
            indptr,
            indices,
            values,
        )
    }
}

/// A sprs matrix from 32-bit compressed arrays (outer = rows for CSR, columns for CSC). Inner
/// indices unsorted within an outer slice (possible for a matrix built from raw parts) are sorted,
/// values following; duplicates are kept.
pub(crate) fn compressed_to_sprs<T: Copy + Add<Output = T>>(
    storage: sprs::CompressedStorage,
    shape: (usize, usize),
    offsets: &[i32],
    indices: &[i32],
    values: &[T],
) -> sprs::CsMat<T> {
    let indptr: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
    let mut idx: Vec<usize> = indices.iter().map(|&i| i as usize).collect();
    let mut data = values.to_vec();
    for w in indptr.windows(2) {
        let (s, e) = (w[0], w[1]);
        if !idx[s..e].windows(2).all(|p| p[0] <= p[1]) {
            let mut pairs: Vec<(usize, T)> = idx[s..e]
                .iter()
                .copied()
                .zip(data[s..e].iter().copied())
                .collect();
            pairs.sort_by_key(|p| p.0);
            for (k, (i, v)) in pairs.into_iter().enumerate() {
                idx[s + k] = i;
                data[s + k] = v;
            }
        }
    }
    // sprs wants strictly increasing inner indices; a duplicate (only from raw parts) goes through
    // triplets, which sum it.
    let strictly = indptr
        .windows(2)
        .all(|w| idx[w[0]..w[1]].windows(2).all(|p| p[0] < p[1]));
    if strictly {
        // try_new checks every invariant; they hold by construction here.
        let made = match storage {
            sprs::CompressedStorage::CSR => sprs::CsMat::try_new(shape, indptr, idx, data),
            sprs::CompressedStorage::CSC => sprs::CsMat::try_new_csc(shape, indptr, idx, data),
        };
        return made.unwrap_or_else(|(_, _, _, e)| panic!("checked compressed arrays: {e}"));
    }
    // Triplets (outer, inner): the CSR of the matrix, or of its transpose for CSC.
    let outer_shape = match storage {
        sprs::CompressedStorage::CSR => shape,
        sprs::CompressedStorage::CSC => (shape.1, shape.0),
    };
    let mut t = sprs::TriMat::with_capacity(outer_shape, idx.len());
    for (outer, w) in indptr.windows(2).enumerate() {
        for k in w[0]..w[1] {
            t.add_triplet(outer, idx[k], data[k]);
        }
    }
    let csr: sprs::CsMat<T> = csr_from_triplets(&t);
    match storage {
        sprs::CompressedStorage::CSR => csr,
        sprs::CompressedStorage::CSC => csr.transpose_into(),
    }
}

/// CPU reference for `y = A x`, computed in f64 whatever `T` is.
///
/// Returns `(y, scale)` where `scale[i] = sum_j |a_ij * x_j|` over the stored entries of row `i`:
/// the quantity the rounding error of any summation order is proportional to. Compare a device
/// result row by row with [`expected_error_bound`]`(row_nnz, scale[i])`.
///
/// Works for both storage orders.
///
/// # Panics
/// If `x.len() != a.cols()`.
pub fn spmv_reference<T: Float>(a: &sprs::CsMat<T>, x: &[T]) -> (Vec<f64>, Vec<f64>) {
    assert_eq!(
        x.len(),
        a.cols(),
        "spmv_reference: x has {} elements but A has {} columns",
        x.len(),
        a.cols()
    );
    let mut y = vec![0.0f64; a.rows()];
    let mut scale = vec![0.0f64; a.rows()];
    let indptr = a.indptr();
    let (idx, val) = (a.indices(), a.data());
    for outer in 0..a.outer_dims() {
        let range = indptr.outer_inds_sz(outer);
        for (&inner, &v) in idx[range.clone()].iter().zip(&val[range]) {
            let (r, c) = if a.is_csr() {
                (outer, inner)
            } else {
                (inner, outer)
            };
            let p = v.to_f64() * x[c].to_f64();
            y[r] += p;
            scale[r] += p.abs();
        }
    }
    (y, scale)
}

/// The constant `c` of [`expected_error_bound`].
pub(crate) const ERROR_BOUND_CONSTANT: f64 = 2.0;

/// How far a device result `y_i` computed in `T` may lie from the f64 reference of
/// [`spmv_reference`], for a row with `row_nnz` stored entries and error scale `scale`
/// (`sum_j |a_ij x_j|`):
///
/// `|y_gpu - y_ref| <= c * (row_nnz + 1) * u * scale`, with `u = T::UNIT_ROUNDOFF` and `c = 2`.
///
/// Why: a dot product of `n` terms summed in *any* order (sequential, tree, atomics, with or without
/// FMA) in precision `u` has error at most `gamma_n * scale`, `gamma_n = n u / (1 - n u)` (Higham,
/// Accuracy and Stability of Numerical Algorithms, 3.1); the final store adds at most `u * scale`,
/// hence `n + 1`. `c = 2` covers the `1 / (1 - n u)` factor while `n u <= 1/2`; beyond that no
/// bound holds and the result is infinite. The f64 reference's own error is negligible against `u`
/// of f32 and is covered by the factor 2 for f64 as well.
///
/// Tight enough to catch a wrong kernel: a missed or doubled term changes `y` by `|a_ij x_j|`,
/// on average `scale / n`, which exceeds `2 (n + 1) u scale` unless `n` is in the thousands (f32).
/// The bound is relative to `scale`, so it is 0 for an empty row: an empty row must give exactly 0.
pub fn expected_error_bound<T: Float>(row_nnz: usize, scale: f64) -> f64 {
    let nu = (row_nnz as f64 + 1.0) * T::UNIT_ROUNDOFF;
    if row_nnz == 0 {
        return 0.0;
    }
    if nu > 0.5 {
        return f64::INFINITY;
    }
    ERROR_BOUND_CONSTANT * nu * scale
}
