//! `lrb`: logarithmic radix binning (Fox, Tripathy, Green, HPEC 2019), its pure-Rust model and the
//! mappings its CUDA lowering launches. Tiles are binned by `ceil(log2(atoms in tile))`, empty tiles in bin 0, so the
//! non-empty tiles of one bin are within 2x of each other in size. Each bin is then run with a mapping
//! fit for its sizes (see [`Thresholds`]):
//!
//! | bins | sizes (default thresholds) | mapping |
//! |---|---|---|
//! | `0..=THREAD_MAX_BIN` | 0 ..= 16 | [`Mapping::Thread`]: one tile per thread, atoms in sequence |
//! | `..=WARP_MAX_BIN` | 17 ..= 256 | [`Mapping::Warp`]: one tile per warp, lanes stride, shuffle reduction |
//! | `..=BLOCK_MAX_BIN` | 257 ..= 4096 | [`Mapping::Block`]: one tile per block, shared-memory reduction |
//! | above | > 4096 | [`Mapping::Split`]: a tile cut into pieces of `SPLIT_PIECE_ATOMS`, one block each; the pieces' partials combine once (the last piece to finish runs the epilogue) |
//!
//! The binning is the paper's Algorithm 1, as it will run on the GPU (see [`bin_tiles`]):
//! 1. *count*: the tiles are split among `workers` blocks, each a contiguous chunk; a block counts its
//!    tiles into a local (shared-memory) histogram, then adds each non-zero bin to the global counts
//!    with one atomic;
//! 2. *prefix sum*: an exclusive scan over the [`BINS`] counts gives each bin's first position;
//! 3. *scatter*: the bin offsets are copied to per-bin cursors; each tile takes its position in the
//!    tile order with an atomic increment of its bin's cursor. The order in which the atomics land is
//!    the only nondeterminism: [`bin_tiles_with_arrival`] takes it as an argument.
//!
//! Bins are ordered by size and the mapping only grows with the bin, so the tiles of each mapping are
//! one contiguous range of the tile order ([`LrbPlan::range`]): one launch (or one branch) per mapping.
//!
//! The CUDA lowering (`schedule = "lrb"`): the runtime bins on the GPU (`Gpu::bin_tiles`, these
//! three steps), reads back the 33 bin offsets, and launches each mapping with non-empty bins on
//! its range of the tile order, as a list of tile ids (the body is the same as under `tiles_in`,
//! see `TileLoop::over_id_list`). Each mapping runs under an existing schedule
//! ([`launches`]): thread, groups of 2 and 4, warp, block, and for the longest tiles pieces of a
//! warp each where the body is a `lanes` loop around a reducing atom loop ([`super::pieces`]: then
//! every tile of more than 256 atoms, the block's bins too, and the short tiles a group of 8 or 16
//! over the values, by the loop's length: [`lanes_short_variant`]), else
//! the merge path over the list (its carry fix-up is the "last piece runs the epilogue" of
//! [`Mapping::Split`]; a body the carry cannot take runs them under block instead).

use super::carry::ModelRun;
use super::{group, split};
use super::{
    DeviceLimits, Launcher, Schedule, ScheduleConfig, ScheduleUnit, Stop, TileSetShape, Tiles,
};
use std::ops::Range;

/// Its named schedule ([`super::SCHEDULES`]).
pub const NAMED: &[super::NamedSchedule] = &[super::NamedSchedule {
    name: "lrb",
    attr: r#"schedule = "lrb""#,
    about: "logarithmic radix binning (Fox et al.): tiles binned by size on the GPU, each bin run under the mapping fit for it",
    core: true,
}];

/// `schedule = "lrb"`.
pub struct Lrb;

