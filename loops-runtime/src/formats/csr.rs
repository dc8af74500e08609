//! CSR matrices in device memory: tiles are rows, atoms are nonzeros.

use std::fmt;

use sprs::CsMat;

use super::wide::needs_wide;
use super::{check_fits_32, tile_sizes, TileCore, TileSet};
use crate::args::ArgList;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::Result;
use crate::host::{compressed_to_sprs, Csr32};

impl Gpu {
    /// Checks `m` and uploads it as a CSR matrix with 32-bit indices and 32-bit offsets, or 64-bit
    /// offsets when it has more than `i32::MAX` nonzeros (CSR storage only; its column indices
    /// are then converted to `i32` on the host: for matrices that large,
    /// [`Gpu::upload_csr_parts`] takes 4-byte indices with no copy). Rows or columns beyond
    /// `i32::MAX`, or a wide matrix in CSC storage, are [`LoopsError::TooLarge`](crate::LoopsError::TooLarge), before anything is
    /// allocated.
    pub fn upload_csr<T: Float>(&self, m: &CsMat<T>) -> Result<DeviceCsr<T>> {
        if needs_wide(m.nnz()) && m.is_csr() {
            check_fits_32("Csr", m.rows(), m.cols(), 0)?;
            let indptr = m.indptr();
            let (first, last) = match m.rows() {
                0 => (0, 0),
                r => (
                    indptr.outer_inds_sz(0).start,
                    indptr.outer_inds_sz(r - 1).end,
                ),
            };
            let offsets = indptr.to_proper();
            return self.upload_csr_parts(
                m.rows(),
                m.cols(),
                &offsets,
                &m.indices()[first..last],
                &m.data()[first..last],
            );
        }
        check_fits_32("Csr", m.rows(), m.cols(), m.nnz())?;
        self.upload_csr32(&Csr32::from_sprs(m)?)
    }

    /// Uploads a checked host CSR (the blocks of a distributed matrix are made as `Csr32`).
    pub(crate) fn upload_csr32<T: Float>(&self, host: &Csr32<T>) -> Result<DeviceCsr<T>> {
        let offsets = self.upload(&host.offsets)?;
        Ok(DeviceCsr {
            core: TileCore::new(host.rows, host.nnz(), tile_sizes(&host.offsets)),
            cols: host.cols,
            offsets,
            wide_offsets: None,
            indices: self.upload(&host.indices)?,
            values: self.upload(&host.values)?,
        })
    }

    /// Downloads a device CSR matrix as a sprs `CsMat` (CSR storage). A wide matrix (more than
    /// `i32::MAX` nonzeros) is [`LoopsError::TooLarge`](crate::LoopsError::TooLarge): download
    /// its buffers instead.
    pub fn download_csr<T: Float>(&self, m: &DeviceCsr<T>) -> Result<CsMat<T>> {
        if m.is_wide() {
            check_fits_32("Csr", m.rows(), m.cols(), m.nnz())?;
        }
        let offsets = super::download_offsets(self, m.offsets(), m.rows())?;
        let indices = self.download(m.indices())?;
        let values = self.download(m.values())?;
        Ok(compressed_to_sprs(
            sprs::CompressedStorage::CSR,
            (m.rows(), m.cols()),
            &offsets,
            &indices,
            &values,
        ))
    }
}

/// A CSR matrix in device memory: `rows + 1` offsets, and `nnz` column indices and values (32-bit
/// indices; 32-bit offsets, or 64-bit ones when `nnz` exceeds `i32::MAX`: see [`super::wide`]).
pub struct DeviceCsr<T> {
    /// Rows as tiles, nonzeros as atoms.
    pub(crate) core: TileCore,
    pub(crate) cols: usize,
    /// The 32-bit offsets; empty when the matrix is wide.
    pub(crate) offsets: DeviceBuffer<i32>,
    /// The 64-bit offsets of a matrix of more than `i32::MAX` nonzeros.
    pub(crate) wide_offsets: Option<DeviceBuffer<i64>>,
    pub(crate) indices: DeviceBuffer<i32>,
    pub(crate) values: DeviceBuffer<T>,
}

