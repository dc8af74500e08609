//! The binning pass of logarithmic radix binning (Fox, Tripathy, Green, HPEC 2019, Algorithm 1) on
//! the GPU: [`Gpu::bin_tiles`] groups the tiles of a tile set (or the entries of a tile subset's
//! list) by `ceil(log2(atoms))`, so that a later pass can run each range of bins with a mapping fit
//! for its sizes (one thread, a warp, a block, a split tile; see
//! [`kernels_gen::schedule::lrb`], the pure-Rust model this implements and agrees with).
//!
//! Three launches on the handle's stream, then one small read-back:
//! 1. *count* (`loops_bin_count_*`): at most `sm_count * 4` blocks of 256 threads, each a contiguous
//!    chunk of the items (the model's [`chunk_of_worker`](kernels_gen::schedule::lrb::chunk_of_worker),
//!    rounded to whole block rounds), count into a shared-memory histogram of [`BINS`] bins, then add
//!    each non-zero bin to the global counts with one atomic;
//! 2. *scan* (`loops_bin_scan`, one warp): the exclusive prefix sum of the counts gives each bin's
//!    first position, copied to the per-bin cursors;
//! 3. *scatter* (`loops_bin_scatter_*`): each item takes its position with an atomic add on its bin's
//!    cursor and writes its index there. The atomics are aggregated: per block round, one atomic per
//!    non-empty bin reserves the round's slots of that bin, and the items of the round take
//!    consecutive slots of the reservation. Which round lands first in a bin is the only
//!    nondeterminism (the model's `bin_tiles_with_arrival`).
//!
//! The bin starts (33 `u32`) are then read back, which waits for the three kernels: the caller
//! usually needs them on the host anyway, to size the launches of the bins.
//!
//! Why block-aggregated atomics: every item lands in one of 32 counters, and most items of a real
//! tile set land in two or three of them, so one atomic per item would serialize on those few
//! addresses in L2; one per bin and block round cuts them by the items of a round (1024).

#![warn(missing_docs)]

use std::ops::{Range, RangeInclusive};
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::CudaStream;

use kernels_gen::schedule::lrb::BINS;
use kernels_gen::schedule::LaunchDims;

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Element;
use crate::error::{LoopsError, Result};
use crate::launch::entry::{entries, Pass, Ptr};
pub use crate::launch::subset::TileId;
use crate::launch::{KernelArgs, Param};

/// Threads per block of the count and scatter kernels (`LOOPS_BIN_BLOCK` in the source).
const BIN_BLOCK: u32 = 256;
/// Items each thread takes per block round (`LOOPS_BIN_ITEMS`): its loads are issued together, so a
/// thread has several in flight, and the scatter's atomics are aggregated over more items.
const BIN_ITEMS: u32 = 4;
/// Blocks per SM at most: enough to fill the memory pipes of a pass that reads 8 bytes per item,
/// few enough that each block gets long chunks (few atomics per item).
const BLOCKS_PER_SM: u32 = 4;

/// The per-call state buffer of the three kernels (`u32` slots): the counts, the cursors and the bin
/// starts, in that order (`LOOPS_BIN_COUNTS`, `LOOPS_BIN_CURSORS`, `LOOPS_BIN_STARTS` in the source).
const STATE_COUNTS: usize = 0;
const STATE_CURSORS: usize = STATE_COUNTS + BINS;
const STATE_STARTS: usize = STATE_CURSORS + BINS;
const STATE_LEN: usize = STATE_STARTS + BINS + 1;

/// Tile ids (or positions in a tile subset's list) ordered by bin, and where each bin starts.
#[derive(Debug)]
pub struct TileBins {
    /// n entries: item indices (0..n) grouped by bin, bins in increasing order.
    pub order: DeviceBuffer<u32>,
    /// `bin_starts[b]..bin_starts[b + 1]` is bin b's range of `order` (BINS + 1 entries), read back to
    /// the host.
    pub bin_starts: [u32; BINS + 1],
}

impl TileBins {
    /// The range of `order` that holds the bins `bins` (e.g. `5..=8`, the warp-mapped bins), one
    /// contiguous range since the bins are in order. An empty `bins` (`4..=3`) gives an empty range.
    /// Panics if a bin is `BINS` or more.
    pub fn range(&self, bins: RangeInclusive<usize>) -> Range<usize> {
        let (first, last) = (*bins.start(), *bins.end());
        assert!(
            first < BINS && last < BINS,
            "bins {first}..={last}: there are {BINS} bins"
        );
        if bins.is_empty() {
            let at = self.bin_starts[first] as usize;
            return at..at;
        }
        self.bin_starts[first] as usize..self.bin_starts[last + 1] as usize
    }
}

