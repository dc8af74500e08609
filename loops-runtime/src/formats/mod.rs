//! The tile-set formats: CSR, CSC, COO and a plain offsets layout on the device (the checked host
//! formats are [`host`]), and their exchange with sprs. Every device format is a [`TileSet`].
//!
//! Every format reaches a kernel the same way: a *core* the schedules read (the number of tiles, the
//! number of atoms, `tiles + 1` tile offsets) and the format's own arrays, which it pushes to the
//! kernel's arguments itself (`args.rs`, in the order of the kernel ABI, `kernels_gen::abi`). So
//! every schedule runs on every format unchanged.
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
//! entries of CSC and COO. Every upload checks this first (`check_fits_32`) and returns
//! [`LoopsError::TooLarge`], with the counts, before it allocates anything, on the host or the device.
//! CSR matrices and `Offsets` layouts of more atoms get 64-bit offsets (see [`wide`]).

use kernels_gen::schedule::auto::TileStats;
use kernels_gen::schedule::TileSetShape;

use std::any::Any;
use std::sync::OnceLock;

use crate::args::ArgList;
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{LoopsError, Result};
use crate::host::Dimension;

mod args;
mod coo;
mod csc;
mod csr;
/// The checked host formats, the CPU references and the error of a broken matrix: the room
/// [`crate::host`], below the errors, here at its old path.
pub use crate::host;
mod offsets;
mod rebuild;
pub mod wide;

pub use coo::{Coo32, CooSource, DeviceCoo};
pub use csc::{Csc32, DeviceCsc};
pub use csr::DeviceCsr;
#[cfg(test)]
pub(crate) use offsets::checked_offsets;
pub use offsets::DeviceOffsets;

/// What the schedules and the launch see of a device tile set, whatever its format: its tiles and
/// atoms, the tile offsets, and what it keeps between launches. The kernel wrappers `#[load_balanced]`
/// generates take any format through it.
pub trait TileSet {
    /// What every format holds besides its arrays (made by the uploads): the rest of the trait
    /// reads it.
    fn core(&self) -> &TileCore;
    /// The 32-bit tile offsets (`num_tiles + 1`). Empty for a wide set, whose offsets are 64-bit.
    fn tile_offsets(&self) -> &DeviceBuffer<i32>;
    /// Pushes the set's kernel parameters in ABI order (`rows, cols, nnz, offsets, ...`).
    fn push_args<'a>(&'a self, args: &mut ArgList<'a>);
    /// Whether the set has 64-bit offsets (more than i32::MAX atoms): only CSR and `Offsets`
    /// uploads make them.
    fn is_wide(&self) -> bool {
        false
    }
    /// Tiles (rows of a CSR matrix, columns of a CSC one, vertices of a graph).
    fn num_tiles(&self) -> usize {
        self.core().tiles
    }
    /// Atoms (nonzeros, edges).
    fn num_atoms(&self) -> usize {
        self.core().atoms
    }
    /// The launch shape: tiles and atoms.
    fn shape(&self) -> TileSetShape {
        self.core().shape()
    }
    /// What `schedule = "auto"` chooses by: tiles, atoms, the longest tile's atoms and the longest
    /// run of empty tiles.
    fn stats(&self) -> TileStats {
        self.core().stats()
    }
    /// The piece size chosen at upload from the histogram of tile sizes (`split` and
    /// `hierarchical` without an `mdt` of their own).
    fn split_mdt(&self) -> u64 {
        self.core().split_mdt()
    }
    /// What the launches keep with the set for its life (see [`Kept`]).
    fn kept(&self) -> &Kept {
        &self.core().kept
    }
}

/// What every device tile set holds besides its format's arrays: its counts, the tile sizes counted
/// on upload, and the preprocessing its launches keep. The formats answer most of [`TileSet`] from it.
/// Only the uploads make one, so the formats of this crate are the only tile sets.
pub struct TileCore {
    pub(crate) tiles: usize,
    pub(crate) atoms: usize,
    /// Sizes counted on upload: `schedule = "auto"` and `"split"` look at them.
    sizes: TileSizes,
    /// What `split`, `lrb`, `merge_path` and `work_oriented` compute from the offsets, kept for
    /// later launches.
    kept: Kept,
}

