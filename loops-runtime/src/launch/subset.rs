//! Prefix sums the runtime computes before a launch: of a tile subset's sizes, under the schedules
//! that partition atoms (`work_oriented`, `merge_path`, `split`), and of the tiles' piece counts,
//! under `split`.
//!
//! Those schedules cut a tile set into equal shares by searching its offsets, so they need the
//! atoms of the tiles they run over at contiguous (virtual) offsets. For `a.tiles_in(list)` the
//! runtime computes them on the GPU before each launch: the exclusive prefix sum of the listed
//! tiles' sizes, `list.len() + 1` entries, an id outside the set counting 0. It takes three small
//! kernels (per-chunk sums, a scan of the chunk sums, the offsets) and one 8-byte read-back of the
//! total, which sizes the launch's grid exactly, so such a launch waits for the prefix sum.
//!
//! The generated kernel takes the offsets as `loops_subset_offsets` (after the user's parameters);
//! its position `p` then holds the atoms of tile `list[p]`, at `loops_subset_offsets[p]..[p + 1]`.
//!
//! Under `split` (node splitting) the same kernels count each tile's pieces of at most `mdt` atoms
//! instead (`max(1, ceil(size / mdt))`), and the kernel takes their prefix sum as `loops_pieces`,
//! which it searches for the tile of each thread's piece; the total sizes the grid, one thread per
//! piece.

#![warn(missing_docs)]

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaFunction, CudaStream};
use kernels_gen::schedule::LaunchDims;
use std::sync::{Arc, MutexGuard};

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Element;
use crate::error::{LoopsError, Result};
use crate::launch::entry::{entries, Pass, Ptr};
use crate::launch::{KernelArgs, Param};

/// Items one block of the prefix-sum kernels takes: 256 threads of 8 items each, as in
/// [`SUBSET_SCAN_SOURCE`].
pub(crate) const CHUNK: usize = 2048;

/// An integer type a tile subset's list may hold. Signed ids are sign-extended, so a negative id
/// is outside the set, as in the kernel body's `list[p] as usize < a.num_tiles()`.
pub trait TileId: Element + sealed::Sealed {
    /// The suffix of the prefix-sum entry points for this type.
    const SUFFIX: &'static str;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! tile_id {
    ($($t:ty => $suffix:literal),*) => {$(
        impl sealed::Sealed for $t {}
        impl TileId for $t {
            const SUFFIX: &'static str = $suffix;
        }
    )*};
}
tile_id!(u32 => "u32", i32 => "i32", u64 => "u64", i64 => "i64");

/// A tile subset's list, type-erased.
#[derive(Clone, Copy)]
pub(crate) struct ListArg<'a> {
    pub ptr: CUdeviceptr,
    pub len: usize,
    pub stream: Option<&'a Arc<CudaStream>>,
    pub suffix: &'static str,
}

/// A launch's tile subset, as the wrapper of a kernel over `a.tiles_in(list)` gives it.
#[derive(Clone, Copy)]
pub(crate) struct SubsetArgs<'a> {
    /// The tile set's offsets (`tiles + 1` entries).
    pub offsets: &'a DeviceBuffer<i32>,
    pub list: ListArg<'a>,
}

/// A launch under `split`: the tile set's offsets and the most atoms of a piece.
#[derive(Clone, Copy)]
pub(crate) struct SplitArgs<'a> {
    pub offsets: &'a DeviceBuffer<i32>,
    pub mdt: u32,
}

impl<'a> KernelArgs<'a> {
    /// The tile subset of a kernel over `set.tiles_in(list)` under a schedule that partitions atoms:
    /// `offsets` are the set's tile offsets. The launch computes the prefix sum of the listed tiles'
    /// sizes and passes it to the kernel.
    pub fn tile_subset<I: TileId>(
        &mut self,
        offsets: &'a DeviceBuffer<i32>,
        list: &'a DeviceBuffer<I>,
    ) -> &mut Self {
        self.subset = Some(SubsetArgs {
            offsets,
            list: ListArg {
                ptr: list.device_ptr(),
                len: list.len(),
                stream: list.cuda_slice().map(|s| s.stream()),
                suffix: I::SUFFIX,
            },
        });
        self
    }

    /// [`KernelArgs::tile_subset`] with a type-erased list.
    pub(crate) fn tile_subset_ids(
        &mut self,
        offsets: &'a DeviceBuffer<i32>,
        list: crate::launch::binning::SubsetIds<'a>,
    ) -> &mut Self {
        self.subset = Some(SubsetArgs {
            offsets,
            list: list.list_arg(),
        });
        self
    }