/// A tile subset's list of tile ids on the device, whatever its id type ([`TileId`]: `i32`, `u32`,
/// `i64`, `u64`; a signed id is sign-extended to 64 bits and compared as unsigned, so a negative id
/// is never a tile): what [`Gpu::bin_tiles`] bins instead of all tiles. Made from a
/// `&DeviceBuffer<I>` with `.into()`. Type-erased (the kernels are instantiated per id type, so
/// the type only picks the entry points); the buffer stays borrowed, and its stream is ordered with
/// the launches like any buffer argument's.
#[derive(Clone, Copy, Debug)]
pub struct SubsetIds<'a> {
    ptr: CUdeviceptr,
    len: usize,
    stream: Option<&'a Arc<CudaStream>>,
    /// The entry points' suffix ([`TileId::SUFFIX`]).
    suffix: &'static str,
    /// The id's CUDA type, for error messages.
    cuda_name: &'static str,
}

impl<'a, I: TileId> From<&'a DeviceBuffer<I>> for SubsetIds<'a> {
    fn from(buf: &'a DeviceBuffer<I>) -> Self {
        SubsetIds {
            ptr: buf.device_ptr(),
            len: buf.len(),
            stream: buf.cuda_slice().map(|s| s.stream()),
            suffix: I::SUFFIX,
            cuda_name: I::CUDA_NAME,
        }
    }
}

impl<'a> SubsetIds<'a> {
    /// The number of entries of the list.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The list's device address.
    pub(crate) fn ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The list as the prefix sums of a subset take it.
    pub(crate) fn list_arg(self) -> crate::launch::subset::ListArg<'a> {
        crate::launch::subset::ListArg {
            ptr: self.ptr,
            len: self.len,
            stream: self.stream,
            suffix: self.suffix,
        }
    }
}

/// The list as a `const ID*` parameter of a binning family: type-erased, so it passes for the
/// declaration's `ID` whatever its own is (the entry point, chosen by its suffix, takes its type),
/// and pushes its own type for error messages.
impl<'a, I: Element> Pass<'a, *const I> for SubsetIds<'a> {
    fn pass(self, args: &mut KernelArgs<'a>) {
        let what = Param::Ptr {
            ty: self.cuda_name,
            mutable: false,
        };
        args.push_foreign_ptr(self.ptr, self.stream, what);
    }
}

/// The list or, for `None` (every tile), a null `const unsigned int*`.
impl<'a, I: Element> Pass<'a, *const I> for Option<SubsetIds<'a>> {
    fn pass(self, args: &mut KernelArgs<'a>) {
        match self {
            Some(list) => Pass::<*const I>::pass(list, args),
            None => Pass::<*const u32>::pass(Ptr::<u32>::null(), args),
        }
    }
}

/// The suffix of the entry points that bin every tile (no list).
const ALL_TILES: &str = "tiles";

/// Checks the sizes [`Gpu::bin_tiles`] is given, on the host: `offsets` must have `tiles + 1`
/// entries (a tile set's offsets, whose last entry ends the last tile), and the `n` items must be
/// countable in the `u32` positions of `order`.
fn check_inputs(offsets_len: usize, tiles: usize, n: usize) -> Result<()> {
    if tiles.checked_add(1) != Some(offsets_len) {
        return Err(LoopsError::InvalidBinning {
            detail: format!(
                "the offsets have {offsets_len} entries, a tile set of {tiles} tiles has {}",
                tiles as u128 + 1
            ),
        });
    }
    if n > u32::MAX as usize {
        return Err(LoopsError::InvalidBinning {
            detail: format!(
                "{n} items to bin, more than the u32 positions of the order reach ({})",
                u32::MAX
            ),
        });
    }
    Ok(())
}

