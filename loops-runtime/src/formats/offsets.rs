//! Tile layouts given by offsets alone ([`DeviceOffsets`]): tile `t`'s atoms are the indices
//! `offsets[t]..offsets[t + 1]` into a kernel's own arrays (a graph's vertices and edges, say).

use std::fmt;

use super::wide::needs_wide;
use super::{check_fits_32, tile_sizes, tile_sizes_of, to_i32, TileCore, TileSet};
use crate::args::ArgList;
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::host::MatrixError;

/// Checks a tile layout given by offsets: at least one entry, the first 0, non-decreasing, the
/// last (the number of atoms) and the number of tiles within `i32::MAX`. Returns them as `i32`.
pub(crate) fn checked_offsets(offsets: &[usize]) -> Result<Vec<i32>> {
    let tiles = offsets.len().saturating_sub(1);
    let atoms = offsets.last().copied().unwrap_or(0);
    check_fits_32("Offsets", tiles, 0, atoms)?;
    check_layout(offsets)?;
    Ok(offsets.iter().map(|&o| to_i32(o)).collect())
}

/// [`checked_offsets`] for a layout of more than `i32::MAX` atoms (tiles still within
/// `i32::MAX`): the same checks, the offsets as `i64`.
pub(crate) fn checked_wide_offsets(offsets: &[usize]) -> Result<Vec<i64>> {
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

/// A tile layout given by offsets alone, in device memory: tile `t`'s atoms are the indices
/// `offsets[t]..offsets[t + 1]` (into the kernel's own arrays).
pub struct DeviceOffsets {
    core: TileCore,
    /// The 32-bit offsets; empty when the layout is wide.
    offsets: DeviceBuffer<i32>,
    /// The 64-bit offsets of a layout of more than `i32::MAX` atoms (see [`super::wide`]).
    wide_offsets: Option<DeviceBuffer<i64>>,
}

impl DeviceOffsets {
    /// The `tiles + 1` offsets (empty for a wide layout: see [`DeviceOffsets::wide_offsets`]).
    pub fn offsets(&self) -> &DeviceBuffer<i32> {
        &self.offsets
    }

    /// The 64-bit offsets of a wide layout (`None` for a 32-bit one).
    pub fn wide_offsets(&self) -> Option<&DeviceBuffer<i64>> {
        self.wide_offsets.as_ref()
    }

    /// A 32-bit layout from offsets already on the device (`tiles + 1` of them, `atoms` the
    /// last), for the operations that build one on the GPU (`ops::transpose`'s columns): the
    /// caller answers for the offsets, and for `sizes` (what [`tile_sizes`] counts of them, or,
    /// before they are known, sizes that only a tile-only kernel, one thread per tile, may be
    /// launched with).
    pub(crate) fn from_device_parts(
        offsets: DeviceBuffer<i32>,
        tiles: usize,
        atoms: usize,
        sizes: super::TileSizes,
    ) -> Self {
        DeviceOffsets {
            core: TileCore::new(tiles, atoms, sizes),
            offsets,
            wide_offsets: None,
        }
    }

    /// The 32-bit offsets, given back (empty for a wide layout).
    pub(crate) fn into_offsets(self) -> DeviceBuffer<i32> {
        self.offsets
    }
}

impl TileSet for DeviceOffsets {
    fn core(&self) -> &TileCore {
        &self.core
    }
    /// `offsets()`; empty for a wide layout, whose offsets are [`DeviceOffsets::wide_offsets`].
    fn tile_offsets(&self) -> &DeviceBuffer<i32> {
        &self.offsets
    }
    /// Whether the layout has more than `i32::MAX` atoms and so 64-bit offsets.
    fn is_wide(&self) -> bool {
        self.wide_offsets.is_some()
    }
    fn push_args<'a>(&'a self, args: &mut ArgList<'a>) {
        super::args::offsets(args, self);
    }
}

impl fmt::Debug for DeviceOffsets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceOffsets({} tiles, {} atoms)",
            self.core.tiles, self.core.atoms
        )
    }
}

impl Gpu {
    /// Uploads a tile layout given by `offsets` (`tiles + 1` entries, from 0, non-decreasing).
    /// More than `i32::MAX` atoms get 64-bit offsets (tiles stay within `i32::MAX`), after a
    /// check of the device's free memory.
    pub fn upload_offsets(&self, offsets: &[usize]) -> Result<DeviceOffsets> {
        if offsets.last().is_some_and(|&atoms| needs_wide(atoms)) {
            let checked = checked_wide_offsets(offsets)?;
            let (tiles, atoms) = (offsets.len() - 1, offsets[offsets.len() - 1]);
            self.check_memory(
                &format!("uploading the 64-bit offsets of {tiles} tiles"),
                (checked.len() * 8) as u64,
            )?;
            let narrow = DeviceBuffer::empty();
            let sizes = tile_sizes_of(checked.len(), |i| checked[i] as u64);
            return Ok(DeviceOffsets {
                core: TileCore::new(tiles, atoms, sizes),
                offsets: narrow,
                wide_offsets: Some(self.upload(&checked)?),
            });
        }
        let checked = checked_offsets(offsets)?;
        let (tiles, atoms) = (offsets.len() - 1, offsets[offsets.len() - 1]);
        let offsets = self.upload(&checked)?;
        Ok(DeviceOffsets {
            core: TileCore::new(tiles, atoms, tile_sizes(&checked)),
            offsets,
            wide_offsets: None,
        })
    }
}