impl TileCore {
    /// The core of a set of `tiles` and `atoms` whose tile sizes are `sizes`.
    pub(crate) fn new(tiles: usize, atoms: usize, sizes: TileSizes) -> Self {
        TileCore {
            tiles,
            atoms,
            sizes,
            kept: Kept::default(),
        }
    }

    pub(crate) fn stats(&self) -> TileStats {
        self.sizes.stats
    }

    pub(crate) fn shape(&self) -> TileSetShape {
        self.stats().shape()
    }

    pub(crate) fn split_mdt(&self) -> u64 {
        self.sizes.split_mdt
    }
}

/// What the launches keep with a tile set for its life: the preprocessing that `split`, `lrb`,
/// `merge_path` and `work_oriented` compute from its offsets and `auto`'s winners on it
/// ([`crate::launch::preprocess::TileSetCache`]). A tile set holds it without knowing what it is
/// (the launch is the room above the formats): one value, made by the first launch that asks.
#[derive(Default)]
pub struct Kept(OnceLock<Box<dyn Any + Send + Sync>>);

impl Kept {
    /// The value kept, made by `make` at the first call. Every caller asks for the same type.
    pub(crate) fn get_or_init<K: Any + Send + Sync>(&self, make: impl FnOnce() -> K) -> &K {
        self.0
            .get_or_init(|| Box::new(make()))
            .downcast_ref()
            .expect("a tile set keeps one type of value")
    }
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "Kept(..)"
        } else {
            "Kept(empty)"
        })
    }
}

/// [`LoopsError::TooLarge`] unless `rows`, `cols` and `nnz` all fit the 32-bit device formats.
/// Pure arithmetic: the uploads call it before any allocation.
pub(crate) fn check_fits_32(
    format: &'static str,
    rows: usize,
    cols: usize,
    nnz: usize,
) -> Result<()> {
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
pub(crate) fn subset_shape(
    kernel: &str,
    set: TileSetShape,
    list_len: usize,
) -> Result<TileSetShape> {
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

pub(crate) fn to_i32(v: usize) -> i32 {
    debug_assert!(v <= i32::MAX as usize, "checked by check_fits_32");
    v as i32
}

/// What a tile set records of its tile sizes on upload, from the host offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TileSizes {
    /// Counts, the longest tile, the longest empty run and the log2 size histogram, for
    /// `schedule = "auto"`'s model.
    pub stats: TileStats,
    /// The max degree threshold `schedule = "split"` uses unless the attribute gives one: the upper
    /// edge of the tallest log2 bin of the sizes (`kernels_gen::schedule::split::choose_mdt`).
    pub split_mdt: u64,
}

/// [`TileSizes`] of checked (non-decreasing) offsets.
pub(crate) fn tile_sizes(offsets: &[i32]) -> TileSizes {
    tile_sizes_of(offsets.len(), |i| offsets[i] as u64)
}

/// [`TileSizes`] of `len` checked offsets, the `i`-th given by `offset(i)` (any width).
pub(crate) fn tile_sizes_of(len: usize, offset: impl Fn(usize) -> u64) -> TileSizes {
    let sizes = || (1..len).map(|i| offset(i) - offset(i - 1));
    TileSizes {
        stats: TileStats::of_sizes(sizes()),
        split_mdt: kernels_gen::schedule::split::choose_mdt_of_sizes(sizes()),
    }
}

/// An offsets buffer (`outer + 1` entries; an empty buffer for a matrix with no allocation is
/// never made: offsets always have at least one entry).
pub(crate) fn download_offsets(gpu: &Gpu, b: &DeviceBuffer<i32>, outer: usize) -> Result<Vec<i32>> {
    let v = gpu.download(b)?;
    debug_assert_eq!(v.len(), outer + 1);
    Ok(v)
}

#[cfg(test)]
mod tests;
