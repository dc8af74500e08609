//! What the `split`, `lrb`, `merge_path` and `work_oriented` schedules compute from a whole tile set
//! before they launch, kept with the tile set so that only its first launch pays for it (as
//! cuSPARSE's `SpMV_preprocess`).
//!
//! `split` needs the prefix sum of every tile's piece count, and `lrb` the tiles' bins (and, for
//! its longest tiles, the prefix sum of their sizes in bin order). Each costs a few small kernels
//! and a read-back that waits for them: about 50 us a launch, more than a small SpMV takes.
//! `merge_path` and `work_oriented` need where each block's range starts (`block_ranges`: one small
//! kernel, no read-back), which saves every block its searches of the offsets. A
//! device tile set's offsets never change after upload, so what is computed from them stays right
//! for the tile set's life: every device tile set owns a [`TileSetCache`], and the launch wrappers
//! look there first. What is computed over a tile *subset* (a frontier) is not cached: its list
//! changes from launch to launch.
//!
//! The cached buffers are made on the stream of the handle that launched first, and used like any
//! buffer of another handle (the launch orders the streams), so forks may share a tile set.

#![warn(missing_docs)]

use std::sync::OnceLock;

use cudarc::driver::sys::CUdeviceptr;

use crate::device::{DeviceBuffer, Gpu};
use crate::error::{LoopsError, Result};
use crate::formats::TileSet;
use crate::launch::binning::TileBins;
use crate::launch::block_ranges::RangeJob;
use crate::launch::subset::PrefixJob;

/// Prefix sums a tile set keeps: one per `split` piece size (`mdt`) used on it and one for `lrb`.
/// Past that, launches compute theirs each time, as before.
const PREFIX_SLOTS: usize = 4;

/// Block starts a tile set keeps: one per launch geometry of `merge_path` and `work_oriented`
/// (items per thread and block size) used on it. Past that, the blocks search.
const START_SLOTS: usize = 6;

/// Per-tile-set results of the preprocessing (`split`'s piece counts, `lrb`'s bins, the block
/// starts of `merge_path` and `work_oriented`); see the module doc. Made empty on
/// upload; filled by the first launch that needs each part.
pub struct TileSetCache {
    /// The device address of the offsets it was made for: a job over other offsets is not cached.
    offsets: CUdeviceptr,
    bins: OnceLock<TileBins>,
    prefixes: [OnceLock<CachedPrefix>; PREFIX_SLOTS],
    starts: [OnceLock<(RangeJob, DeviceBuffer<i32>)>; START_SLOTS],
    /// `auto`'s winners on this set, by kernel and call ([`TunedKey`]): the variant's name.
    tuned: std::sync::Mutex<std::collections::HashMap<TunedKey, &'static str>>,
    /// The hand-written operations' measured plans on this set (`ops::spmm`'s), by the op's own
    /// key (element type, k, ...): the plan's text, which the op parses and checks again.
    op_plans: std::sync::Mutex<std::collections::HashMap<String, String>>,
}

/// What an `auto` winner kept with a tile set was measured for: the kernel (its source's address
/// and length), the element key, and the lengths of the call's buffers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TunedKey {
    pub source: (usize, usize),
    pub element: String,
    pub lens: Vec<u64>,
}

/// One prefix sum in its own buffer: the chunk sums, then the `items + 1` int offsets.
pub(crate) struct CachedPrefix {
    /// The list (address and length; 0 and 0 for all tiles) and piece size it was computed over.
    key: (CUdeviceptr, usize, u32),
    pub sums: DeviceBuffer<u64>,
    /// The offsets, inside `sums`.
    pub offsets: CUdeviceptr,
    pub total: u64,
}

/// The preprocessing kept with a tile set: what the first launches computed from its offsets, in
/// the set's [`Kept`](crate::formats::Kept), made empty by the first call.
pub trait Preprocessed {
    /// The set's [`TileSetCache`].
    fn preprocessed(&self) -> &TileSetCache;
}

impl<S: TileSet + ?Sized> Preprocessed for S {
    fn preprocessed(&self) -> &TileSetCache {
        self.kept()
            .get_or_init(|| TileSetCache::new(self.tile_offsets()))
    }
}

impl TileSetCache {
    /// An empty cache for the tile set whose offsets are `offsets`.
    pub(crate) fn new(offsets: &DeviceBuffer<i32>) -> Self {
        TileSetCache {
            offsets: offsets.device_ptr(),
            bins: OnceLock::new(),
            prefixes: Default::default(),
            starts: Default::default(),
            tuned: Default::default(),
            op_plans: Default::default(),
        }
    }

    /// The plan a hand-written op measured fastest for `key` on this set, if it did.
    pub(crate) fn op_plan(&self, key: &str) -> Option<String> {
        let plans = self.op_plans.lock().unwrap_or_else(|e| e.into_inner());
        plans.get(key).cloned()
    }

    /// Keeps a hand-written op's measured plan for `key` on this set.
    pub(crate) fn remember_op_plan(&self, key: String, plan: String) {
        let mut plans = self.op_plans.lock().unwrap_or_else(|e| e.into_inner());
        plans.insert(key, plan);
    }