    /// [`KernelArgs::tile_subset`] with the entries `range` of `list`.
    pub(crate) fn tile_subset_range(
        &mut self,
        offsets: &'a DeviceBuffer<i32>,
        list: &'a DeviceBuffer<u32>,
        range: std::ops::Range<usize>,
    ) -> &mut Self {
        let range = range.start.min(list.len())..range.end.min(list.len());
        self.subset = Some(SubsetArgs {
            offsets,
            list: ListArg {
                ptr: list.device_ptr() + (range.start * 4) as u64,
                len: range.len(),
                stream: list.cuda_slice().map(|s| s.stream()),
                suffix: u32::SUFFIX,
            },
        });
        self
    }

    /// A kernel under `split`: the launch cuts each tile (each listed tile, for a subset) into
    /// pieces of at most `mdt` atoms, counts them and prefix-sums the counts on the GPU, and passes
    /// the sums and `mdt` to the kernel. An `mdt` of 0 counts as 1.
    pub(crate) fn split_pieces(&mut self, offsets: &'a DeviceBuffer<i32>, mdt: u64) -> &mut Self {
        self.split = Some(SplitArgs {
            offsets,
            mdt: mdt.clamp(1, i32::MAX as u64) as u32,
        });
        self
    }
}

/// One prefix sum to compute: of the sizes (`mdt` 0) or piece counts of the tiles of `offsets`,
/// all of them or those of `list`.
#[derive(Clone, Copy)]
pub(crate) struct PrefixJob<'a> {
    pub offsets: &'a DeviceBuffer<i32>,
    pub list: Option<ListArg<'a>>,
    pub mdt: u32,
}

/// A computed prefix sum, in the handle's subset area.
pub(crate) struct Prefix {
    /// `items + 1` ints on the device.
    pub offsets: CUdeviceptr,
    /// The last of them: the atoms (or pieces) of all items.
    pub total: u64,
}

impl PrefixJob<'_> {
    /// The items summed: the listed tiles, or all tiles.
    fn items(&self) -> usize {
        match self.list {
            Some(list) => list.len,
            None => self.offsets.len().saturating_sub(1),
        }
    }
}

/// Refuses a job of more items than the kernels' `int` offsets can index.
fn check_items(kernel: &str, job: &PrefixJob<'_>) -> Result<()> {
    if job.items() > i32::MAX as usize {
        return Err(LoopsError::SubsetTooLarge {
            kernel: kernel.to_string(),
            len: job.items(),
        });
    }
    Ok(())
}

/// Slots (8 bytes) of the subset area for a prefix sum over `n` items: the chunk sums and their
/// total (`chunks + 1`), then the `n + 1` int offsets.
fn area_slots(n: usize) -> (usize, usize) {
    let sums = n.div_ceil(CHUNK) + 1;
    (sums, sums + (n + 2) / 2)
}

impl Gpu {
    /// Computes each job's prefix sum on this handle's stream, one after another in the subset
    /// area, reads back their totals (waits for them) and checks that they fit the kernels' 32-bit
    /// offsets. The area comes back locked: the caller holds it until its launch is queued.
    pub(crate) fn prefix_sums<'a>(
        &self,
        kernel: &str,
        jobs: &[PrefixJob<'a>],
    ) -> Result<(Vec<Prefix>, MutexGuard<'_, DeviceBuffer<u64>>)> {
        for job in jobs {
            check_items(kernel, job)?;
        }
        let slots: usize = jobs.iter().map(|j| area_slots(j.items()).1).sum();
        let area = self.subset_area(slots)?;
        let mut at = area.device_ptr();
        let mut queued = Vec::new();
        for job in jobs {
            let n = job.items();
            let (sums_slots, job_slots) = area_slots(n);
            let (sums, offsets) = (at, at + (sums_slots * 8) as u64);
            at += (job_slots * 8) as u64;
            self.queue_prefix_sum(job, n, sums, offsets)?;
            queued.push((sums + (n.div_ceil(CHUNK) * 8) as u64, offsets));
        }
        let mut prefixes = Vec::new();
        for (job, (total_at, offsets)) in jobs.iter().zip(queued) {
            let total = self.read_total(kernel, job, total_at)?;
            prefixes.push(Prefix { offsets, total });
        }
        Ok((prefixes, area))
    }

    /// One prefix sum in a buffer of its own (to be kept: see `preprocess`): the buffer, the
    /// offsets' address inside it, the total. Waits for it, as [`Gpu::prefix_sums`].
    pub(crate) fn prefix_sum_buffer(
        &self,
        kernel: &str,
        job: &PrefixJob<'_>,
    ) -> Result<(DeviceBuffer<u64>, CUdeviceptr, u64)> {
        check_items(kernel, job)?;
        let n = job.items();
        let (sums_slots, job_slots) = area_slots(n);
        let buffer = self.uninit::<u64>(job_slots)?;
        let (sums, offsets) = (
            buffer.device_ptr(),
            buffer.device_ptr() + (sums_slots * 8) as u64,
        );
        self.queue_prefix_sum(job, n, sums, offsets)?;
        let total = self.read_total(kernel, job, sums + (n.div_ceil(CHUNK) * 8) as u64)?;
        Ok((buffer, offsets, total))
    }