impl ScheduleUnit for Lrb {
    fn names(&self) -> &'static [&'static str] {
        &["lrb"]
    }

    fn why_not_in_device_loop(&self) -> &'static str {
        "it bins the listed tiles and reads the bins' sizes back on the host"
    }

    /// Never launched itself (its mappings are).
    fn blocks_wanted(
        &self,
        config: ScheduleConfig,
        shape: TileSetShape,
        limits: DeviceLimits,
    ) -> u64 {
        super::thread::Thread.blocks_wanted(config, shape, limits)
    }

    /// Bins the call's tiles on the GPU, then launches every mapping of [`launches`] whose bins
    /// hold tiles, on their range of the binned order (the paper's four mappings alone on a set of
    /// fewer than [`SMALL_SET_TILES`] tiles).
    fn plan(&self, config: ScheduleConfig, run: &mut dyn Launcher) -> Result<(), Stop> {
        let starts = run.bin()?;
        let small = starts[BINS] < SMALL_SET_TILES;
        let launches = launches(config.block_size);
        // A `lanes` body (its long bins in pieces: two more variants, groups of
        // `LANES_SHORT_GROUP` and `LANES_SHORT_GROUP_SMALL` per short tile over the values): its
        // bins above `WARP_MAX_BIN` all in pieces (no block per tile of 257-4096 atoms), and
        // its short bins under the group that fits the values ([`lanes_short_variant`]).
        let extra = run.variants().len().saturating_sub(launches.len());
        let pieces = extra > 0;
        let lanes_short = match extra {
            0 => None,
            // A `lanes` loop inside the atom loop (SDDMM): one short group, whose lanes split
            // between the atoms and the values by the loop's length, per atom.
            1 => Some(launches.len()),
            _ => lanes_short_variant(launches.len(), run.rounds()),
        };
        let mut planned = Vec::new();
        if let Some(variant) = lanes_short {
            let range = starts[0] as usize..starts[LANES_SHORT_MAX_BIN + 1] as usize;
            if !range.is_empty() {
                planned.push(super::Launch {
                    variant,
                    tiles: Tiles::Binned(range),
                    pass: None,
                    piece_atoms: None,
                });
            }
        }
        for (variant, launch) in launches.into_iter().enumerate() {
            let mut bins = match (small, launch.small_set_bins) {
                (false, _) => launch.bins,
                (true, Some(bins)) => bins,
                (true, None) => continue,
            };
            let mut piece_atoms = None;
            if pieces {
                // On a small set, pieces of `SMALL_SET_PIECE_ATOMS`.
                match launch.name {
                    "block" => continue,
                    "long" => {
                        bins = WARP_MAX_BIN + 1..=*bins.end();
                        piece_atoms = small.then_some(SMALL_SET_PIECE_ATOMS);
                    }
                    _ => {}
                }
            }
            if lanes_short.is_some() {
                if *bins.end() <= LANES_SHORT_MAX_BIN {
                    continue;
                }
                bins = (*bins.start()).max(LANES_SHORT_MAX_BIN + 1)..=*bins.end();
            }
            let range = starts[*bins.start()] as usize..starts[*bins.end() + 1] as usize;
            if !range.is_empty() {
                planned.push(super::Launch {
                    variant,
                    tiles: Tiles::Binned(range),
                    pass: None,
                    piece_atoms,
                });
            }
        }
        // The mappings' first launches would compile one after another.
        let variants: Vec<usize> = planned.iter().map(|l| l.variant).collect();
        run.prepare(&variants)?;
        for launch in planned {
            run.launch(launch)?;
        }
        Ok(())
    }

    #[cfg(feature = "frontend")]
    fn parse(&self, _args: &super::AttrArgs) -> crate::diag::DResult<Schedule> {
        Ok(Schedule::Lrb)
    }

    /// Asked for itself, `lrb` is lowered as `thread` (its mappings are lowered each under its
    /// own schedule).
    #[cfg(feature = "frontend")]
    fn lowering(&self, _config: ScheduleConfig) -> Box<dyn super::Lowering> {
        Box::new(super::thread::ThreadLowering)
    }

    /// The kernel once per launch of [`launches`], each over a list of tile ids
    /// ([`crate::ir::BIN_LIST`], a bin range of the binned order), named after the launch
    /// (`spmv_lrb_warp`). A body the carry fix-up cannot take runs its longest tiles a block each.
    /// `lrb` keeps atom positions in 32-bit bins and prefix sums: no wide variant.
    #[cfg(feature = "frontend")]
    fn variants(&self, kernel: &crate::schedule::Kernel) -> Option<super::Variants> {
        use crate::ir::{Param, ParamKind, Ty, BIN_LIST};
        let block_size = kernel.config.block_size;
        let launches = launches(block_size);
        let mut kernels = Vec::new();
        for launch in &launches {
            let mut k = kernel.clone();
            k.name = format!("{}_lrb_{}", kernel.name, launch.name);
            k.body = kernel.body.over_id_list(BIN_LIST);
            k.params.push(Param {
                name: BIN_LIST.to_string(),
                kind: ParamKind::Slice {
                    elem: Ty::U32,
                    mutable: false,
                },
                span: kernel.body.span,
                block_shared: None,
            });
            k.config = ScheduleConfig {
                schedule: launch.schedule,
                block_size,
            };
            // The longest tiles of a `lanes` loop around a reducing atom loop: pieces of a warp
            // each ([`super::pieces`]), instead of the merge path's rounds of the whole grid.
            if launch.name == "long" {
                let pieces = ScheduleConfig {
                    schedule: Schedule::Pieces {
                        piece_atoms: super::pieces::PIECE_ATOMS,
                    },
                    block_size,
                };
                let mut kp = k.clone();
                kp.config = pieces;
                if super::pieces::takes(&kp) {
                    k = kp;
                }
            }
            // A body the carry fix-up cannot take runs its longest tiles a block each; one the
            // groups cannot reduce (a non-associative update) runs every bin a thread per tile.
            for fallback in [
                Schedule::Group {
                    group_size: block_size,
                },
                Schedule::Thread,
            ] {
                if k.config.lowering().check(&k).is_ok() {
                    break;
                }
                k.config.schedule = fallback;
            }
            kernels.push(k);
        }
        let mut describe = format!(
            "lrb: {}",
            kernels
                .iter()
                .zip(&launches)
                .map(|(k, l)| format!("bins {:?} as {}", l.bins, k.config.describe()))
                .collect::<Vec<_>>()
                .join("; ")
        );
        // With its long bin in pieces (a `lanes` loop around the atom loop), its bins above
        // `WARP_MAX_BIN` all run in pieces, and two groups per short tile, over the values: the
        // plan takes one for bins `0..=LANES_SHORT_MAX_BIN` by the loop's values
        // ([`lanes_short_variant`]).
        let pieces = kernels
            .last()
            .is_some_and(|k| matches!(k.config.schedule, Schedule::Pieces { .. }));
        if pieces {
            // A `lanes` loop summed inside the atom loop ([`super::pieces::atoms_alone`]): its
            // length is not the call's rounds, and a group splits its lanes between the atoms
            // and the values by it: one short group, of `LANES_SHORT_GROUP_SMALL`, for every
            // length (SDDMM, H100: a thread per nonzero walks `k` with loads no lane shares).
            let shorts: &[(u32, u64)] = if super::pieces::atoms_alone(kernel) {
                &[(LANES_SHORT_GROUP_SMALL, 1)]
            } else {
                &[
                    (LANES_SHORT_GROUP, LANES_SHORT_MIN_VALUES),
                    (LANES_SHORT_GROUP_SMALL, LANES_SHORT_SMALL_MIN_VALUES),
                ]
            };
            for &(group, min_values) in shorts {
                let mut k = kernel.clone();
                k.name = if group == LANES_SHORT_GROUP {
                    format!("{}_lrb_lanes", kernel.name)
                } else {
                    format!("{}_lrb_lanes{group}", kernel.name)
                };
                k.body = kernel.body.over_id_list(BIN_LIST);
                k.params.push(Param {
                    name: BIN_LIST.to_string(),
                    kind: ParamKind::Slice {
                        elem: Ty::U32,
                        mutable: false,
                    },
                    span: kernel.body.span,
                    block_shared: None,
                });
                k.config = ScheduleConfig {
                    schedule: Schedule::Group { group_size: group },
                    block_size,
                };
                describe.push_str(&format!(
                    "; with {min_values} values or more, bins 0..={LANES_SHORT_MAX_BIN} as {}",
                    k.config.describe()
                ));
                kernels.push(k);
            }
            describe.push_str(&format!(
                "; bins {}..={} as pieces",
                WARP_MAX_BIN + 1,
                BINS - 1
            ));
        }
        Some(super::Variants {
            kernels,
            describe,
            wide: None,
        })
    }
}

