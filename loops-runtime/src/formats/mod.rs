//! The tile-set formats besides CSR ([`crate::device::DeviceCsr`]): CSC, COO and a plain offsets
//! layout, on the host (checked, 32-bit) and on the device, and their exchange with sprs.
//!
//! Every format reaches a kernel the same way: a *core* the schedules read (the number of tiles, the
//! number of atoms, `tiles + 1` tile offsets) and the format's own arrays (see the kernel ABI in
//! [`crate::launch`]). So every schedule runs on every format unchanged.
//!
//! | format | tiles | atoms | arrays in a kernel |
//! |---|---|---|---|
//! | [`DeviceCsr`] | rows | nonzeros | `values`, `col_indices`, `row_offsets` |
//! | [`DeviceCsc`] | columns | nonzeros | `values`, `row_indices`, `col_offsets` |
//! | [`DeviceCoo`] | rows | entries | `values`, `row_indices`, `col_indices` |
//! | [`DeviceOffsets`] | given by the offsets | indices `offsets[t]..offsets[t + 1]` | `offsets` |
//!
//! **COO policy.** A device COO is always sorted by row, so that its tiles (rows) are contiguous
//! ranges of entries: the upload sorts the entries by row on the host (a stable counting sort,
//! linear time; entries of one row keep their input order; input already sorted by row keeps its
//! exact order, so atom `k` is input entry `k`) and builds the row offsets. Duplicate entries are
//! kept as separate atoms (a kernel summing into its row adds them, as COO means). Nothing is merged
//! or dropped, so [`Gpu::download_coo`] gives back the same triplets, in row order.
//!
//! **Sizes.** Indices are 32-bit: rows and columns must each be at most `i32::MAX`, and so must the
//! entries of CSC and COO. Every upload checks this first ([`check_fits_32`]) and returns
//! [`LoopsError::TooLarge`], with the counts, before it allocates anything, on the host or the device.
//! CSR matrices and `Offsets` layouts of more atoms get 64-bit offsets (see [`crate::formats::wide`]).

use kernels_gen::schedule::auto::TileStats;
use kernels_gen::schedule::TileSetShape;
use std::ops::Add;

use sprs::{CsMat, TriMat};

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::{LoopsError, Result};
use crate::formats::host::{Csr32, Dimension, MatrixError};
use crate::launch::preprocess::TileSetCache;
use crate::launch::{KernelArgs, Param};

mod csr;
pub mod host;
pub mod wide;

pub use csr::DeviceCsr;

/// [`LoopsError::TooLarge`] unless `rows`, `cols` and `nnz` all fit the 32-bit device formats.
/// Pure arithmetic: the uploads call it before any allocation.
pub fn check_fits_32(format: &'static str, rows: usize, cols: usize, nnz: usize) -> Result<()> {
    let max = i32::MAX as usize;
    let what = if rows > max {
        Dimension::Rows
    } else if cols > max {
        Dimension::Cols
    } else if nnz > max {
        Dimension::Nnz
    } else {
        return Ok(());
    };
    Err(LoopsError::TooLarge {
        format,
        rows,
        cols,
        nnz,
        what,
    })
}

/// The launch shape of a tile subset: one tile per entry of its list (the kernel wrapper of a
/// `tiles_in` loop calls this).
pub fn subset_shape(kernel: &str, set: TileSetShape, list_len: usize) -> Result<TileSetShape> {
    if list_len > i32::MAX as usize {
        return Err(LoopsError::SubsetTooLarge {
            kernel: kernel.to_string(),
            len: list_len,
        });
    }
    Ok(TileSetShape {
        tiles: list_len as u64,
        atoms: set.atoms,
    })
}

fn to_i32(v: usize) -> i32 {
    debug_assert!(v <= i32::MAX as usize, "checked by check_fits_32");
    v as i32
}

// ---------------------------------------------------------------------------------------------
// CSC

/// A CSC matrix with 32-bit offsets and row indices: column `c`'s entries are
/// `col_offsets[c]..col_offsets[c + 1]`, their rows in `row_indices`. The CSR of the transpose, and
/// held as one (`Csr32` with rows and columns swapped) so both share one set of checks.
#[derive(Debug, Clone, PartialEq)]
pub struct Csc32<T> {
    pub rows: usize,
    pub cols: usize,
    pub col_offsets: Vec<i32>,
    pub row_indices: Vec<i32>,
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