/// The geometry of the count and scatter kernels for `n > 0` items on `sm_count` SMs: the chunk of
/// items each block takes (whole block rounds, so that every block's loads start aligned) and as
/// many blocks as the chunks need, at most `sm_count * BLOCKS_PER_SM`.
fn chunking(n: u64, sm_count: u32) -> (LaunchDims, u64) {
    let round = (BIN_BLOCK * BIN_ITEMS) as u64;
    let max_blocks = (sm_count.max(1) * BLOCKS_PER_SM) as u64;
    let rounds = n.div_ceil(round);
    let chunk = rounds.div_ceil(max_blocks) * round;
    let dims = LaunchDims {
        grid: n.div_ceil(chunk) as u32,
        block: BIN_BLOCK,
        shared_bytes: 0,
    };
    (dims, chunk)
}

impl Gpu {
    /// Bins the n items of a tile set by `ceil(log2(atoms))`: item i is tile i (`list = None`,
    /// n = tiles) or the tile `list[i]` (n = `list.len()`); an id outside `0..tiles` (negative ids
    /// included) has size 0 (bin 0).
    ///
    /// A tile's size is `offsets[v + 1] - offsets[v]`; bin `b >= 1` holds the sizes
    /// `2^(b-1) + 1 ..= 2^b`, bin 0 the sizes 0 and 1, as
    /// [`bin_of`](kernels_gen::schedule::lrb::bin_of). Offsets that break their format (a decreasing
    /// pair, which no upload lets through) give a size of 0; a pair more than `i32::MAX` apart
    /// (possible only from a negative offset) lands in the last bin. Either way every item is binned
    /// once and the order stays a permutation.
    ///
    /// Errors ([`LoopsError::InvalidBinning`]) unless `offsets` has `tiles + 1` entries and n fits
    /// `u32`. Waits for the binning (it reads the bin starts back); the order stays on the device.
    /// With n = 0 nothing is launched: the order is empty and every bin start 0.
    pub fn bin_tiles(
        &self,
        offsets: &DeviceBuffer<i32>,
        tiles: usize,
        list: Option<SubsetIds<'_>>,
    ) -> Result<TileBins> {
        let n = list.map_or(tiles, |l| l.len());
        check_inputs(offsets.len(), tiles, n)?;
        if n == 0 {
            return Ok(TileBins {
                order: DeviceBuffer::empty(),
                bin_starts: [0; BINS + 1],
            });
        }
        let suffix = list.map_or(ALL_TILES, |l| l.suffix);
        let (count_entry, scatter_entry) = (
            format!("loops_bin_count_{suffix}"),
            format!("loops_bin_scatter_{suffix}"),
        );
        let function = |entry: &str| self.function("loops_bin_tiles", BINNING_SOURCE, entry);
        let (count, scan, scatter) = (
            function(&count_entry)?,
            function("loops_bin_scan")?,
            function(&scatter_entry)?,
        );
        // The counts must start at 0; the cursors and starts are written by the scan.
        let state = self.zeros::<u32>(STATE_LEN)?;
        // Every slot of the order is written by the scatter: the counts and the scatter bin every
        // item the same way, so the bins' ranges cover 0..n exactly.
        let order = self.uninit::<u32>(n)?;
        let (dims, chunk) = chunking(n as u64, self.limits().sm_count);

        let (tiles, n) = (tiles as u64, n as u32);
        let args =
            loops_bin_count::args::<u32, _, _, _, _, _, _>(offsets, tiles, list, n, chunk, &state);
        self.launch_function(&count_entry, &count, dims, args)?;

        let args = loops_bin_scan::args(&state);
        let one_warp = LaunchDims {
            grid: 1,
            block: 32,
            shared_bytes: 0,
        };
        self.launch_function("loops_bin_scan", &scan, one_warp, args)?;

        let args = loops_bin_scatter::args::<u32, _, _, _, _, _, _, _>(
            offsets, tiles, list, n, chunk, &state, &order,
        );
        self.launch_function(&scatter_entry, &scatter, dims, args)?;

        let host = self.download(&state)?;
        let bin_starts: [u32; BINS + 1] = host[STATE_STARTS..STATE_STARTS + BINS + 1]
            .try_into()
            .expect("BINS + 1 starts");
        // The kernels count every item once, so this holds unless the offsets changed under them.
        if bin_starts[BINS] != n || bin_starts.windows(2).any(|w| w[0] > w[1]) {
            return Err(LoopsError::InvalidBinning {
                detail: format!("the GPU binned {} of {n} items", bin_starts[BINS]),
            });
        }
        Ok(TileBins { order, bin_starts })
    }