/// A kernel whose long bins run in pieces ([`super::pieces`]: a `lanes` loop around a reducing
/// atom loop) has its short tiles, bins `0..=LANES_SHORT_MAX_BIN` (up to 32 atoms), run by a
/// group per tile, its lanes split between the values (vector loads of `B`, coalesced) and the
/// atoms as under `group16`, instead of a thread walking the values one after another and
/// reading a sector of `B` per value (on `arrow_500K`, 500K rows of 2 at k = 128, that was most
/// of the time): a group of `LANES_SHORT_GROUP` where the loop has at least
/// `LANES_SHORT_MIN_VALUES` values, of `LANES_SHORT_GROUP_SMALL` from
/// `LANES_SHORT_SMALL_MIN_VALUES` (k = 8 on the generated and real sets, H100: `group8` beat
/// `group16` on every matrix, and a thread per row lost 0.50x to the op on power-law rows, which
/// runs 8 lanes over the nonzeros there). Below that, a thread's values share a sector of `B`.
pub const LANES_SHORT_MAX_BIN: usize = 5;
/// See [`LANES_SHORT_MAX_BIN`].
pub const LANES_SHORT_GROUP: u32 = 16;
/// See [`LANES_SHORT_MAX_BIN`].
pub const LANES_SHORT_MIN_VALUES: u64 = 16;
/// See [`LANES_SHORT_MAX_BIN`].
pub const LANES_SHORT_GROUP_SMALL: u32 = 8;
/// See [`LANES_SHORT_MAX_BIN`].
pub const LANES_SHORT_SMALL_MIN_VALUES: u64 = 4;