    pub fn nnz(&self) -> usize {
        self.row_indices.len()
    }
}

impl<T: Copy + Add<Output = T>> Csc32<T> {
    /// The sprs matrix (CSC storage).
    pub fn to_sprs(&self) -> CsMat<T> {
        compressed_to_sprs(
            sprs::CompressedStorage::CSC,
            (self.rows, self.cols),
            &self.col_offsets,
            &self.row_indices,
            &self.values,
        )
    }
}

/// A sprs matrix from 32-bit compressed arrays (outer = rows for CSR, columns for CSC). Inner
/// indices unsorted within an outer slice (possible for a matrix built from raw parts) are sorted,
/// values following; duplicates are kept.
fn compressed_to_sprs<T: Copy + Add<Output = T>>(
    storage: sprs::CompressedStorage,
    shape: (usize, usize),
    offsets: &[i32],
    indices: &[i32],
    values: &[T],
) -> CsMat<T> {
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
            sprs::CompressedStorage::CSR => CsMat::try_new(shape, indptr, idx, data),
            sprs::CompressedStorage::CSC => CsMat::try_new_csc(shape, indptr, idx, data),
        };
        return made.unwrap_or_else(|(_, _, _, e)| panic!("checked compressed arrays: {e}"));
    }
    // Triplets (outer, inner): the CSR of the matrix, or of its transpose for CSC.
    let outer_shape = match storage {
        sprs::CompressedStorage::CSR => shape,
        sprs::CompressedStorage::CSC => (shape.1, shape.0),
    };
    let mut t = TriMat::with_capacity(outer_shape, idx.len());
    for (outer, w) in indptr.windows(2).enumerate() {
        for k in w[0]..w[1] {
            t.add_triplet(outer, idx[k], data[k]);
        }
    }
    let csr: CsMat<T> = crate::formats::host::csr_from_triplets(&t);
    match storage {
        sprs::CompressedStorage::CSR => csr,
        sprs::CompressedStorage::CSC => csr.transpose_into(),
    }
}

// ---------------------------------------------------------------------------------------------
// COO

/// A COO matrix with 32-bit indices, sorted by row (see the module's COO policy), with the row
/// offsets that make its rows tiles: row `r`'s entries are `row_offsets[r]..row_offsets[r + 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Coo32<T> {
    pub rows: usize,
    pub cols: usize,
    pub row_offsets: Vec<i32>,
    pub row_indices: Vec<i32>,
    pub col_indices: Vec<i32>,
    pub values: Vec<T>,
}

