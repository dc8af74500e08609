//! CSR matrices built on the device from other device matrices, for operations that rebuild a
//! matrix without a host round trip (the degree relabelling of `loops::ops::relabel`): a copy,
//! new column indices swapped in, a matrix of one entry per row (whose transpose is a stable sort
//! of its rows by column), and a CSC read as the CSR of its transpose
//! ([`DeviceCsc::into_csr_of_transpose`]). None reads anything back; the tile sizes an upload
//! counts on the host are the source's, or known.

use kernels_gen::schedule::auto::TileStats;

use super::{TileCore, TileSizes};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::{LoopsError, Result};
use crate::formats::DeviceCsr;

impl<T: Float> DeviceCsr<T> {
    /// A copy of the matrix on the device (offsets, column indices and values; what the runtime
    /// keeps with a matrix is not copied, it is made again on the copy's first launches).
    pub fn duplicate(&self, gpu: &Gpu) -> Result<DeviceCsr<T>> {
        fn copy<E: crate::Element>(gpu: &Gpu, b: &DeviceBuffer<E>) -> Result<DeviceBuffer<E>> {
            let out = gpu.zeros::<E>(b.len())?;
            if !b.is_empty() {
                gpu.copy_device(
                    b.device_ptr(),
                    out.device_ptr(),
                    b.len() * std::mem::size_of::<E>(),
                    "copying a matrix on the device",
                )?;
            }
            Ok(out)
        }
        Ok(DeviceCsr {
            core: TileCore::new(self.core.tiles, self.core.atoms, self.core.sizes),
            cols: self.cols,
            offsets: copy(gpu, &self.offsets)?,
            wide_offsets: match &self.wide_offsets {
                Some(w) => Some(copy(gpu, w)?),
                None => None,
            },
            indices: copy(gpu, &self.indices)?,
            values: copy(gpu, &self.values)?,
        })
    }

    /// The matrix's arrays: its 32-bit offsets (empty for a wide matrix), column indices and
    /// values.
    pub fn into_parts(self) -> (DeviceBuffer<i32>, DeviceBuffer<i32>, DeviceBuffer<T>) {
        (self.offsets, self.indices, self.values)
    }

    /// Gives the matrix new column indices on the device, keeping its offsets and values: swaps
    /// its indices buffer with `indices` (exactly [`nnz`](Self::nnz) elements; another length is
    /// [`LoopsError::InvalidArgument`] and changes nothing). What the runtime kept with the matrix
    /// is dropped (a tuned schedule was measured on the old columns).
    ///
    /// # Safety
    ///
    /// Every index must be in `0..cols` (kernels read `x[col]` unchecked): the indices come from
    /// a kernel that maps valid columns to valid columns, such as a permutation's.
    pub unsafe fn swap_indices(&mut self, indices: &mut DeviceBuffer<i32>) -> Result<()> {
        if indices.len() != self.nnz() {
            return Err(LoopsError::InvalidArgument {
                op: "DeviceCsr::swap_indices",
                detail: format!(
                    "the new indices have {} elements, but the {}x{} matrix has {} stored \
                     entries: give one column per stored entry",
                    indices.len(),
                    self.rows(),
                    self.cols,
                    self.nnz()
                ),
            });
        }
        std::mem::swap(&mut self.indices, indices);
        self.core = TileCore::new(self.core.tiles, self.core.atoms, self.core.sizes);
        Ok(())
    }

    /// The `rows x cols` matrix of one entry per row: row `r`'s at column `indices[r]` with
    /// `values[r]`, its offsets `0, 1, ..., rows` given in `offsets` (written by the caller's
    /// kernel). Its transpose ([`crate::ops::transpose`]) lists the rows column by column, rows
    /// ascending within a column: a stable counting sort of the rows by their column.
    /// `indices` and `values` of another length than `offsets.len() - 1` are
    /// [`LoopsError::InvalidArgument`].
    ///
    /// # Safety
    ///
    /// `offsets` must hold `0, 1, ..., rows` and every index be in `0..cols` (or be written so
    /// before any launch reads them).
    pub unsafe fn one_per_row(
        cols: usize,
        offsets: DeviceBuffer<i32>,
        indices: DeviceBuffer<i32>,
        values: DeviceBuffer<T>,
    ) -> Result<DeviceCsr<T>> {
        let rows = offsets.len().saturating_sub(1);
        if offsets.is_empty() || indices.len() != rows || values.len() != rows {
            return Err(LoopsError::InvalidArgument {
                op: "DeviceCsr::one_per_row",
                detail: format!(
                    "{} offsets, {} indices and {} values: give rows + 1 offsets and one index \
                     and value per row",
                    offsets.len(),
                    indices.len(),
                    values.len()
                ),
            });
        }
        super::check_fits_32("Csr", rows, cols, rows)?;
        Ok(DeviceCsr {
            core: TileCore::new(rows, rows, one_per_row_sizes(rows)),
            cols,
            offsets,
            wide_offsets: None,
            indices,
            values,
        })
    }
}

/// The tile sizes of `rows` tiles of one atom each, as [`super::tile_sizes`] counts them.
fn one_per_row_sizes(rows: usize) -> TileSizes {
    if rows == 0 {
        return super::tile_sizes(&[0]);
    }
    let one = TileStats::of_sizes(std::iter::once(1u64));
    let mut histogram = one.histogram;
    for h in &mut histogram {
        *h *= rows as u64;
    }
    TileSizes {
        stats: TileStats {
            tiles: rows as u64,
            atoms: rows as u64,
            histogram,
            ..one
        },
        split_mdt: kernels_gen::schedule::split::choose_mdt_of_sizes(std::iter::once(1u64)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_per_row_sizes_are_what_an_upload_counts() {
        for rows in [0usize, 1, 7, 1000] {
            let offsets: Vec<i32> = (0..=rows as i32).collect();
            assert_eq!(one_per_row_sizes(rows), super::super::tile_sizes(&offsets));
        }
    }
}
