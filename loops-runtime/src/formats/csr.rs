//! CSR matrices in device memory.

use std::fmt;

use kernels_gen::schedule::auto::TileStats;
use kernels_gen::schedule::TileSetShape;

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::Result;
use crate::launch::preprocess::TileSetCache;

impl Gpu {
    /// Checks `m` and uploads it as a CSR matrix with 32-bit indices and 32-bit offsets, or 64-bit
    /// offsets when it has more than `i32::MAX` nonzeros (CSR storage only; its column indices
    /// are then converted to `i32` on the host: for matrices that large,
    /// [`Gpu::upload_csr_parts`] takes 4-byte indices with no copy). Rows or columns beyond
    /// `i32::MAX`, or a wide matrix in CSC storage, are [`LoopsError::TooLarge`], before anything is
    /// allocated.
    pub fn upload_csr<T: Float>(&self, m: &sprs::CsMat<T>) -> Result<DeviceCsr<T>> {
        if crate::formats::wide::needs_wide(m.nnz()) && m.is_csr() {
            crate::formats::check_fits_32("Csr", m.rows(), m.cols(), 0)?;
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
        crate::formats::check_fits_32("Csr", m.rows(), m.cols(), m.nnz())?;
        let host = crate::formats::host::Csr32::from_sprs(m)?;
        let sizes = crate::formats::tile_sizes(&host.offsets);
        let offsets = self.upload(&host.offsets)?;
        Ok(DeviceCsr {
            rows: host.rows,
            cols: host.cols,
            nnz: host.nnz(),
            sizes,
            cache: TileSetCache::new(&offsets),
            offsets,
            wide_offsets: None,
            indices: self.upload(&host.indices)?,
            values: self.upload(&host.values)?,
        })
    }
}

/// A CSR matrix in device memory: `rows + 1` offsets, and `nnz` column indices and values (32-bit
/// indices; 32-bit offsets, or 64-bit ones when `nnz` exceeds `i32::MAX`: see [`crate::formats::wide`]).
pub struct DeviceCsr<T> {
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) nnz: usize,
    /// Sizes counted on upload: `schedule = "auto"` and `"split"` look at them.
    pub(crate) sizes: crate::formats::TileSizes,
    /// What `split` and `lrb` compute from the offsets, kept for later launches.
    pub(crate) cache: TileSetCache,
    /// The 32-bit offsets; empty when the matrix is wide.
    pub(crate) offsets: DeviceBuffer<i32>,
    /// The 64-bit offsets of a matrix of more than `i32::MAX` nonzeros.
    pub(crate) wide_offsets: Option<DeviceBuffer<i64>>,
    pub(crate) indices: DeviceBuffer<i32>,
    pub(crate) values: DeviceBuffer<T>,
}

impl<T> DeviceCsr<T> {
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// The number of tiles: the rows.
    pub fn num_tiles(&self) -> usize {
        self.rows
    }

    /// The number of atoms: the nonzeros.
    pub fn num_atoms(&self) -> usize {
        self.nnz
    }

    /// The tile set of the matrix: one tile per row, one atom per nonzero.
    pub fn shape(&self) -> TileSetShape {
        self.stats().shape()
    }

    /// What `schedule = "auto"` chooses by: rows, nonzeros, the longest row's nonzeros and the
    /// longest run of empty rows.
    pub fn stats(&self) -> TileStats {
        TileStats {
            tiles: self.rows as u64,
            atoms: self.nnz as u64,
            max_tile_atoms: self.sizes.longest,
            longest_empty_run: self.sizes.longest_empty_run,
        }
    }

    /// The tile offsets: `offsets()` (every tile set has `tile_offsets()`). Empty for a wide matrix
    /// ([`DeviceCsr::is_wide`]), whose offsets are [`DeviceCsr::wide_offsets`].
    pub fn tile_offsets(&self) -> &DeviceBuffer<i32> {
        &self.offsets
    }
    /// Whether the matrix has more than `i32::MAX` nonzeros and so 64-bit offsets: kernels launch
    /// their 64-bit-offsets instantiation on it, or refuse it (see [`crate::formats::wide`]).
    pub fn is_wide(&self) -> bool {
        self.wide_offsets.is_some()
    }
    /// The 64-bit offsets of a wide matrix (`None` for a 32-bit one).
    pub fn wide_offsets(&self) -> Option<&DeviceBuffer<i64>> {
        self.wide_offsets.as_ref()
    }
    /// The pieces `schedule = "split"` cuts rows into, unless the attribute says.
    pub fn split_mdt(&self) -> u64 {
        self.sizes.split_mdt
    }
    /// What `split` and `lrb` launches keep of their preprocessing of this tile set.
    pub fn preprocessed(&self) -> &TileSetCache {
        &self.cache
    }
    pub fn offsets(&self) -> &DeviceBuffer<i32> {
        &self.offsets
    }

    pub fn indices(&self) -> &DeviceBuffer<i32> {
        &self.indices
    }

    pub fn values(&self) -> &DeviceBuffer<T> {
        &self.values
    }
}

impl<T> fmt::Debug for DeviceCsr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceCsr<{}>({}x{}, {} nonzeros)",
            std::any::type_name::<T>(),
            self.rows,
            self.cols,
            self.nnz
        )
    }
}