/// The variant that runs the short bins of a kernel whose long bins run in pieces (`launches`
/// launches before it), for a loop of `values` values: none below
/// [`LANES_SHORT_SMALL_MIN_VALUES`] (the plan's thread and small groups).
pub fn lanes_short_variant(launches: usize, values: u64) -> Option<usize> {
    if values >= LANES_SHORT_MIN_VALUES {
        Some(launches)
    } else if values >= LANES_SHORT_SMALL_MIN_VALUES {
        Some(launches + 1)
    } else {
        None
    }
}

/// On a set of fewer than [`SMALL_SET_TILES`] tiles, a kernel whose long tiles run in pieces
/// runs them (more than 256 atoms) in pieces of `SMALL_SET_PIECE_ATOMS`: such a set has too few
/// tiles to hide a warp's walk of 256 atoms one after another. Measured on an H100
/// (`examples/bench/results/h200/lanes_bins/`, pieces of 64 from 65 atoms): `arrow` (46500 rows
/// of 2 and one of 46500) at k = 128, `lrb` 0.58x the SpMM op with pieces of 256, 1.00x with
/// pieces of 64 (SDDMM 0.27x, 0.65x); `Groebner` (up to 829 atoms) 0.22x, 0.46x. Taken from 65
/// atoms, rows of 65-256 atoms lost to a warp each (k = 32: `bcsstk13` 0.38x to 0.24x, `ca-GrQc`
/// 0.47x to 0.30x), so the warps keep those.
pub const SMALL_SET_PIECE_ATOMS: u64 = 64;

/// Number of bins. Tile sizes are 32-bit (at most `i32::MAX` atoms), so `ceil(log2(size)) <= 31`.
pub const BINS: usize = 32;