    /// The tile ids of `list` in the order of `bins` (its binning by [`Gpu::bin_tiles`]), as `u32`:
    /// `list[bins.order[k]]`, or `u32::MAX` (never a tile) for an id outside `0..tiles`. A
    /// schedule that runs each bin over a list of tile ids (`lrb` over a subset) launches on these.
    pub fn binned_tile_ids(
        &self,
        bins: &TileBins,
        tiles: usize,
        list: SubsetIds<'_>,
    ) -> Result<DeviceBuffer<u32>> {
        let n = bins.order.len();
        if n != list.len() {
            return Err(LoopsError::InvalidBinning {
                detail: format!("{n} binned items, but the list has {}", list.len()),
            });
        }
        if n == 0 {
            return Ok(DeviceBuffer::empty());
        }
        let entry = format!("loops_bin_gather_{}", list.suffix);
        let f = self.function("loops_bin_tiles", BINNING_SOURCE, &entry)?;
        let ids = self.uninit::<u32>(n)?;
        let args = loops_bin_gather::args::<u32, _, _, _, _, _>(
            tiles as u64,
            list,
            &bins.order,
            n as u32,
            &ids,
        );
        let limits = self.limits();
        let dims = LaunchDims {
            grid: n.div_ceil(256).min(limits.sm_count as usize * 8).max(1) as u32,
            block: 256,
            shared_bytes: 0,
        };
        self.launch_function(&entry, &f, dims, args)?;
        Ok(ids)
    }
}

/// The three kernels of [`Gpu::bin_tiles`]. Count and scatter are templates over the id type of the
/// list (and whether there is one), instantiated as `loops_bin_count_{tiles,i32,u32,i64,u64}` and
/// `loops_bin_scatter_*`; `loops_bin_scan` is one warp. The constants must match the Rust ones
/// ([`BINS`], `BIN_BLOCK`, `BIN_ITEMS`, the state layout): a unit test compares them.
/// The CUDA text is kept in `binning.cuh`, next to this file.
pub const BINNING_SOURCE: &str = include_str!("binning.cuh");

