//! Node splitting (Raval et al., dynamic load-balancing strategies for graph applications): the
//! pure-Rust model of the idea. The CUDA lowering (`schedule = "split"`) is the carry protocol with
//! one virtual tile per thread ([`super::carry::Partition::Split`]). A tile longer than the *max degree threshold* `mdt` is cut
//! into *virtual tiles* of at most `mdt` atoms each, without copying atoms: a virtual tile is just
//! (parent tile, first atom, end atom). The virtual tiles then run one per thread, and the partials of
//! a parent cut into several combine into the parent, whose epilogue runs once with the complete sum.
//!
//! On the GPU the virtual tiles need not be stored either: each tile's piece count
//! ([`pieces`]) is prefix-summed into [`first_virtual`], and a thread finds the parent of virtual tile
//! `v` by a binary search of that scan ([`virtual_tile`]).

use super::carry::ModelRun;
use super::lrb::{bin_of, bin_upper_edge, BINS};
use super::{thread, DeviceLimits, Hidden, Schedule, ScheduleConfig, ScheduleUnit, TileSetShape};

/// Its named schedules ([`super::SCHEDULES`]).
pub const NAMED: &[super::NamedSchedule] = &[
    super::NamedSchedule {
        name: "split",
        attr: r#"schedule = "split""#,
        about: "node splitting (Raval et al.): tiles cut into pieces of at most `mdt` atoms (from the size histogram), one per thread; carry fix-up",
        core: true,
    },
    super::NamedSchedule {
        name: "split3",
        attr: r#"schedule = "split", mdt = 3"#,
        about: "`split` with pieces of at most 3 atoms: most tiles are cut, many across blocks",
        core: false,
    },
];

/// `schedule = "split"`.
pub struct Split;

impl ScheduleUnit for Split {
    fn names(&self) -> &'static [&'static str] {
        &["split"]
    }

    fn arg_keys(&self, _name: &str) -> &'static [&'static str] {
        &["mdt"]
    }

    fn describe(&self, schedule: Schedule) -> String {
        match mdt(schedule) {
            0 => "split (mdt from the size histogram)".into(),
            mdt => format!("split mdt {mdt}"),
        }
    }

    fn carries(&self) -> bool {
        true
    }

    /// The prefix sum of the tiles' piece counts and the piece size (after the subset's prefix
    /// sum over a subset).
    fn hidden_params(&self, _schedule: Schedule, over_subset: bool) -> &'static [Hidden] {
        if over_subset {
            &[Hidden::SubsetOffsets, Hidden::SplitPieces, Hidden::Mdt]
        } else {
            &[Hidden::SplitPieces, Hidden::Mdt]
        }
    }

    fn hidden_params_in_passes(&self, _schedule: Schedule, over_subset: bool) -> &'static [Hidden] {
        if over_subset {
            &[
                Hidden::SubsetOffsets,
                Hidden::SplitPieces,
                Hidden::Mdt,
                Hidden::Pass,
                Hidden::TileState,
            ]
        } else {
            &[
                Hidden::SplitPieces,
                Hidden::Mdt,
                Hidden::Pass,
                Hidden::TileState,
            ]
        }
    }

    fn piece_atoms(&self, schedule: Schedule) -> Option<u32> {
        Some(mdt(schedule))
    }

    /// One virtual tile per thread: the runtime passes the virtual tiles as the shape's atoms.
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        _limits: DeviceLimits,
    ) -> u64 {
        shape.atoms.div_ceil(config.block_size as u64)
    }

    #[cfg(feature = "frontend")]
    fn parse(&self, args: &super::AttrArgs) -> crate::diag::DResult<Schedule> {
        let mdt = parse_mdt(args, "the most atoms of a virtual tile")?;
        Ok(Schedule::Split { mdt })
    }

    #[cfg(feature = "frontend")]
    fn lowering(&self, config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(super::carry::CarryLowering {
            partition: super::carry::Partition::Split {
                mdt: mdt(config.schedule) as u64,
            },
            items_per_thread: 1,
            block_size: config.block_size,
        })
    }
}