/// The bin of a tile of `size` atoms: `ceil(log2(size))`; 0 for empty tiles (and tiles of one atom).
/// Bin `b >= 1` holds the sizes `2^(b-1) + 1 ..= 2^b`.
pub fn bin_of(size: u64) -> usize {
    assert!(
        size <= i32::MAX as u64,
        "tile of {size} atoms: sizes are 32-bit"
    );
    if size <= 1 {
        0
    } else {
        (64 - (size - 1).leading_zeros()) as usize
    }
}

/// The upper edge of bin `bin`: `2^bin`, the largest size it holds (bin 31 stops at `i32::MAX`).
pub fn bin_upper_edge(bin: usize) -> u64 {
    1u64 << bin
}

/// One thread runs a tile alone up to `2^THREAD_MAX_BIN` = 16 atoms: a warp on such a tile would idle
/// at least half its lanes and pay a 5-step shuffle reduction for at most one atom per lane; 16 atoms
/// in sequence is about the `items_per_thread` the carry schedules find best.
pub const THREAD_MAX_BIN: usize = 4;
/// A warp takes a tile up to `2^WARP_MAX_BIN` = 256 atoms: every lane gets at least half an atom on
/// the first pass (17 atoms and up) and at most 8, so the loop is short and the reduction amortized.
pub const WARP_MAX_BIN: usize = 8;
/// A block (of the default 256 threads) takes a tile up to `2^BLOCK_MAX_BIN` = 4096 atoms: at least
/// one atom per thread and at most 16.
pub const BLOCK_MAX_BIN: usize = 12;
/// Above that a tile is cut into pieces of this many atoms, one block each (16 atoms per thread of
/// a 256-thread block, as the largest block-mapped tile), so a very long tile spreads over the device.
pub const SPLIT_PIECE_ATOMS: u64 = 4096;

/// How a bin's tiles are mapped onto threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mapping {
    /// One tile per thread, grid-stride over the bin's tiles.
    Thread,
    /// One tile per warp (32 lanes), lanes stride over the atoms, then a reduction.
    Warp,
    /// One tile per block, threads stride over the atoms, then a reduction.
    Block,
    /// A tile cut into pieces of `split_piece_atoms`, one block each; partials combine once.
    Split,
}

/// Which bins get which mapping. The defaults are the named constants above; tests lower them to
/// exercise every mapping on small tile sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    pub thread_max_bin: usize,
    pub warp_max_bin: usize,
    pub block_max_bin: usize,
    pub split_piece_atoms: u64,
}

impl Thresholds {
    pub const DEFAULT: Thresholds = Thresholds {
        thread_max_bin: THREAD_MAX_BIN,
        warp_max_bin: WARP_MAX_BIN,
        block_max_bin: BLOCK_MAX_BIN,
        split_piece_atoms: SPLIT_PIECE_ATOMS,
    };

    /// The mapping of bin `bin`. Non-decreasing in `bin`.
    pub fn mapping_of_bin(&self, bin: usize) -> Mapping {
        assert!(
            self.thread_max_bin <= self.warp_max_bin
                && self.warp_max_bin <= self.block_max_bin
                && self.split_piece_atoms > 0,
            "thresholds must grow: {self:?}"
        );
        if bin <= self.thread_max_bin {
            Mapping::Thread
        } else if bin <= self.warp_max_bin {
            Mapping::Warp
        } else if bin <= self.block_max_bin {
            Mapping::Block
        } else {
            Mapping::Split
        }
    }
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds::DEFAULT
    }
}

/// One launch of the CUDA lowering: the tiles of `bins` (a contiguous range of the binned order)
/// under `schedule`, entry points named `{kernel}_lrb_{name}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub name: &'static str,
    pub bins: std::ops::RangeInclusive<usize>,
    /// The bins it takes when fewer than [`SMALL_SET_TILES`] tiles are binned: the paper's four
    /// mappings (none for the groups of 2 and 4), so a small set makes fewer launches.
    pub small_set_bins: Option<std::ops::RangeInclusive<usize>>,
    pub schedule: Schedule,
}