    /// Reads back a prefix sum's total (waiting for it) and checks that it fits the kernels'
    /// 32-bit offsets.
    fn read_total(&self, kernel: &str, job: &PrefixJob<'_>, at: CUdeviceptr) -> Result<u64> {
        let mut total = [0u64];
        self.read_slots(at, &mut total, "reading the total of a prefix sum")?;
        let total = total[0];
        if total > i32::MAX as u64 {
            return Err(if job.mdt == 0 {
                LoopsError::SubsetAtomsTooLarge {
                    kernel: kernel.to_string(),
                    atoms: total,
                }
            } else {
                LoopsError::TooManyPieces {
                    kernel: kernel.to_string(),
                    pieces: total,
                    mdt: job.mdt,
                }
            });
        }
        Ok(total)
    }

    /// The prefix sum of the sizes of the tiles of `offsets` (`tiles + 1` entries), as the segment
    /// schedules compute it for a subset before a launch: three kernels and a read-back of the
    /// total, which it returns. For measuring that cost (`examples/bench_binning.rs` holds it
    /// against [`Gpu::bin_tiles`]); the sums stay in the handle's subset area.
    pub fn tile_size_prefix_sum(&self, offsets: &DeviceBuffer<i32>) -> Result<u64> {
        let job = PrefixJob {
            offsets,
            list: None,
            mdt: 0,
        };
        let (prefixes, _area) = self.prefix_sums("tile_size_prefix_sum", &[job])?;
        Ok(prefixes[0].total)
    }

    /// The sizes of the tiles of `list` in the set of `offsets`: one small kernel and a read-back
    /// (waits for it). An id outside the set counts as an empty tile. For `schedule = "auto"`'s
    /// choice over a subset (a traversal's frontier).
    pub(crate) fn subset_stats(
        &self,
        offsets: &DeviceBuffer<i32>,
        list: ListArg<'_>,
    ) -> Result<kernels_gen::schedule::auto::TileStats> {
        use kernels_gen::schedule::lrb::BINS;
        let n = list.len;
        let out = self.zeros::<u64>(3 + BINS)?;
        if n > 0 {
            let entry = format!("loops_subset_stats_{}", list.suffix);
            let f = self.function("loops_subset_prefix", SUBSET_SCAN_SOURCE, &entry)?;
            let tiles = offsets.len().saturating_sub(1) as i64;
            let args = loops_subset_stats::args::<u32, _, _, _, _, _>(
                offsets,
                tiles,
                Some(list),
                n as i64,
                &out,
            );
            let resident = (self.limits().sm_count as usize * 4).max(1);
            let dims = LaunchDims {
                grid: n.div_ceil(256).min(resident) as u32,
                block: 256,
                shared_bytes: 0,
            };
            self.launch_function("loops_subset_stats", &f, dims, args)?;
        }
        let mut counts = [0u64; 3 + BINS];
        self.read_slots(
            out.device_ptr(),
            &mut counts,
            "reading the tile sizes of a subset",
        )?;
        let mut histogram = [0u64; BINS];
        histogram.copy_from_slice(&counts[3..]);
        Ok(kernels_gen::schedule::auto::TileStats {
            tiles: n as u64,
            atoms: counts[0],
            max_tile_atoms: counts[1],
            longest_empty_run: 0,
            empty_tiles: counts[2],
            histogram,
        })
    }