    /// How many measured plans of hand-written ops (`spmm`'s, one per element type and k) are
    /// kept with the set.
    pub fn op_plans_kept(&self) -> usize {
        self.op_plans
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }

    /// The variant `auto` measured fastest for `key` on this set, if it did.
    pub(crate) fn tuned(&self, key: &TunedKey) -> Option<&'static str> {
        let tuned = self.tuned.lock().unwrap_or_else(|e| e.into_inner());
        tuned.get(key).copied()
    }

    /// Keeps `auto`'s winner for `key` on this set.
    pub(crate) fn remember_tuned(&self, key: TunedKey, variant: &'static str) {
        let mut tuned = self.tuned.lock().unwrap_or_else(|e| e.into_inner());
        tuned.insert(key, variant);
    }

    /// How many `auto` winners are kept with the set.
    pub fn tuned_kept(&self) -> usize {
        self.tuned.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether an `lrb` launch has binned the tile set.
    pub fn has_bins(&self) -> bool {
        self.bins.get().is_some()
    }

    /// The prefix sums kept (of `split` piece counts, and of `lrb`'s longest tiles).
    pub fn prefixes_kept(&self) -> usize {
        self.prefixes.iter().filter(|p| p.get().is_some()).count()
    }

    /// The block starts kept (of `merge_path` and `work_oriented` launches).
    pub fn block_starts_kept(&self) -> usize {
        self.starts.iter().filter(|s| s.get().is_some()).count()
    }

    /// Where each block's range of a launch `job` over the tile set starts
    /// ([`Gpu::block_starts`], queued on `gpu`'s stream by the first call for `job`), or `None`
    /// where it cannot be kept: other offsets than the tile set's, or every slot taken.
    pub(crate) fn block_starts(
        &self,
        gpu: &Gpu,
        offsets: &DeviceBuffer<i32>,
        job: RangeJob,
    ) -> Result<Option<&DeviceBuffer<i32>>> {
        if offsets.device_ptr() != self.offsets {
            return Ok(None);
        }
        let kept = keep(
            &self.starts,
            |(kept, _)| *kept == job,
            || Ok(gpu.block_starts(offsets, job)?.map(|b| (job, b))),
        )?;
        Ok(kept.map(|(_, b)| b))
    }

    /// The bins of all `tiles` tiles of `offsets` (the tile set's own): [`Gpu::bin_tiles`] on the
    /// first call, the same bins after.
    pub fn bins(&self, gpu: &Gpu, offsets: &DeviceBuffer<i32>, tiles: usize) -> Result<&TileBins> {
        if offsets.device_ptr() != self.offsets {
            return Err(LoopsError::InvalidBinning {
                detail: "the offsets are not those of the tile set that owns the cache".into(),
            });
        }
        if let Some(bins) = self.bins.get() {
            return Ok(bins);
        }
        let bins = gpu.bin_tiles(offsets, tiles, None)?;
        // Two threads may both bin; they get the same counts, and either order is right.
        let _ = self.bins.set(bins);
        Ok(self.bins.get().expect("set above"))
    }

    /// The prefix sum of `job`, computed by `gpu` on the first call, or `None` where it cannot be
    /// kept: a job over other offsets, or every slot taken by other jobs.
    pub(crate) fn prefix(
        &self,
        gpu: &Gpu,
        kernel: &str,
        job: &PrefixJob<'_>,
    ) -> Result<Option<&CachedPrefix>> {
        if job.offsets.device_ptr() != self.offsets {
            return Ok(None);
        }
        let key = (
            job.list.map_or(0, |l| l.ptr),
            job.list.map_or(0, |l| l.len),
            job.mdt,
        );
        keep(
            &self.prefixes,
            |p| p.key == key,
            || {
                let (sums, offsets, total) = gpu.prefix_sum_buffer(kernel, job)?;
                Ok(Some(CachedPrefix {
                    key,
                    sums,
                    offsets,
                    total,
                }))
            },
        )
    }
}

/// The value in `slots` that `is_it` picks, or the one `compute` makes, kept in a free slot;
/// `None` where `compute` gives none or no slot is free (the caller computes it per launch).
fn keep<T>(
    slots: &[OnceLock<T>],
    is_it: impl Fn(&T) -> bool,
    compute: impl FnOnce() -> Result<Option<T>>,
) -> Result<Option<&T>> {
    let find = || slots.iter().filter_map(OnceLock::get).find(|v| is_it(v));
    if let Some(v) = find() {
        return Ok(Some(v));
    }
    if slots.iter().all(|s| s.get().is_some()) {
        return Ok(None);
    }
    let mut computed = compute()?;
    if computed.is_none() {
        return Ok(None);
    }
    for slot in slots {
        if let Some(v) = computed.take() {
            if let Err(v) = slot.set(v) {
                computed = Some(v);
            }
        }
        // Another thread may have kept the same value meanwhile.
        if let Some(v) = find() {
            return Ok(Some(v));
        }
    }
    Ok(None)
}

impl std::fmt::Debug for TileSetCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TileSetCache")
            .field("bins", &self.has_bins())
            .field("prefixes", &self.prefixes_kept())
            .field("block_starts", &self.block_starts_kept())
            .finish()
    }
}