impl<T: Copy> Coo32<T> {
    /// From triplets in any order: checked (sizes first, then every index in range), then sorted
    /// by row, stably.
    pub fn from_triplets(
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
    pub fn from_trimat(t: &TriMat<T>) -> Result<Self> {
        Self::from_triplets((t.rows(), t.cols()), t.row_inds(), t.col_inds(), t.data())
    }

    /// From a sprs compressed matrix: CSR in its order; CSC converted (entries of a row in column
    /// order).
    pub fn from_sprs(m: &CsMat<T>) -> Result<Self> {
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

    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// The sprs triplet matrix, entries in this (row-sorted) order, duplicates kept.
    pub fn to_trimat(&self) -> TriMat<T> {
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

// ---------------------------------------------------------------------------------------------
// Offsets

/// Checks a tile layout given by offsets: at least one entry, the first 0, non-decreasing, the
/// last (the number of atoms) and the number of tiles within `i32::MAX`. Returns them as `i32`.
pub fn checked_offsets(offsets: &[usize]) -> Result<Vec<i32>> {
    let tiles = offsets.len().saturating_sub(1);
    let atoms = offsets.last().copied().unwrap_or(0);
    check_fits_32("Offsets", tiles, 0, atoms)?;
    check_layout(offsets)?;
    Ok(offsets.iter().map(|&o| to_i32(o)).collect())
}

/// [`checked_offsets`] for a layout of more than `i32::MAX` atoms (tiles still within
/// `i32::MAX`): the same checks, the offsets as `i64`.
pub fn checked_wide_offsets(offsets: &[usize]) -> Result<Vec<i64>> {
    let tiles = offsets.len().saturating_sub(1);
    check_fits_32("Offsets", tiles, 0, 0)?;
    check_layout(offsets)?;
    Ok(offsets.iter().map(|&o| o as i64).collect())
}

/// At least one offset, the first 0, non-decreasing.
fn check_layout(offsets: &[usize]) -> Result<()> {
    if offsets.is_empty() {
        return Err(MatrixError::OffsetsLength {
            rows: 0,
            len: 0,
            expected: 1,
        }
        .into());
    }
    if offsets[0] != 0 {
        return Err(MatrixError::FirstOffset {
            value: offsets[0] as i64,
        }
        .into());
    }
    for (i, w) in offsets.windows(2).enumerate() {
        if w[1] < w[0] {
            return Err(MatrixError::OffsetsDecrease {
                position: i + 1,
                value: w[1] as i64,
                previous: w[0] as i64,
            }
            .into());
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Device formats

/// What a tile set records of its tile sizes on upload, from the host offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TileSizes {
    /// Atoms of the longest tile, for `schedule = "auto"`.
    pub longest: u64,
    /// The longest run of consecutive empty tiles, for `schedule = "auto"`.
    pub longest_empty_run: u64,
    /// The max degree threshold `schedule = "split"` uses unless the attribute gives one: the upper
    /// edge of the tallest log2 bin of the sizes (`kernels_gen::schedule::split::choose_mdt`).
    pub split_mdt: u64,
}

/// The longest run of consecutive zeros in `sizes`.
fn longest_run_of_zeros(sizes: impl Iterator<Item = u64>) -> u64 {
    let (mut run, mut longest) = (0, 0);
    for size in sizes {
        run = if size == 0 { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// [`TileSizes`] of checked (non-decreasing) offsets.
pub(crate) fn tile_sizes(offsets: &[i32]) -> TileSizes {
    tile_sizes_of(offsets.len(), |i| offsets[i] as u64)
}

/// [`TileSizes`] of `len` checked offsets, the `i`-th given by `offset(i)` (any width).
pub(crate) fn tile_sizes_of(len: usize, offset: impl Fn(usize) -> u64) -> TileSizes {
    let sizes = || (1..len).map(|i| offset(i) - offset(i - 1));
    TileSizes {
        longest: sizes().max().unwrap_or(0),
        longest_empty_run: longest_run_of_zeros(sizes()),
        split_mdt: kernels_gen::schedule::split::choose_mdt_of_sizes(sizes()),
    }
}

/// A CSC matrix in device memory: tiles are columns, atoms are nonzeros.
pub struct DeviceCsc<T> {
    rows: usize,
    cols: usize,
    nnz: usize,
    sizes: TileSizes,
    cache: TileSetCache,
    col_offsets: DeviceBuffer<i32>,
    row_indices: DeviceBuffer<i32>,
    values: DeviceBuffer<T>,
}

/// A COO matrix in device memory, sorted by row, with its row offsets: tiles are rows, atoms are
/// entries.
pub struct DeviceCoo<T> {
    rows: usize,
    cols: usize,
    nnz: usize,
    sizes: TileSizes,
    cache: TileSetCache,
    row_offsets: DeviceBuffer<i32>,
    row_indices: DeviceBuffer<i32>,
    col_indices: DeviceBuffer<i32>,
    values: DeviceBuffer<T>,
}

/// A tile layout given by offsets alone, in device memory: tile `t`'s atoms are the indices
/// `offsets[t]..offsets[t + 1]` (into the kernel's own arrays).
pub struct DeviceOffsets {
    tiles: usize,
    atoms: usize,
    sizes: TileSizes,
    cache: TileSetCache,
    /// The 32-bit offsets; empty when the layout is wide.
    offsets: DeviceBuffer<i32>,
    /// The 64-bit offsets of a layout of more than `i32::MAX` atoms (see [`crate::formats::wide`]).
    wide_offsets: Option<DeviceBuffer<i64>>,
}

macro_rules! matrix_sizes {
    ($ty:ident, $tiles:ident, $doc:literal) => {
        impl<T> $ty<T> {
            pub fn rows(&self) -> usize {
                self.rows
            }
            pub fn cols(&self) -> usize {
                self.cols
            }
            pub fn nnz(&self) -> usize {
                self.nnz
            }
            #[doc = $doc]
            pub fn num_tiles(&self) -> usize {
                self.$tiles
            }
            /// The number of atoms: the stored entries.
            pub fn num_atoms(&self) -> usize {
                self.nnz
            }
            /// The launch shape: tiles and atoms.
            pub fn shape(&self) -> TileSetShape {
                self.stats().shape()
            }
            /// The pieces `schedule = "split"` cuts tiles into, unless the attribute says.
            pub fn split_mdt(&self) -> u64 {
                self.sizes.split_mdt
            }
            /// What `split` and `lrb` launches keep of their preprocessing of this tile set.
            pub fn preprocessed(&self) -> &TileSetCache {
                &self.cache
            }
            /// What `schedule = "auto"` chooses by.
            pub fn stats(&self) -> TileStats {
                TileStats {
                    tiles: self.num_tiles() as u64,
                    atoms: self.nnz as u64,
                    max_tile_atoms: self.sizes.longest,
                    longest_empty_run: self.sizes.longest_empty_run,
                }
            }
            pub fn values(&self) -> &DeviceBuffer<T> {
                &self.values
            }
            /// Always false: this format has 32-bit offsets only (its uploads refuse more than
            /// `i32::MAX` entries).
            pub fn is_wide(&self) -> bool {
                false
            }
        }

        impl<T> std::fmt::Debug for $ty<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(
                    f,
                    "{}<{}>({}x{}, {} entries)",
                    stringify!($ty),
                    std::any::type_name::<T>(),
                    self.rows,
                    self.cols,
                    self.nnz
                )
            }
        }
    };
}
matrix_sizes!(DeviceCsc, cols, "The number of tiles: the columns.");
matrix_sizes!(DeviceCoo, rows, "The number of tiles: the rows.");

impl<T> DeviceCsc<T> {
    /// The tile offsets: `col_offsets()` (every tile set has `tile_offsets()`).
    pub fn tile_offsets(&self) -> &DeviceBuffer<i32> {
        &self.col_offsets
    }
    pub fn col_offsets(&self) -> &DeviceBuffer<i32> {
        &self.col_offsets
    }
    pub fn row_indices(&self) -> &DeviceBuffer<i32> {
        &self.row_indices
    }
}

impl<T> DeviceCoo<T> {
    /// The tile offsets: `row_offsets()` (every tile set has `tile_offsets()`).
    pub fn tile_offsets(&self) -> &DeviceBuffer<i32> {
        &self.row_offsets
    }
    pub fn row_offsets(&self) -> &DeviceBuffer<i32> {
        &self.row_offsets
    }
    pub fn row_indices(&self) -> &DeviceBuffer<i32> {
        &self.row_indices
    }
    pub fn col_indices(&self) -> &DeviceBuffer<i32> {
        &self.col_indices
    }
}

impl DeviceOffsets {
    pub fn num_tiles(&self) -> usize {
        self.tiles
    }
    pub fn num_atoms(&self) -> usize {
        self.atoms
    }
    pub fn shape(&self) -> TileSetShape {
        self.stats().shape()
    }
    /// The pieces `schedule = "split"` cuts tiles into, unless the attribute says.
    pub fn split_mdt(&self) -> u64 {
        self.sizes.split_mdt
    }
    /// What `split` and `lrb` launches keep of their preprocessing of this tile set.
    pub fn preprocessed(&self) -> &TileSetCache {
        &self.cache
    }
    /// What `schedule = "auto"` chooses by.
    pub fn stats(&self) -> TileStats {
        TileStats {
            tiles: self.tiles as u64,
            atoms: self.atoms as u64,
            max_tile_atoms: self.sizes.longest,
            longest_empty_run: self.sizes.longest_empty_run,
        }
    }
    /// The tile offsets: `offsets()` (every tile set has `tile_offsets()`). Empty for a wide
    /// layout, whose offsets are [`DeviceOffsets::wide_offsets`].
    pub fn tile_offsets(&self) -> &DeviceBuffer<i32> {
        &self.offsets
    }
    pub fn offsets(&self) -> &DeviceBuffer<i32> {
        &self.offsets
    }
    /// Whether the layout has more than `i32::MAX` atoms and so 64-bit offsets.
    pub fn is_wide(&self) -> bool {
        self.wide_offsets.is_some()
    }
    /// The 64-bit offsets of a wide layout (`None` for a 32-bit one).
    pub fn wide_offsets(&self) -> Option<&DeviceBuffer<i64>> {
        self.wide_offsets.as_ref()
    }
}

impl std::fmt::Debug for DeviceOffsets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceOffsets({} tiles, {} atoms)",
            self.tiles, self.atoms
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
            rows: m.rows,
            cols: m.cols,
            nnz: m.nnz(),
            sizes: tile_sizes(&m.col_offsets),
            cache: TileSetCache::new(&col_offsets),
            col_offsets,
            row_indices: self.upload(&m.row_indices)?,
            values: self.upload(&m.values)?,
        })
    }

    /// Uploads a matrix as a device COO: from a sprs `TriMat` (any order, sorted by row on the host,
    /// stably; duplicates kept), a `CsMat` (either storage order) or a [`Coo32`]. See the module's
    /// COO policy.
    pub fn upload_coo<T: Float, M: CooSource<T>>(&self, m: &M) -> Result<DeviceCoo<T>> {
        let host = m.to_coo32()?;
        let row_offsets = self.upload(&host.row_offsets)?;
        Ok(DeviceCoo {
            rows: host.rows,
            cols: host.cols,
            nnz: host.nnz(),
            sizes: tile_sizes(&host.row_offsets),
            cache: TileSetCache::new(&row_offsets),
            row_offsets,
            row_indices: self.upload(&host.row_indices)?,
            col_indices: self.upload(&host.col_indices)?,
            values: self.upload(&host.values)?,
        })
    }

    /// Uploads a tile layout given by `offsets` (`tiles + 1` entries, from 0, non-decreasing).
    /// More than `i32::MAX` atoms get 64-bit offsets (tiles stay within `i32::MAX`), after a
    /// check of the device's free memory.
    pub fn upload_offsets(&self, offsets: &[usize]) -> Result<DeviceOffsets> {
        if offsets
            .last()
            .is_some_and(|&atoms| crate::formats::wide::needs_wide(atoms))
        {
            let checked = checked_wide_offsets(offsets)?;
            let (tiles, atoms) = (offsets.len() - 1, offsets[offsets.len() - 1]);
            self.check_memory(
                &format!("uploading the 64-bit offsets of {tiles} tiles"),
                (checked.len() * 8) as u64,
            )?;
            let narrow = DeviceBuffer::empty();
            return Ok(DeviceOffsets {
                tiles,
                atoms,
                sizes: tile_sizes_of(checked.len(), |i| checked[i] as u64),
                cache: TileSetCache::new(&narrow),
                offsets: narrow,
                wide_offsets: Some(self.upload(&checked)?),
            });
        }
        let checked = checked_offsets(offsets)?;
        let (tiles, atoms) = (offsets.len() - 1, offsets[offsets.len() - 1]);
        let offsets = self.upload(&checked)?;
        Ok(DeviceOffsets {
            tiles,
            atoms,
            sizes: tile_sizes(&checked),
            cache: TileSetCache::new(&offsets),
            offsets,
            wide_offsets: None,
        })
    }

    /// Downloads a device CSR matrix as a sprs `CsMat` (CSR storage). A wide matrix (more than
    /// `i32::MAX` nonzeros) is [`LoopsError::TooLarge`]: download its buffers instead.
    pub fn download_csr<T: Float>(&self, m: &DeviceCsr<T>) -> Result<CsMat<T>> {
        if m.is_wide() {
            check_fits_32("Csr", m.rows(), m.cols(), m.nnz())?;
        }
        let offsets = self.download_offsets(m.offsets(), m.rows())?;
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

    /// Downloads a device CSC matrix as a sprs `CsMat` (CSC storage).
    pub fn download_csc<T: Float>(&self, m: &DeviceCsc<T>) -> Result<CsMat<T>> {
        let offsets = self.download_offsets(&m.col_offsets, m.cols)?;
        let indices = self.download(&m.row_indices)?;
        let values = self.download(&m.values)?;
        Ok(compressed_to_sprs(
            sprs::CompressedStorage::CSC,
            (m.rows, m.cols),
            &offsets,
            &indices,
            &values,
        ))
    }

    /// Downloads a device COO matrix as a sprs `TriMat`: its entries in row order, duplicates kept.
    pub fn download_coo<T: Float>(&self, m: &DeviceCoo<T>) -> Result<TriMat<T>> {
        let rows = self.download(&m.row_indices)?;
        let cols = self.download(&m.col_indices)?;
        let values = self.download(&m.values)?;
        Ok(TriMat::from_triplets(
            (m.rows, m.cols),
            rows.into_iter().map(|r| r as usize).collect(),
            cols.into_iter().map(|c| c as usize).collect(),
            values,
        ))
    }

    /// An offsets buffer (`outer + 1` entries; an empty buffer for a matrix with no allocation is
    /// never made: offsets always have at least one entry).
    fn download_offsets(&self, b: &DeviceBuffer<i32>, outer: usize) -> Result<Vec<i32>> {
        let v = self.download(b)?;
        debug_assert_eq!(v.len(), outer + 1);
        Ok(v)
    }
}

impl<'a> KernelArgs<'a> {
    /// A CSC matrix, as the CSR of its transpose: tiles (its columns), the other dimension (its
    /// rows), nnz (`int`), column offsets, row indices, values (pointers).
    pub fn csc<T: Float>(&mut self, m: &'a DeviceCsc<T>) -> &mut Self {
        let int = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        self.push_value(int(m.cols), Param::Csr("int rows (tiles: the columns)"));
        self.push_value(int(m.rows), Param::Csr("int cols (the rows)"));
        self.push_value(int(m.nnz), Param::Csr("int nnz"));
        self.push_buffer(&m.col_offsets, Param::Csr("const int* offsets"));
        self.push_buffer(&m.row_indices, Param::Csr("const int* indices"));
        self.push_buffer(&m.values, Param::CsrValues(T::CUDA_NAME));
        self
    }

    /// A COO matrix: rows, cols, nnz (`int`), row offsets, row indices, column indices, values.
    pub fn coo<T: Float>(&mut self, m: &'a DeviceCoo<T>) -> &mut Self {
        let int = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        self.push_value(int(m.rows), Param::Csr("int rows"));
        self.push_value(int(m.cols), Param::Csr("int cols"));
        self.push_value(int(m.nnz), Param::Csr("int nnz"));
        self.push_buffer(&m.row_offsets, Param::Csr("const int* offsets"));
        self.push_buffer(&m.row_indices, Param::Csr("const int* row_indices"));
        self.push_buffer(&m.col_indices, Param::Csr("const int* col_indices"));
        self.push_buffer(&m.values, Param::CsrValues(T::CUDA_NAME));
        self
    }

    /// An offsets layout: tiles, atoms (`int`), offsets; a wide one, atoms as `long long` and its
    /// 64-bit offsets (as a kernel's 64-bit-offsets instantiation takes them).
    pub fn offsets(&mut self, m: &'a DeviceOffsets) -> &mut Self {
        let int = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        self.push_value(int(m.tiles), Param::Csr("int rows (tiles)"));
        match &m.wide_offsets {
            Some(wide) => {
                self.push_value(m.atoms as i64, Param::Csr("long long nnz (atoms)"));
                self.push_buffer(wide, Param::Csr("const long long* offsets"));
            }
            None => {
                self.push_value(int(m.atoms), Param::Csr("int nnz (atoms)"));
                self.push_buffer(&m.offsets, Param::Csr("const int* offsets"));
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
        let of = |offsets: &[i32]| tile_sizes(offsets);
        assert_eq!(of(&[0]).longest_empty_run, 0);
        assert_eq!(of(&[0, 0, 0]).longest_empty_run, 2);
        // Sizes 0, 3, 0, 0, 0, 1, 0: runs of 1, 3 and 1.
        let t = of(&[0, 0, 3, 3, 3, 3, 4, 4]);
        assert_eq!((t.longest, t.longest_empty_run), (3, 3));
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
}
