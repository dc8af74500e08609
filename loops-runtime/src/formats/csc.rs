//! CSC matrices, on the host ([`Csc32`]) and in device memory ([`DeviceCsc`]): tiles are columns,
//! atoms are nonzeros. A CSC matrix is the CSR of its transpose, and is held and checked as one.

use std::fmt;
use std::ops::Add;

use sprs::CsMat;

use super::{check_fits_32, tile_sizes, TileCore, TileSet, TileSizes};
use crate::args::ArgList;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::Result;
use crate::host::{compressed_to_sprs, Csr32, MatrixError};

/// A CSC matrix with 32-bit offsets and row indices: column `c`'s entries are
/// `col_offsets[c]..col_offsets[c + 1]`, their rows in `row_indices`. The CSR of the transpose, and
/// held as one (`Csr32` with rows and columns swapped) so both share one set of checks.
#[derive(Debug, Clone, PartialEq)]
pub struct Csc32<T> {
    /// The rows.
    pub rows: usize,
    /// The columns.
    pub cols: usize,
    /// `cols + 1` offsets: column `c`'s entries are `col_offsets[c]..col_offsets[c + 1]`.
    pub col_offsets: Vec<i32>,
    /// The row of each entry.
    pub row_indices: Vec<i32>,
    /// The value of each entry.
    pub values: Vec<T>,
}

impl<T: Copy> Csc32<T> {
    /// From a sprs matrix in either storage order (CSR is converted; row indices come out sorted
    /// within each column). Sizes are checked before anything is allocated.
    pub fn from_sprs(m: &CsMat<T>) -> Result<Self> {
        check_fits_32("Csc", m.rows(), m.cols(), m.nnz())?;
        // The CSC of A is the CSR of A^T; the transposed view of a CSC matrix is CSR (no copy of
        // the structure's meaning, one copy of its arrays).
        let t: CsMat<T> = m.transpose_view().to_owned();
        let csr = Csr32::from_sprs(&t)?;
        Ok(Csc32 {
            rows: m.rows(),
            cols: m.cols(),
            col_offsets: csr.offsets,
            row_indices: csr.indices,
            values: csr.values,
        })
    }

    /// From raw parts, checking every invariant (those of [`Csr32::from_parts`] for the transpose).
    pub fn from_parts(
        rows: usize,
        cols: usize,
        col_offsets: Vec<i32>,
        row_indices: Vec<i32>,
        values: Vec<T>,
    ) -> Result<Self, MatrixError> {
        let t = Csr32::from_parts(cols, rows, col_offsets, row_indices, values)?;
        Ok(Csc32 {
            rows,
            cols,
            col_offsets: t.offsets,
            row_indices: t.indices,
            values: t.values,
        })
    }

    /// The number of stored entries.
    pub fn nnz(&self) -> usize {
        self.row_indices.len()
    }
}

impl<T: Copy + Add<Output = T>> Csc32<T> {
    /// The sprs matrix (CSC storage).
    #[cfg(test)]
    pub(crate) fn to_sprs(&self) -> CsMat<T> {
        compressed_to_sprs(
            sprs::CompressedStorage::CSC,
            (self.rows, self.cols),
            &self.col_offsets,
            &self.row_indices,
            &self.values,
        )
    }
}

/// A CSC matrix in device memory: tiles are columns, atoms are nonzeros.
pub struct DeviceCsc<T> {
    /// Columns as tiles, nonzeros as atoms.
    core: TileCore,
    rows: usize,
    col_offsets: DeviceBuffer<i32>,
    row_indices: DeviceBuffer<i32>,
    values: DeviceBuffer<T>,
}

impl<T> DeviceCsc<T> {
    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns.
    pub fn cols(&self) -> usize {
        self.core.tiles
    }

    /// The number of stored nonzeros.
    pub fn nnz(&self) -> usize {
        self.core.atoms
    }

    /// The `cols + 1` column offsets.
    pub fn col_offsets(&self) -> &DeviceBuffer<i32> {
        &self.col_offsets
    }

