//! COO matrices, on the host ([`Coo32`]) and in device memory ([`DeviceCoo`]), sorted by row (see
//! the COO policy in [`crate::formats`]): tiles are rows, atoms are entries.

use std::fmt;

use sprs::{CsMat, TriMat};

use super::{check_fits_32, tile_sizes, to_i32, TileCore, TileSet};
use crate::args::ArgList;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::Result;
use crate::host::{Csr32, MatrixError};

/// A COO matrix with 32-bit indices, sorted by row (see the COO policy in [`crate::formats`]), with the row
/// offsets that make its rows tiles: row `r`'s entries are `row_offsets[r]..row_offsets[r + 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Coo32<T> {
    /// The rows.
    pub rows: usize,
    /// The columns.
    pub cols: usize,
    /// `rows + 1` offsets: row `r`'s entries are `row_offsets[r]..row_offsets[r + 1]`.
    pub row_offsets: Vec<i32>,
    /// The row of each entry (non-decreasing).
    pub row_indices: Vec<i32>,
    /// The column of each entry.
    pub col_indices: Vec<i32>,
    /// The value of each entry.
    pub values: Vec<T>,
}

impl<T: Copy> Coo32<T> {
    /// From triplets in any order: checked (sizes first, then every index in range), then sorted
    /// by row, stably.
    pub(crate) fn from_triplets(
        (rows, cols): (usize, usize),
        row_inds: &[usize],
        col_inds: &[usize],
        values: &[T],
    ) -> Result<Self> {
        check_fits_32("Coo", rows, cols, values.len())?;
        if row_inds.len() != values.len() || col_inds.len() != values.len() {
            return Err(MatrixError::NnzMismatch {
                rows,
                last: values.len() as i64,
                indices: row_inds.len().min(col_inds.len()),
                values: values.len(),
            }
            .into());
        }
        for (k, (&r, &c)) in row_inds.iter().zip(col_inds).enumerate() {
            if r >= rows {
                return Err(MatrixError::IndexOutOfRange {
                    position: k,
                    row: r,
                    value: r as i64,
                    cols: rows,
                }
                .into());
            }
            if c >= cols {
                return Err(MatrixError::IndexOutOfRange {
                    position: k,
                    row: r,
                    value: c as i64,
                    cols,
                }
                .into());
            }
        }
        let n = values.len();
        // Counting sort by row: offsets, then a stable scatter.
        let mut row_offsets = vec![0i32; rows + 1];
        for &r in row_inds {
            row_offsets[r + 1] += 1;
        }
        for r in 0..rows {
            row_offsets[r + 1] += row_offsets[r];
        }
        let sorted = row_inds.windows(2).all(|w| w[0] <= w[1]);
        let (row_indices, col_indices, values) = if sorted {
            (
                row_inds.iter().map(|&r| to_i32(r)).collect(),
                col_inds.iter().map(|&c| to_i32(c)).collect(),
                values.to_vec(),
            )
        } else {
            let mut next: Vec<usize> = row_offsets[..rows].iter().map(|&o| o as usize).collect();
            let mut ri = vec![0i32; n];
            let mut ci = vec![0i32; n];
            let mut order = vec![0usize; n];
            for (k, &r) in row_inds.iter().enumerate() {
                let at = next[r];
                next[r] += 1;
                ri[at] = to_i32(r);
                ci[at] = to_i32(col_inds[k]);
                order[at] = k;
            }
            (ri, ci, order.into_iter().map(|k| values[k]).collect())
        };
        Ok(Coo32 {
            rows,
            cols,
            row_offsets,
            row_indices,
            col_indices,
            values,
        })
    }

    /// From a sprs triplet matrix, entries in its order (then sorted by row, stably).
    pub(crate) fn from_trimat(t: &TriMat<T>) -> Result<Self> {
        Self::from_triplets((t.rows(), t.cols()), t.row_inds(), t.col_inds(), t.data())
    }

    /// From a sprs compressed matrix: CSR in its order; CSC converted (entries of a row in column
    /// order).
    pub(crate) fn from_sprs(m: &CsMat<T>) -> Result<Self> {
        check_fits_32("Coo", m.rows(), m.cols(), m.nnz())?;
        let csr = Csr32::from_sprs(m)?;
        let mut row_indices = Vec::with_capacity(csr.nnz());
        for r in 0..csr.rows {
            let len = (csr.offsets[r + 1] - csr.offsets[r]) as usize;
            row_indices.extend(std::iter::repeat_n(to_i32(r), len));
        }
        Ok(Coo32 {
            rows: csr.rows,
            cols: csr.cols,
            row_offsets: csr.offsets,
            row_indices,
            col_indices: csr.indices,
            values: csr.values,
        })
    }

