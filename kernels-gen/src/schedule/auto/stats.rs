//! What `auto` (and `split`, `hierarchical`) know of a tile set's sizes without touching the
//! device: counted on the host when the set is uploaded, or over a tile subset by one small kernel.

use crate::schedule::lrb::{bin_of, BINS};

/// The sizes of a set of tiles: counts, the longest tile, the longest run of empty tiles, and the
/// log2 histogram of the sizes (the bins of `lrb`: bin `b >= 1` holds sizes `2^(b-1) + 1 ..= 2^b`,
/// bin 0 sizes 0 and 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileStats {
    pub tiles: u64,
    pub atoms: u64,
    /// Atoms of the largest tile.
    pub max_tile_atoms: u64,
    /// The longest run of consecutive empty tiles: what one thread of `work_oriented` may have to
    /// step through besides its atoms.
    pub longest_empty_run: u64,
    /// Tiles of no atoms (counted in `histogram[0]` too).
    pub empty_tiles: u64,
    /// Tiles per log2 size bin ([`bin_of`]).
    pub histogram: [u64; BINS],
}

impl TileStats {
    /// The statistics of tiles of these sizes, in order.
    pub fn of_sizes(sizes: impl IntoIterator<Item = u64>) -> TileStats {
        let mut s = TileStats::default();
        let mut run = 0;
        for size in sizes {
            s.tiles += 1;
            s.atoms += size;
            s.max_tile_atoms = s.max_tile_atoms.max(size);
            run = if size == 0 { run + 1 } else { 0 };
            s.longest_empty_run = s.longest_empty_run.max(run);
            s.empty_tiles += u64::from(size == 0);
            s.histogram[bin_of(size.min(i32::MAX as u64))] += 1;
        }
        s
    }

    /// Statistics for `tiles` tiles of `atoms` in all, the longest of `max_tile_atoms`, when only
    /// those are known: every tile but the longest at the mean size (for tests and estimates).
    pub fn summary(tiles: u64, atoms: u64, max_tile_atoms: u64) -> TileStats {
        let mut s = TileStats {
            tiles,
            atoms,
            max_tile_atoms,
            ..TileStats::default()
        };
        if tiles == 0 {
            return s;
        }
        let rest = atoms.saturating_sub(max_tile_atoms);
        let mean_rest = if tiles > 1 { rest / (tiles - 1) } else { 0 };
        s.histogram[bin_of(max_tile_atoms.min(i32::MAX as u64))] += 1;
        s.histogram[bin_of(mean_rest.min(i32::MAX as u64))] += tiles - 1;
        if mean_rest == 0 {
            s.empty_tiles = tiles - 1;
        }
        s
    }

    /// These statistics with `run` as the longest run of empty tiles.
    pub fn with_empty_run(self, run: u64) -> TileStats {
        TileStats {
            longest_empty_run: run,
            ..self
        }
    }

    /// The launch shape: tiles and atoms.
    pub fn shape(&self) -> crate::schedule::TileSetShape {
        crate::schedule::TileSetShape {
            tiles: self.tiles,
            atoms: self.atoms,
        }
    }

    /// Mean atoms per tile (0 for no tiles).
    pub fn mean(&self) -> f64 {
        if self.tiles == 0 {
            0.0
        } else {
            self.atoms as f64 / self.tiles as f64
        }
    }

    /// The statistics of `tiles` tiles drawn from this set (a tile subset whose sizes were not
    /// counted): the same size distribution scaled to their number, the same longest tile (an
    /// upper bound), no empty runs longer than the set's.
    pub fn scaled_to(&self, tiles: u64) -> TileStats {
        if self.tiles == 0 {
            return TileStats {
                tiles,
                ..TileStats::default()
            };
        }
        let f = tiles as f64 / self.tiles as f64;
        let mut histogram = [0u64; BINS];
        for (h, &c) in histogram.iter_mut().zip(&self.histogram) {
            *h = (c as f64 * f).round() as u64;
        }
        TileStats {
            tiles,
            atoms: (self.atoms as f64 * f).round() as u64,
            max_tile_atoms: self.max_tile_atoms,
            longest_empty_run: self.longest_empty_run.min(tiles),
            empty_tiles: (self.empty_tiles as f64 * f).round() as u64,
            histogram,
        }
    }
}

impl Default for TileStats {
    fn default() -> Self {
        TileStats {
            tiles: 0,
            atoms: 0,
            max_tile_atoms: 0,
            longest_empty_run: 0,
            empty_tiles: 0,
            histogram: [0; BINS],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_counted() {
        let s = TileStats::of_sizes([0, 0, 3, 1, 0, 17]);
        assert_eq!((s.tiles, s.atoms, s.max_tile_atoms), (6, 21, 17));
        assert_eq!((s.longest_empty_run, s.empty_tiles), (2, 3));
        assert_eq!(s.histogram[0], 4);
        assert_eq!(s.histogram[2], 1);
        assert_eq!(s.histogram[5], 1);
        assert_eq!(s.histogram.iter().sum::<u64>(), 6);
    }

    #[test]
    fn a_summary_keeps_its_totals() {
        let s = TileStats::summary(100, 1000, 100);
        assert_eq!(s.histogram.iter().sum::<u64>(), 100);
        assert_eq!(s.histogram[bin_of(100)], 1);
        let scaled = s.scaled_to(10);
        assert_eq!(
            (scaled.tiles, scaled.atoms, scaled.max_tile_atoms),
            (10, 100, 100)
        );
        assert_eq!(TileStats::summary(0, 0, 0), TileStats::default());
    }
}