/// Below this many binned tiles `lrb` launches the paper's four mappings only (thread up to 16
/// atoms, warp up to 256): each launch costs a few microseconds, more than a finer mapping saves
/// on a small set. Measured on an H100, 23 real matrices of up to 114K rows: with the groups of 2
/// and 4 as launches of their own, `lrb` took 1.42x the time of `thread` (geomean), with four
/// mappings 0.96x; on the large generated matrices the groups saved up to 20% (banded, 16 per
/// row: 0.454 ms, four mappings 0.564).
pub const SMALL_SET_TILES: u32 = 1 << 16;

/// The launches of `schedule = "lrb"` (`block_size` threads per block), in bin order (on a set of
/// fewer than [`SMALL_SET_TILES`] tiles, `small_set_bins`: the paper's four mappings). They refine
/// the paper's four mappings (the model's [`Mapping`], default [`Thresholds`]) where the
/// benchmark says a small group beats one thread or a whole warp, the same sizes at which
/// `auto`'s model ranks them ([`super::auto::model`]):
///
/// | bins | atoms | launch | model mapping |
/// |---|---|---|---|
/// | 0..=3 | 0-8 | one tile per thread | Thread |
/// | 4 | 9-16 | a group of 2 per tile (banded, 16 per row: 0.42 ms, thread 0.56) | Thread |
/// | 5 | 17-32 | a group of 4 | Warp |
/// | 6..=8 | 33-256 | a warp | Warp |
/// | 9..=12 | 257-4096 | a block; where the body runs its long tiles in pieces (below), pieces too (Groebner at k = 128, rows of 257-4096 atoms a block each: 0.24x the SpMM op, which cuts them) | Block |
/// | 13.. | > 4096 | where the tile body is a `lanes` loop around a reducing atom loop ([`super::pieces::check`]): pieces of [`super::pieces::PIECE_ATOMS`] atoms, a warp each, the last piece of a tile combining the partials and running the epilogue ([`super::pieces`]); else the merge path over the tiles' ids: a tile cut across threads and blocks, its pieces combined by the carry fix-up (both the model's Split); where the body cannot take the carry, a block per tile |
pub fn launches(block_size: u32) -> Vec<Launch> {
    let launch = |name, bins, small_set_bins, schedule| Launch {
        name,
        bins,
        small_set_bins,
        schedule,
    };
    vec![
        launch(
            "thread",
            0..=THREAD_MAX_BIN - 1,
            Some(0..=THREAD_MAX_BIN),
            Schedule::Thread,
        ),
        launch(
            "group2",
            THREAD_MAX_BIN..=THREAD_MAX_BIN,
            None,
            Schedule::Group { group_size: 2 },
        ),
        launch(
            "group4",
            THREAD_MAX_BIN + 1..=THREAD_MAX_BIN + 1,
            None,
            Schedule::Group { group_size: 4 },
        ),
        launch(
            "warp",
            THREAD_MAX_BIN + 2..=WARP_MAX_BIN,
            Some(THREAD_MAX_BIN + 1..=WARP_MAX_BIN),
            Schedule::Group { group_size: 32 },
        ),
        launch(
            "block",
            WARP_MAX_BIN + 1..=BLOCK_MAX_BIN,
            Some(WARP_MAX_BIN + 1..=BLOCK_MAX_BIN),
            Schedule::Group {
                group_size: block_size,
            },
        ),
        launch(
            "long",
            BLOCK_MAX_BIN + 1..=BINS - 1,
            Some(BLOCK_MAX_BIN + 1..=BINS - 1),
            Schedule::MergePath {
                items_per_thread: super::DEFAULT_ITEMS_PER_THREAD,
            },
        ),
    ]
}

/// The result of Algorithm 1: per-bin counts, their exclusive prefix sum, and the tile order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binning {
    /// Tiles per bin.
    pub counts: [u64; BINS],
    /// Exclusive prefix sum of `counts`, plus the total: bin `b` is `order[offsets[b]..offsets[b + 1]]`.
    pub bin_offsets: [u64; BINS + 1],
    /// Tile ids, grouped by bin.
    pub order: Vec<u64>,
}