    /// The number of entries (duplicates counted).
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// The sprs triplet matrix, entries in this (row-sorted) order, duplicates kept.
    #[cfg(test)]
    pub(crate) fn to_trimat(&self) -> TriMat<T> {
        TriMat::from_triplets(
            (self.rows, self.cols),
            self.row_indices.iter().map(|&r| r as usize).collect(),
            self.col_indices.iter().map(|&c| c as usize).collect(),
            self.values.clone(),
        )
    }
}

/// What [`Gpu::upload_coo`] takes: a sprs triplet matrix or a compressed one.
pub trait CooSource<T> {
    /// The entries as a checked [`Coo32`], sorted by row.
    fn to_coo32(&self) -> Result<Coo32<T>>;
}

impl<T: Copy> CooSource<T> for TriMat<T> {
    fn to_coo32(&self) -> Result<Coo32<T>> {
        Coo32::from_trimat(self)
    }
}

impl<T: Copy> CooSource<T> for CsMat<T> {
    fn to_coo32(&self) -> Result<Coo32<T>> {
        Coo32::from_sprs(self)
    }
}

impl<T: Copy> CooSource<T> for Coo32<T> {
    fn to_coo32(&self) -> Result<Coo32<T>> {
        Ok(self.clone())
    }
}

/// A COO matrix in device memory, sorted by row, with its row offsets: tiles are rows, atoms are
/// entries.
pub struct DeviceCoo<T> {
    /// Rows as tiles, entries as atoms.
    core: TileCore,
    cols: usize,
    row_offsets: DeviceBuffer<i32>,
    row_indices: DeviceBuffer<i32>,
    col_indices: DeviceBuffer<i32>,
    values: DeviceBuffer<T>,
}

impl<T> DeviceCoo<T> {
    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.core.tiles
    }

    /// The number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The number of entries (duplicates counted).
    pub fn nnz(&self) -> usize {
        self.core.atoms
    }

    /// The `rows + 1` row offsets: row `r`'s entries are `row_offsets[r]..row_offsets[r + 1]`.
    pub fn row_offsets(&self) -> &DeviceBuffer<i32> {
        &self.row_offsets
    }

    /// The row index of each entry (non-decreasing).
    pub fn row_indices(&self) -> &DeviceBuffer<i32> {
        &self.row_indices
    }

    /// The column index of each entry.
    pub fn col_indices(&self) -> &DeviceBuffer<i32> {
        &self.col_indices
    }

    /// The value of each entry.
    pub fn values(&self) -> &DeviceBuffer<T> {
        &self.values
    }
}

impl<T: Float> TileSet for DeviceCoo<T> {
    fn core(&self) -> &TileCore {
        &self.core
    }
    /// `row_offsets()`.
    fn tile_offsets(&self) -> &DeviceBuffer<i32> {
        &self.row_offsets
    }
    fn push_args<'a>(&'a self, args: &mut ArgList<'a>) {
        super::args::coo(args, self);
    }
}

impl<T> fmt::Debug for DeviceCoo<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceCoo<{}>({}x{}, {} entries)",
            std::any::type_name::<T>(),
            self.rows(),
            self.cols,
            self.nnz()
        )
    }
}

impl Gpu {
    /// Uploads a matrix as a device COO: from a sprs `TriMat` (any order, sorted by row on the host,
    /// stably; duplicates kept), a `CsMat` (either storage order) or a [`Coo32`]. See the COO
    /// policy in [`crate::formats`].
    pub fn upload_coo<T: Float, M: CooSource<T>>(&self, m: &M) -> Result<DeviceCoo<T>> {
        let host = m.to_coo32()?;
        let row_offsets = self.upload(&host.row_offsets)?;
        Ok(DeviceCoo {
            core: TileCore::new(host.rows, host.nnz(), tile_sizes(&host.row_offsets)),
            cols: host.cols,
            row_offsets,
            row_indices: self.upload(&host.row_indices)?,
            col_indices: self.upload(&host.col_indices)?,
            values: self.upload(&host.values)?,
        })
    }

    /// Downloads a device COO matrix as a sprs `TriMat`: its entries in row order, duplicates kept.
    pub fn download_coo<T: Float>(&self, m: &DeviceCoo<T>) -> Result<TriMat<T>> {
        let rows = self.download(&m.row_indices)?;
        let cols = self.download(&m.col_indices)?;
        let values = self.download(&m.values)?;
        Ok(TriMat::from_triplets(
            (m.rows(), m.cols),
            rows.into_iter().map(|r| r as usize).collect(),
            cols.into_iter().map(|c| c as usize).collect(),
            values,
        ))
    }
}