impl<T> DeviceCsr<T> {
    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.core.tiles
    }

    /// The number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The number of stored nonzeros.
    pub fn nnz(&self) -> usize {
        self.core.atoms
    }

    /// The 64-bit offsets of a wide matrix (`None` for a 32-bit one).
    pub fn wide_offsets(&self) -> Option<&DeviceBuffer<i64>> {
        self.wide_offsets.as_ref()
    }

    /// The `rows + 1` row offsets (empty for a wide matrix: see [`DeviceCsr::wide_offsets`]).
    pub fn offsets(&self) -> &DeviceBuffer<i32> {
        &self.offsets
    }

    /// The column index of each nonzero.
    pub fn indices(&self) -> &DeviceBuffer<i32> {
        &self.indices
    }

    /// The value of each nonzero.
    pub fn values(&self) -> &DeviceBuffer<T> {
        &self.values
    }

    /// Gives the matrix new values on the device, keeping its structure (offsets, column indices):
    /// swaps its values buffer with `values`, which must hold exactly [`nnz`](Self::nnz) elements,
    /// one per stored entry in the matrix's order (as [`values`](Self::values) does). No copy and
    /// no wait; afterwards `values` holds the old values, ready to be written again. A buffer of
    /// another length is [`LoopsError::InvalidArgument`](crate::LoopsError::InvalidArgument) and
    /// changes nothing.
    ///
    /// This is how a chain stays on the GPU: SDDMM writes scores for the pattern of `a`, a kernel
    /// turns them into weights, `swap_values` makes them `a`'s values, and SpMM multiplies by them
    /// (sparse attention). A kernel cannot write into `a.values()` while it reads `a` (Rust's
    /// borrows), so it writes a buffer of `nnz` elements that is then swapped in. What the runtime
    /// keeps with a matrix (row bins, prefix sums, tuned schedules and plans) depends on its
    /// structure only, so it stays valid.
    ///
    /// ```no_run
    /// # use loops_runtime::{device::Gpu, Result};
    /// # fn main() -> Result<()> {
    /// let gpu = Gpu::new(0)?;
    /// let host = loops_runtime::generate::uniform::<f32>(1000, 1000, 8, 1);
    /// let mut a = gpu.upload_csr(&host)?;
    /// let mut weights = gpu.upload(&vec![0.5f32; a.nnz()])?; // e.g. written by a kernel
    /// a.swap_values(&mut weights)?; // `a` now has the weights; `weights` the old values
    /// # Ok(())
    /// # }
    /// ```
    pub fn swap_values(&mut self, values: &mut DeviceBuffer<T>) -> Result<()> {
        if values.len() != self.nnz() {
            return Err(crate::LoopsError::InvalidArgument {
                op: "DeviceCsr::swap_values",
                detail: format!(
                    "the new values have {} elements, but the {}x{} matrix has {} stored entries: \
                     give one value per stored entry, in the order of `values()`",
                    values.len(),
                    self.rows(),
                    self.cols,
                    self.nnz()
                ),
            });
        }
        std::mem::swap(&mut self.values, values);
        Ok(())
    }
}

impl<T: Float> TileSet for DeviceCsr<T> {
    fn core(&self) -> &TileCore {
        &self.core
    }
    /// `offsets()`; empty for a wide matrix, whose offsets are [`DeviceCsr::wide_offsets`].
    fn tile_offsets(&self) -> &DeviceBuffer<i32> {
        &self.offsets
    }
    /// Whether the matrix has more than `i32::MAX` nonzeros and so 64-bit offsets: kernels launch
    /// their 64-bit-offsets instantiation on it, or refuse it (see [`super::wide`]).
    fn is_wide(&self) -> bool {
        self.wide_offsets.is_some()
    }
    fn push_args<'a>(&'a self, args: &mut ArgList<'a>) {
        super::args::csr(args, self);
    }
}

impl<T> fmt::Debug for DeviceCsr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceCsr<{}>({}x{}, {} nonzeros)",
            std::any::type_name::<T>(),
            self.rows(),
            self.cols,
            self.nnz()
        )
    }
}