/// The tiles worker `w` of `workers` counts and scatters: a contiguous chunk.
pub fn chunk_of_worker(w: u64, workers: u64, tiles: u64) -> Range<u64> {
    let chunk = tiles.div_ceil(workers.max(1));
    (w * chunk).min(tiles)..(w * chunk + chunk).min(tiles)
}

/// Step 1: the local histogram of worker `w`.
pub fn local_counts(offsets: &[u64], w: u64, workers: u64) -> [u64; BINS] {
    let tiles = offsets.len() as u64 - 1;
    let mut counts = [0; BINS];
    for t in chunk_of_worker(w, workers, tiles) {
        counts[bin_of(offsets[t as usize + 1] - offsets[t as usize])] += 1;
    }
    counts
}

/// Step 2: the exclusive prefix sum over the bins, with the total at the end.
pub fn exclusive_scan(counts: &[u64; BINS]) -> [u64; BINS + 1] {
    let mut out = [0; BINS + 1];
    for b in 0..BINS {
        out[b + 1] = out[b] + counts[b];
    }
    out
}

/// Algorithm 1 with the scatter's atomics landing round-robin over the workers.
pub fn bin_tiles(offsets: &[u64], workers: u64) -> Binning {
    bin_tiles_with_arrival(offsets, workers, &[])
}

/// Algorithm 1 over `workers` workers. `arrival` is the order in which the scatter's atomics land:
/// each entry names a worker, which places its next tile (entries naming a worker with no tile left,
/// or no worker, are skipped); once `arrival` runs out the rest land round-robin.
pub fn bin_tiles_with_arrival(offsets: &[u64], workers: u64, arrival: &[u64]) -> Binning {
    let tiles = offsets.len() as u64 - 1;
    let workers = workers.max(1);
    // 1. Count: local histograms, combined with one atomic add per worker and bin.
    let mut counts = [0; BINS];
    for w in 0..workers {
        for (c, l) in counts.iter_mut().zip(local_counts(offsets, w, workers)) {
            *c += l;
        }
    }
    // 2. Prefix sum.
    let bin_offsets = exclusive_scan(&counts);
    // 3. Scatter with per-bin cursors.
    let mut cursors: [u64; BINS] = bin_offsets[..BINS].try_into().unwrap();
    let mut next: Vec<Range<u64>> = (0..workers)
        .map(|w| chunk_of_worker(w, workers, tiles))
        .collect();
    let mut order = vec![u64::MAX; tiles as usize];
    let round_robin = std::iter::repeat(0..workers).flatten();
    let mut placed = 0;
    for w in arrival.iter().copied().chain(round_robin) {
        if placed == tiles {
            break;
        }
        let Some(t) = next.get_mut(w as usize).and_then(|r| r.next()) else {
            continue;
        };
        let b = bin_of(offsets[t as usize + 1] - offsets[t as usize]);
        let pos = cursors[b]; // atomicAdd(&cursor[b], 1)
        cursors[b] += 1;
        order[pos as usize] = t;
        placed += 1;
    }
    Binning {
        counts,
        bin_offsets,
        order,
    }
}

/// What an `lrb` launch runs: the binning and the mapping of every bin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LrbPlan {
    pub binning: Binning,
    pub thresholds: Thresholds,
    /// The mapping of each bin (from `thresholds`).
    pub mappings: [Mapping; BINS],
}

impl LrbPlan {
    pub fn new(offsets: &[u64], workers: u64, thresholds: Thresholds) -> Self {
        Self::from_binning(bin_tiles(offsets, workers), thresholds)
    }

    pub fn from_binning(binning: Binning, thresholds: Thresholds) -> Self {
        let mappings = std::array::from_fn(|b| thresholds.mapping_of_bin(b));
        LrbPlan {
            binning,
            thresholds,
            mappings,
        }
    }

    /// The tile ids of bin `bin`.
    pub fn bin(&self, bin: usize) -> &[u64] {
        let o = &self.binning.bin_offsets;
        &self.binning.order[o[bin] as usize..o[bin + 1] as usize]
    }