entries! {
    source: BINNING_SOURCE;
    undeclared: [];
    /// Step 2, one warp: the counts' exclusive scan, as the bin starts and the cursors.
    fn loops_bin_scan(state: *mut u32);
    /// Step 1: each item's bin counted (`list` null: item i is tile i).
    fn loops_bin_count<ID: TileId [u32, i64]> = "loops_bin_count_*" (
        offsets: *const i32, tiles: u64, list: *const ID, n: u32, chunk: u64, state: *mut u32,
    );
    /// Step 3: each item's index written at its bin's cursor.
    fn loops_bin_scatter<ID: TileId [u32, i64]> = "loops_bin_scatter_*" (
        offsets: *const i32, tiles: u64, list: *const ID, n: u32, chunk: u64, state: *mut u32,
        order: *mut u32,
    );
    /// `ids[k] = list[order[k]]` (`u32::MAX` for an id outside `0..tiles`).
    fn loops_bin_gather<ID: TileId [u32, i64]> = "loops_bin_gather_*" (
        tiles: u64, list: *const ID, order: *const u32, n: u32, ids: *mut u32,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bins(starts: [u32; BINS + 1]) -> TileBins {
        TileBins {
            order: DeviceBuffer::empty(),
            bin_starts: starts,
        }
    }

    #[test]
    fn range_spans_the_bins() {
        // 3 items in bin 0, 2 in bin 5, 4 in bin 31.
        let mut starts = [0u32; BINS + 1];
        for (b, s) in starts.iter_mut().enumerate() {
            *s = match b {
                0 => 0,
                1..=5 => 3,
                6..=31 => 5,
                _ => 9,
            };
        }
        let t = bins(starts);
        assert_eq!(t.range(0..=0), 0..3);
        assert_eq!(t.range(0..=4), 0..3);
        assert_eq!(t.range(5..=5), 3..5);
        assert_eq!(t.range(1..=8), 3..5);
        assert_eq!(t.range(31..=31), 5..9);
        assert_eq!(t.range(0..=31), 0..9);
        assert_eq!(t.range(6..=30), 5..5);
        // An empty range of bins (clippy refuses the literal `6..=5`).
        assert_eq!(t.range(RangeInclusive::new(6, 5)), 5..5);
    }

    #[test]
    #[should_panic(expected = "there are 32 bins")]
    fn range_past_the_last_bin_panics() {
        bins([0; BINS + 1]).range(0..=BINS);
    }

    #[test]
    fn inputs_are_checked() {
        assert!(check_inputs(11, 10, 10).is_ok());
        assert!(check_inputs(1, 0, 0).is_ok());
        // A subset's list may be longer than the tile set.
        assert!(check_inputs(1, 0, 1000).is_ok());
        assert!(check_inputs(u32::MAX as usize + 1, u32::MAX as usize, u32::MAX as usize).is_ok());
        for (len, tiles) in [(10, 10), (12, 10), (0, 0), (0, usize::MAX)] {
            let e = check_inputs(len, tiles, 0).unwrap_err();
            assert!(matches!(e, LoopsError::InvalidBinning { .. }), "{e}");
            assert!(
                e.to_string().contains(&format!("have {len} entries")),
                "{e}"
            );
        }
        let e = check_inputs(11, 10, u32::MAX as usize + 1).unwrap_err();
        assert!(e.to_string().contains("4294967296 items"), "{e}");
    }

    #[test]
    fn chunks_cover_the_items_in_whole_rounds() {
        let round = (BIN_BLOCK * BIN_ITEMS) as u64;
        for n in [
            1u64,
            255,
            1024,
            1025,
            100_000,
            540_673,
            10_000_000,
            u32::MAX as u64,
        ] {
            for sms in [1u32, 132] {
                let (dims, chunk) = chunking(n, sms);
                assert_eq!(chunk % round, 0);
                assert!(
                    dims.grid >= 1 && dims.grid <= sms * BLOCKS_PER_SM,
                    "{n} {sms}"
                );
                // The blocks' chunks cover 0..n, and the last block has items.
                assert!(dims.grid as u64 * chunk >= n && (dims.grid as u64 - 1) * chunk < n);
                assert_eq!(dims.block, BIN_BLOCK);
            }
        }
    }

    #[test]
    fn the_source_agrees_with_the_rust_constants() {
        let defines = [
            ("LOOPS_BINS", BINS),
            ("LOOPS_BIN_BLOCK", BIN_BLOCK as usize),
            ("LOOPS_BIN_ITEMS", BIN_ITEMS as usize),
            ("LOOPS_BIN_COUNTS", STATE_COUNTS),
            ("LOOPS_BIN_CURSORS", STATE_CURSORS),
            ("LOOPS_BIN_STARTS", STATE_STARTS),
        ];
        for (name, value) in defines {
            assert!(
                BINNING_SOURCE.contains(&format!("#define {name} {value}\n")),
                "#define {name} {value} not in BINNING_SOURCE"
            );
        }
        // The scan is one warp, one lane per bin.
        assert_eq!(BINS, 32);
        let suffixes = [
            ALL_TILES,
            <i32 as TileId>::SUFFIX,
            <u32 as TileId>::SUFFIX,
            <i64 as TileId>::SUFFIX,
            <u64 as TileId>::SUFFIX,
        ];
        for suffix in suffixes {
            assert!(BINNING_SOURCE.contains(&format!("LOOPS_BIN_ENTRIES({suffix}, ")));
        }
    }

    #[test]
    fn subset_ids_name_their_type() {
        let (a, b, c, d) = (
            DeviceBuffer::<i32>::empty(),
            DeviceBuffer::<u32>::empty(),
            DeviceBuffer::<i64>::empty(),
            DeviceBuffer::<u64>::empty(),
        );
        let ids: [SubsetIds<'_>; 4] = [(&a).into(), (&b).into(), (&c).into(), (&d).into()];
        let suffixes: Vec<_> = ids.iter().map(|i| i.suffix).collect();
        assert_eq!(suffixes, ["i32", "u32", "i64", "u64"]);
        let types: Vec<_> = ids.iter().map(|i| i.cuda_name).collect();
        assert_eq!(
            types,
            ["int", "unsigned int", "long long", "unsigned long long"]
        );
        assert!(ids.iter().all(|i| i.is_empty()));
        assert_eq!(ids[0].len(), 0);
        let mut args = KernelArgs::new();
        Pass::<*const u32>::pass(ids[2], &mut args);
        assert_eq!(args.sizes(), [8]);
        assert_eq!(args.what[0].to_string(), "const long long*");
    }
}
