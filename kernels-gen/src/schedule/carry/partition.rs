//! How a tile set is cut, on the host: each thread's segment ([`Partition::segment`]) and where
//! each block's range starts ([`Partition::block_starts`]), by the same searches the emitted CUDA
//! runs (`range.rs`). The runtime takes its launch geometry and kept block starts from here, the
//! model ([`super::model_run`]) and the property tests their segments.

use crate::schedule::split;

/// How the tile set is cut into segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partition {
    /// Equal shares of tiles + atoms along the merge path (Merrill and Garland, SC'16).
    MergePath,
    /// Equal shares of atoms; a tile belongs to the segment that holds its end.
    WorkOriented,
    /// Node splitting: one *virtual tile* per thread, a tile's atoms cut into pieces of at most
    /// `mdt` (an empty tile is one empty piece). Its segments follow [`split::virtual_tile`].
    Split { mdt: u64 },
}

/// One thread's segment: it completes tiles `x0..x1` and processes atoms `y0..y1`; tile `x1` (if it
/// exists) is in progress at the segment's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub x0: u64,
    pub y0: u64,
    pub x1: u64,
    pub y1: u64,
}

/// The largest `x` in `lo..=hi` with `offsets[x] <= bound(x)`; `bound` decreases as `x` grows so the
/// predicate is true up to some point and false after. This is the search the CUDA does too.
fn search(offsets: &[u64], mut lo: u64, mut hi: u64, bound: impl Fn(u64) -> u64) -> u64 {
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if offsets[mid as usize] <= bound(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

impl Partition {
    /// Threads the partition uses: every item of the set covered, at least one thread. For
    /// [`Partition::Split`] the items are the virtual tiles, which the caller counts and passes
    /// as `atoms` (a count of atoms alone cannot tell them).
    pub fn threads(self, tiles: u64, atoms: u64, items_per_thread: u32) -> u64 {
        let items = match self {
            Partition::MergePath => tiles + atoms,
            Partition::WorkOriented | Partition::Split { .. } => atoms,
        };
        items.div_ceil(items_per_thread as u64).max(1)
    }

    /// The segment of thread `thread`. `offsets` has `tiles + 1` entries.
    pub fn segment(self, thread: u64, items_per_thread: u32, offsets: &[u64]) -> Segment {
        let tiles = offsets.len() as u64 - 1;
        let atoms = offsets[tiles as usize];
        let s = items_per_thread as u64;
        match self {
            Partition::MergePath => {
                let total = tiles + atoms;
                let at = |d: u64| {
                    let x = search(offsets, d.saturating_sub(atoms), d.min(tiles), |x| d - x);
                    (x, d - x)
                };
                let (x0, y0) = at((thread * s).min(total));
                let (x1, y1) = at((thread * s + s).min(total));
                Segment { x0, y0, x1, y1 }
            }
            Partition::WorkOriented => {
                let threads = self.threads(tiles, atoms, items_per_thread);
                if thread >= threads {
                    return Segment {
                        x0: tiles,
                        y0: atoms,
                        x1: tiles,
                        y1: atoms,
                    };
                }
                // Tiles whose end is at or before atom `p`: a tile belongs to the segment holding its end.
                let ended_by = |p: u64| search(offsets, 0, tiles, |_| p);
                let y0 = thread * s;
                let y1 = (y0 + s).min(atoms);
                let x0 = if thread == 0 { 0 } else { ended_by(y0) };
                let x1 = if thread == threads - 1 {
                    tiles
                } else {
                    ended_by(y1)
                };
                Segment { x0, y0, x1, y1 }
            }
            Partition::Split { mdt } => {
                // The largest tile whose first virtual tile is at or before `v`.
                let first = split::first_virtual(offsets, mdt);
                let parent = |v: u64| first.partition_point(|&f| f <= v) as u64 - 1;
                if thread >= first[tiles as usize] {
                    return Segment {
                        x0: tiles,
                        y0: atoms,
                        x1: tiles,
                        y1: atoms,
                    };
                }
                let x0 = parent(thread);
                let y0 = offsets[x0 as usize] + (thread - first[x0 as usize]) * mdt;
                // The tile in progress after this piece: the same one, or (its last piece) the next.
                let x1 = parent(thread + 1);
                let y1 = if x1 == x0 {
                    y0 + mdt
                } else {
                    offsets[x1 as usize]
                };
                Segment { x0, y0, x1, y1 }
            }
        }
    }

    pub fn blocks_wanted(self, tiles: u64, atoms: u64, items_per_thread: u32, block: u32) -> u64 {
        self.threads(tiles, atoms, items_per_thread)
            .div_ceil(block as u64)
    }

    /// How a block's range boundary is searched in the offsets: the largest tile `x` with
    /// `offsets[x] + slope * x <= item`, slope 1 on the merge path (its items are tiles + atoms)
    /// and 0 for `work_oriented` (atoms). `None` for [`Partition::Split`], whose ranges are
    /// found in the piece counts.
    pub fn range_slope(self) -> Option<u64> {
        match self {
            Partition::MergePath => Some(1),
            Partition::WorkOriented => Some(0),
            Partition::Split { .. } => None,
        }
    }

    /// Where the ranges of `blocks` blocks of `items_per_block` items start: for each boundary `b`
    /// in `0..=blocks`, the largest tile `x` with `offsets[x] + slope * x <= min(b * items_per_block,
    /// items)` (the slope is 1 on the merge path, whose items are tiles + atoms, and 0 for
    /// `work_oriented`, whose items are atoms). Block `b` runs from `starts[b]` to `starts[b + 1]`:
    /// what its two warp searches find. The runtime computes the same on the GPU once per tile set
    /// (`loops_runtime::launch::block_ranges`), so that the kernel reads two ints instead of searching.
    /// `None` for [`Partition::Split`], whose ranges are found in the piece counts.
    pub fn block_starts(
        self,
        offsets: &[u64],
        items_per_block: u64,
        blocks: u64,
    ) -> Option<Vec<u64>> {
        let tiles = offsets.len() as u64 - 1;
        let slope = self.range_slope()?;
        let items = offsets[tiles as usize] + slope * tiles;
        // No tile past `bound / slope` can qualify (offsets are >= 0), so `bound - slope * x`
        // stays >= 0 over the range searched.
        let start = |bound: u64| {
            let hi = bound
                .checked_div(slope)
                .map_or(tiles, |most| tiles.min(most));
            search(offsets, 0, hi, |x| bound - slope * x)
        };
        Some(
            (0..=blocks)
                .map(|b| start((b * items_per_block).min(items)))
                .collect(),
        )
    }
}

/// A tile subset as the carry schedules run it: position `p` of `list` holds the atoms of tile
/// `list[p]` at the returned virtual offsets (`list.len() + 1` of them), the prefix sum of the listed
/// tiles' sizes, an id outside the set counting 0. The runtime computes the same on the GPU
/// (`loops_runtime::launch::subset`); virtual atom `v` of position `p` is real atom
/// `offsets[list[p]] + v - virtual[p]`.
pub fn subset_offsets(offsets: &[u64], list: &[u64]) -> Vec<u64> {
    let tiles = offsets.len() as u64 - 1;
    let mut virtual_offsets = Vec::with_capacity(list.len() + 1);
    let mut total = 0;
    virtual_offsets.push(0);
    for &id in list {
        if id < tiles {
            total += offsets[id as usize + 1] - offsets[id as usize];
        }
        virtual_offsets.push(total);
    }
    virtual_offsets
}