    /// Queues the three kernels of one prefix sum over `n` items: chunk sums into `sums`, their
    /// scan (and total at `sums[chunks]`), the offsets into `offsets`.
    fn queue_prefix_sum<'a>(
        &self,
        job: &PrefixJob<'a>,
        n: usize,
        sums: CUdeviceptr,
        offsets: CUdeviceptr,
    ) -> Result<()> {
        let tiles = job.offsets.len().saturating_sub(1);
        let chunks = n.div_ceil(CHUNK);
        // Without a list, the items are the tiles themselves (a null list).
        let suffix = job.list.map_or("u32", |l| l.suffix);
        let function =
            |entry: &str| self.function("loops_subset_prefix", SUBSET_SCAN_SOURCE, entry);
        let dims = |grid: usize, block: u32| LaunchDims {
            grid: grid as u32,
            block,
            shared_bytes: 0,
        };
        // Every per-item kernel takes first the set's offsets, its tile count, the list (null: the
        // tiles themselves), the item count, the piece size. The sums and offsets are in the
        // handle's subset area.
        let (tiles, n, mdt) = (tiles as i64, n as i64, job.mdt as i64);
        let sums = Ptr::<i64>::address(sums);
        if chunks > 0 {
            let f = function(&format!("loops_subset_chunk_sums_{suffix}"))?;
            let args = loops_subset_chunk_sums::args::<u32, _, _, _, _, _, _>(
                job.offsets,
                tiles,
                job.list,
                n,
                mdt,
                sums,
            );
            self.launch_function("loops_subset_chunk_sums", &f, dims(chunks, 256), args)?;
        }
        let f = function("loops_subset_scan_sums")?;
        let args = loops_subset_scan_sums::args(sums, chunks as i64);
        self.launch_function("loops_subset_scan_sums", &f, dims(1, 1024), args)?;
        let f: CudaFunction = function(&format!("loops_subset_offsets_{suffix}"))?;
        let args = loops_subset_offsets::args::<u32, _, _, _, _, _, _, _, _>(
            job.offsets,
            tiles,
            job.list,
            n,
            mdt,
            sums,
            chunks as i64,
            Ptr::<i32>::address(offsets),
        );
        self.launch_function("loops_subset_offsets", &f, dims(chunks.max(1), 256), args)
    }
}

/// The prefix-sum kernels. A listed id is read as a signed 64-bit value and compared unsigned, so
/// negative ids are outside the set; the sums are 64-bit, so a total past `i32::MAX` (a list that
/// repeats long tiles) is seen, not wrapped.
/// The CUDA text is kept in `subset.cuh`, next to this file.
pub const SUBSET_SCAN_SOURCE: &str = include_str!("subset.cuh");

/// A subset's list (`None`: the tiles themselves, a null list) as the `const Id*` parameter of a
/// prefix-sum family: type-erased, so it passes for the declaration's `Id` whatever its own is
/// (the entry point, chosen by its suffix, takes its type).
impl<'a, I: Element> Pass<'a, *const I> for Option<ListArg<'a>> {
    fn pass(self, args: &mut KernelArgs<'a>) {
        let what = Param::Ptr {
            ty: "tile id",
            mutable: false,
        };
        match self {
            Some(list) => args.push_foreign_ptr(list.ptr, list.stream, what),
            None => args.push_value(0u64, what),
        }
    }
}

entries! {
    source: SUBSET_SCAN_SOURCE;
    undeclared: [];
    /// Each chunk's sum of tile sizes (or pieces of `mdt` atoms).
    fn loops_subset_chunk_sums<Id: TileId [u32, i64]> = "loops_subset_chunk_sums_*" (
        offsets: *const i32, tiles: i64, list: *const Id, n: i64, mdt: i64, sums: *mut i64,
    );
    /// The items' offsets from the scanned chunk sums.
    fn loops_subset_offsets<Id: TileId [u32, i64]> = "loops_subset_offsets_*" (
        offsets: *const i32, tiles: i64, list: *const Id, n: i64, mdt: i64, sums: *const i64,
        chunks: i64, out: *mut i32,
    );
    /// The sizes of the listed tiles: atoms, longest, empty, log2 histogram.
    fn loops_subset_stats<Id: TileId [u32, i64]> = "loops_subset_stats_*" (
        offsets: *const i32, tiles: i64, list: *const Id, n: i64, out: *mut u64,
    );
    /// The exclusive scan of the chunk sums, in place, and their total after them (one block).
    fn loops_subset_scan_sums(sums: *mut i64, chunks: i64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_agrees_with_the_rust_side() {
        assert!(SUBSET_SCAN_SOURCE.contains(&format!("#define LOOPS_CHUNK {CHUNK}")));
        // 256 threads of 8 items.
        assert_eq!(CHUNK, 256 * 8);
        for suffix in [u32::SUFFIX, i32::SUFFIX, u64::SUFFIX, i64::SUFFIX] {
            assert!(
                SUBSET_SCAN_SOURCE.contains(&format!(", {suffix})")),
                "{suffix}"
            );
        }
    }

    #[test]
    fn the_area_holds_sums_then_offsets() {
        // (chunk sums + their total, and then n + 1 ints).
        assert_eq!(area_slots(0), (1, 2));
        assert_eq!(area_slots(1), (2, 3));
        assert_eq!(area_slots(2), (2, 4));
        assert_eq!(area_slots(CHUNK), (2, 2 + (CHUNK + 2) / 2));
        assert_eq!(area_slots(CHUNK + 1).0, 3);
    }
}