/// The attribute's `mdt` (`meaning` says what it bounds, for the error): from 1 to `i32::MAX`,
/// or 0 where it is not given (the tile set's choice, [`choose_mdt`]).
#[cfg(feature = "frontend")]
pub(super) fn parse_mdt(args: &super::AttrArgs, meaning: &str) -> crate::diag::DResult<u32> {
    match args.get("mdt") {
        None => Ok(0),
        Some((n, span)) if !(1..=i32::MAX as u64).contains(&n) => crate::diag::bail!(
            span,
            "`mdt` ({meaning}) must be from 1 to i32::MAX, not {n}"
        ),
        Some((n, _)) => Ok(n as u32),
    }
}

fn mdt(schedule: Schedule) -> u32 {
    match schedule {
        Schedule::Split { mdt } => mdt,
        other => unreachable!("the split unit asked about {other:?}"),
    }
}

/// A piece of a tile: atoms `start..end` of tile `parent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VirtualTile {
    pub parent: u64,
    pub start: u64,
    pub end: u64,
}

/// The number of virtual tiles of a tile of `size` atoms: `ceil(size / mdt)`, and one for an empty
/// tile (its epilogue still has to run).
pub fn pieces(size: u64, mdt: u64) -> u64 {
    assert!(mdt > 0, "the max degree threshold must be positive");
    size.div_ceil(mdt).max(1)
}

/// The exclusive prefix sum of the tiles' piece counts, plus the total: tile `t`'s virtual tiles are
/// `first_virtual[t]..first_virtual[t + 1]`.
pub fn first_virtual(offsets: &[u64], mdt: u64) -> Vec<u64> {
    let mut out = vec![0];
    for w in offsets.windows(2) {
        out.push(out.last().unwrap() + pieces(w[1] - w[0], mdt));
    }
    out
}

/// Virtual tile `v`, from the scan of [`first_virtual`]: its parent is the last tile whose first
/// virtual tile is at or before `v`, and it holds the parent's `mdt` atoms from `(v - first) * mdt`.
pub fn virtual_tile(offsets: &[u64], first: &[u64], mdt: u64, v: u64) -> VirtualTile {
    let parent = first.partition_point(|&f| f <= v) - 1;
    let start = offsets[parent] + (v - first[parent]) * mdt;
    VirtualTile {
        parent: parent as u64,
        start,
        end: (start + mdt).min(offsets[parent + 1]),
    }
}

/// All virtual tiles, in order: each tile's pieces of `mdt` atoms, the last one shorter.
pub fn virtual_tiles(offsets: &[u64], mdt: u64) -> Vec<VirtualTile> {
    let first = first_virtual(offsets, mdt);
    (0..*first.last().unwrap())
        .map(|v| virtual_tile(offsets, &first, mdt, v))
        .collect()
}

/// The max degree threshold from the histogram of tile sizes, as the paper chooses it: the non-empty
/// tiles are binned by `ceil(log2(size))` (the [`lrb`](super::lrb) bins); the tallest bin is the
/// typical size (ties go to the larger bin, so fewer tiles are split), and the MDT is that bin's upper
/// edge `2^bin`, bounded by the largest tile size. So no tile of the typical size is split, and a
/// tile of `k * mdt` atoms becomes `k` virtual tiles of typical size. With no non-empty tile it is 1.
/// Always `1 <= mdt <= max(1, largest tile)`.
pub fn choose_mdt(offsets: &[u64]) -> u64 {
    choose_mdt_of_sizes(offsets.windows(2).map(|w| w[1] - w[0]))
}

/// [`choose_mdt`] from the tile sizes themselves.
pub fn choose_mdt_of_sizes(sizes: impl Iterator<Item = u64>) -> u64 {
    let mut histogram = [0u64; BINS];
    let mut largest = 0;
    for size in sizes.filter(|&s| s > 0) {
        histogram[bin_of(size)] += 1;
        largest = largest.max(size);
    }
    if largest == 0 {
        return 1;
    }
    let tallest = (0..BINS)
        .max_by_key(|&b| (histogram[b], b))
        .expect("BINS > 0");
    bin_upper_edge(tallest).min(largest)
}