    /// The positions in the tile order of the tiles run with `mapping`: one contiguous range.
    pub fn range(&self, mapping: Mapping) -> Range<u64> {
        let o = &self.binning.bin_offsets;
        let bins: Vec<usize> = (0..BINS).filter(|&b| self.mappings[b] == mapping).collect();
        match (bins.first(), bins.last()) {
            (Some(&first), Some(&last)) => o[first]..o[last + 1],
            _ => 0..0,
        }
    }
}

/// Replays an `lrb` launch: each mapping's range of the tile order run over `threads` threads in
/// blocks of `block` (grid-stride), every atom contributing `value(atom)` to its tile's sum. A
/// `Split` tile is cut into pieces of `split_piece_atoms`; each piece's block reduces its partial,
/// adds it to the tile's slot and counts itself done; the piece that completes the count runs the
/// epilogue on the slot. That is the outcome the GPU's lowering must give, not its steps: on the
/// GPU the longest tiles run under the merge path over the tile list, and its carry fix-up
/// ([`carry::model_run`](super::carry::model_run)) combines the pieces.
pub fn model_run(
    offsets: &[u64],
    plan: &LrbPlan,
    threads: u64,
    block: u32,
    value: impl Fn(u64) -> u64,
) -> ModelRun {
    let tiles = offsets.len() - 1;
    let mut run = ModelRun {
        atom_visits: vec![0; offsets[tiles] as usize],
        epilogues: vec![0; tiles],
        epilogue_sums: vec![0; tiles],
    };
    let order = &plan.binning.order;
    let threads = threads.max(1);
    let block = block as u64;
    // One tile per group of `g` lanes, grid-stride over a range of the order.
    let by_groups = |run: &mut ModelRun, range: Range<u64>, g: u64| {
        let groups = threads.div_ceil(g);
        let n = range.end - range.start;
        for gi in 0..groups {
            for i in group::model_tiles_of_group(gi, groups, n) {
                let t = order[(range.start + i) as usize] as usize;
                let mut acc = 0;
                for lane in 0..g {
                    for a in group::model_atoms_of_lane(lane, g, offsets[t], offsets[t + 1]) {
                        run.atom_visits[a as usize] += 1;
                        acc += value(a);
                    }
                }
                run.epilogues[t] += 1;
                run.epilogue_sums[t] = acc;
            }
        }
    };
    by_groups(&mut run, plan.range(Mapping::Thread), 1);
    by_groups(&mut run, plan.range(Mapping::Warp), 32);
    by_groups(&mut run, plan.range(Mapping::Block), block);

    // Split: the pieces of the range's tiles, enumerated by a prefix over their piece counts.
    let piece = plan.thresholds.split_piece_atoms;
    let split = plan.range(Mapping::Split);
    let split_tiles: Vec<usize> = order[split.start as usize..split.end as usize]
        .iter()
        .map(|&t| t as usize)
        .collect();
    let pieces_of = |t: usize| split::pieces(offsets[t + 1] - offsets[t], piece);
    let mut first_piece = vec![0u64];
    for &t in &split_tiles {
        first_piece.push(first_piece.last().unwrap() + pieces_of(t));
    }
    let total_pieces = *first_piece.last().unwrap();
    let mut sums = split::PieceSums::new(split_tiles.len());
    let blocks = threads.div_ceil(block);
    for b in 0..blocks {
        for p in group::model_tiles_of_group(b, blocks, total_pieces) {
            // The piece's tile: the last `i` with `first_piece[i] <= p` (a binary search on the GPU).
            let i = first_piece.partition_point(|&f| f <= p) - 1;
            let t = split_tiles[i];
            let begin = offsets[t] + (p - first_piece[i]) * piece;
            let end = (begin + piece).min(offsets[t + 1]);
            let mut acc = 0;
            for lane in 0..block {
                for a in group::model_atoms_of_lane(lane, block, begin, end) {
                    run.atom_visits[a as usize] += 1;
                    acc += value(a);
                }
            }
            sums.add(&mut run, i, t, acc, pieces_of(t));
        }
    }
    run
}

#[cfg(test)]
mod tests;