    /// The row index of each nonzero.
    pub fn row_indices(&self) -> &DeviceBuffer<i32> {
        &self.row_indices
    }

    /// The value of each nonzero.
    pub fn values(&self) -> &DeviceBuffer<T> {
        &self.values
    }
}

impl<T> DeviceCsc<T> {
    /// A CSC matrix of `rows` rows from device arrays (for the operations that build one on the
    /// GPU, such as `ops::transpose`): `sizes` are the tile sizes of `col_offsets` (as
    /// [`tile_sizes`] counts them; `sizes.stats` gives the columns and entries). The caller answers
    /// for the arrays: checked offsets, the sizes theirs, and `row_indices` and `values` filled
    /// before anything reads them.
    pub(crate) fn from_device_parts(
        rows: usize,
        col_offsets: DeviceBuffer<i32>,
        sizes: TileSizes,
        row_indices: DeviceBuffer<i32>,
        values: DeviceBuffer<T>,
    ) -> Self {
        let (cols, nnz) = (sizes.stats.tiles as usize, sizes.stats.atoms as usize);
        DeviceCsc {
            core: TileCore::new(cols, nnz, sizes),
            rows,
            col_offsets,
            row_indices,
            values,
        }
    }
}

impl<T> DeviceCsc<T> {
    /// The same arrays read as the CSR matrix of the transpose (`cols x rows`: a CSC matrix is
    /// the CSR of its transpose), with no copy: what [`crate::ops::transpose`] returns for `A` is
    /// then the CSR of `Aᵀ`, rows sorted by column.
    pub fn into_csr_of_transpose(self) -> super::DeviceCsr<T> {
        super::DeviceCsr {
            core: self.core,
            cols: self.rows,
            offsets: self.col_offsets,
            wide_offsets: None,
            indices: self.row_indices,
            values: self.values,
        }
    }
}

impl<T: Float> TileSet for DeviceCsc<T> {
    fn core(&self) -> &TileCore {
        &self.core
    }
    /// `col_offsets()`.
    fn tile_offsets(&self) -> &DeviceBuffer<i32> {
        &self.col_offsets
    }
    fn push_args<'a>(&'a self, args: &mut ArgList<'a>) {
        super::args::csc(args, self);
    }
}

impl<T> fmt::Debug for DeviceCsc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceCsc<{}>({}x{}, {} entries)",
            std::any::type_name::<T>(),
            self.rows,
            self.cols(),
            self.nnz()
        )
    }
}

impl Gpu {
    /// Uploads a sprs matrix (either storage order; CSR is converted) as a device CSC matrix.
    pub fn upload_csc<T: Float>(&self, m: &CsMat<T>) -> Result<DeviceCsc<T>> {
        let host = Csc32::from_sprs(m)?;
        self.upload_csc32(&host)
    }

    /// Uploads a checked host CSC matrix.
    pub fn upload_csc32<T: Float>(&self, m: &Csc32<T>) -> Result<DeviceCsc<T>> {
        let col_offsets = self.upload(&m.col_offsets)?;
        Ok(DeviceCsc {
            core: TileCore::new(m.cols, m.nnz(), tile_sizes(&m.col_offsets)),
            rows: m.rows,
            col_offsets,
            row_indices: self.upload(&m.row_indices)?,
            values: self.upload(&m.values)?,
        })
    }

    /// Downloads a device CSC matrix as a sprs `CsMat` (CSC storage).
    pub fn download_csc<T: Float>(&self, m: &DeviceCsc<T>) -> Result<CsMat<T>> {
        let offsets = super::download_offsets(self, &m.col_offsets, m.cols())?;
        let indices = self.download(&m.row_indices)?;
        let values = self.download(&m.values)?;
        Ok(compressed_to_sprs(
            sprs::CompressedStorage::CSC,
            (m.rows, m.cols()),
            &offsets,
            &indices,
            &values,
        ))
    }
}