/// Replays a launch over the given virtual tiles: one per thread, grid-stride over `threads`
/// threads, each summing its atoms' `value(atom)`. A parent with one virtual tile gets its epilogue
/// from that thread; a parent cut into several gets the partials added into its slot, each piece
/// counting itself done, and the piece that completes the count runs the epilogue on the slot.
/// This checks the cut and its outcome (every atom once, one epilogue per parent with the whole
/// sum), not the GPU's protocol: there the pieces of a parent are consecutive virtual tiles, folded
/// by the carry fix-up like one tile cut across threads
/// ([`carry::model_run`](super::carry::model_run) replays that). Takes the virtual tiles as an
/// argument so a wrong cut can be run too.
pub fn model_run(
    offsets: &[u64],
    virtual_tiles: &[VirtualTile],
    threads: u64,
    value: impl Fn(u64) -> u64,
) -> ModelRun {
    let tiles = offsets.len() - 1;
    let mut run = ModelRun {
        atom_visits: vec![0; offsets[tiles] as usize],
        epilogues: vec![0; tiles],
        epilogue_sums: vec![0; tiles],
    };
    let mut expected = vec![0u64; tiles];
    for v in virtual_tiles {
        expected[v.parent as usize] += 1;
    }
    let mut sums = PieceSums::new(tiles);
    let n = virtual_tiles.len() as u64;
    let threads = threads.max(1);
    for t in 0..threads {
        for i in thread::model_tiles_of_thread(t, threads, n) {
            let v = virtual_tiles[i as usize];
            let p = v.parent as usize;
            let mut acc = 0;
            for a in v.start..v.end {
                run.atom_visits[a as usize] += 1;
                acc += value(a);
            }
            // (A parent of one piece needs no atomics on the GPU; the outcome is the same.)
            sums.add(&mut run, p, p, acc, expected[p]);
        }
    }
    run
}

/// The partials of tiles cut into pieces: each piece adds its partial into its tile's slot and
/// counts itself done, and the piece that completes the count runs the tile's epilogue with the
/// slot. The models of node splitting and LRB's split bin share it; it stands for the outcome of
/// the GPU's carry fix-up (one epilogue per tile, on the sum of all its pieces), not for its steps.
pub(crate) struct PieceSums {
    slots: Vec<u64>,
    done: Vec<u64>,
}

impl PieceSums {
    pub(crate) fn new(slots: usize) -> Self {
        PieceSums {
            slots: vec![0; slots],
            done: vec![0; slots],
        }
    }

    /// Adds a piece's `partial` to `slot`, which belongs to `tile`, cut into `pieces` pieces.
    pub(crate) fn add(
        &mut self,
        run: &mut ModelRun,
        slot: usize,
        tile: usize,
        partial: u64,
        pieces: u64,
    ) {
        self.slots[slot] += partial;
        self.done[slot] += 1;
        if self.done[slot] == pieces {
            run.epilogues[tile] += 1;
            run.epilogue_sums[tile] = self.slots[slot];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_a_long_tile_into_mdt_pieces() {
        // Tiles of 0, 3, 10 and 4 atoms.
        let offsets = [0, 0, 3, 13, 17];
        let vts = virtual_tiles(&offsets, 4);
        let got: Vec<_> = vts.iter().map(|v| (v.parent, v.start, v.end)).collect();
        assert_eq!(
            got,
            [
                (0, 0, 0),
                (1, 0, 3),
                (2, 3, 7),
                (2, 7, 11),
                (2, 11, 13),
                (3, 13, 17)
            ]
        );
        assert_eq!(first_virtual(&offsets, 4), [0, 1, 2, 5, 6]);
    }

    #[test]
    fn mdt_is_the_tallest_bins_upper_edge() {
        // Sizes 3, 4, 4 (bin 2), 5 (bin 3), 100 (bin 7): bin 2 is tallest, mdt 4.
        assert_eq!(choose_mdt(&[0, 3, 7, 11, 16, 116]), 4);
        // A tie between bin 1 (size 2) and bin 3 (size 6, 7) goes to bin 3: mdt 8, bounded by 7.
        assert_eq!(choose_mdt(&[0, 2, 4, 10, 17]), 7);
        // Empty tiles are not counted; none at all gives 1.
        assert_eq!(choose_mdt(&[0, 0, 0, 9]), 9);
        assert_eq!(choose_mdt(&[0, 0, 0]), 1);
        assert_eq!(choose_mdt(&[0]), 1);
    }
}
