//! Where each block's range starts under `merge_path` and `work_oriented`, computed once per tile
//! set.
//!
//! Those schedules cut a tile set's items (tiles + atoms, or atoms) into ranges of
//! `block_size * items_per_thread`, one per block. Left to itself, a block finds the first and last
//! tile of its range by two 32-way warp searches of the offsets: about `log32(tiles)` rounds of
//! dependent global loads (five for 4M rows) after its ticket and before any of its loads of the
//! atoms can start. The offsets of a tile set never change, so the runtime computes every range's
//! first tile once, one thread per boundary, and keeps the `blocks + 1` ints with the tile set
//! (`preprocess`); the kernel then reads `loops_block_starts[chunk]` and `[chunk + 1]`, one round
//! of loads. A launch over a subset, or without a kept array, passes a null pointer and the blocks
//! search as before. `kernels_gen::schedule::carry::Partition::block_starts` is the CPU model.

#![warn(missing_docs)]

use kernels_gen::schedule::carry::Partition;
use kernels_gen::schedule::LaunchDims;

use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::launch::check_len;
use crate::launch::entry::entries;

/// The boundaries of one launch geometry: `blocks + 1` of them, `items_per_block` apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeJob {
    /// How the items are shared out (the schedule's partition).
    pub partition: Partition,
    /// Items (merge-path steps or atoms) per block.
    pub items_per_block: u64,
    /// The blocks of the launch.
    pub blocks: u64,
}

impl Gpu {
    /// The kernel that finds where each block's range starts (compiled once per process).
    pub(crate) fn block_starts_function(&self) -> Result<cudarc::driver::CudaFunction> {
        self.function(
            "loops_block_starts",
            BLOCK_STARTS_SOURCE,
            "loops_block_starts",
        )
    }

    /// Every block's range start for `job` over the tile set whose `tiles + 1` offsets are
    /// `offsets`, in a new buffer of `job.blocks + 1` ints, queued on this handle's stream (no wait).
    /// `None` for a partition whose ranges are not found in the offsets (`split`).
    pub fn block_starts(
        &self,
        offsets: &DeviceBuffer<i32>,
        job: RangeJob,
    ) -> Result<Option<DeviceBuffer<i32>>> {
        if job.partition.range_slope().is_none() {
            return Ok(None);
        }
        let mut starts = self.uninit::<i32>(job.blocks as usize + 1)?;
        self.block_starts_into(offsets, job, &mut starts)?;
        Ok(Some(starts))
    }

    /// [`Gpu::block_starts`] into `starts`, which must hold `job.blocks + 1` ints; a partition
    /// without block starts writes nothing.
    pub fn block_starts_into(
        &self,
        offsets: &DeviceBuffer<i32>,
        job: RangeJob,
        starts: &mut DeviceBuffer<i32>,
    ) -> Result<()> {
        let Some(slope) = job.partition.range_slope() else {
            return Ok(());
        };
        let boundaries = job.blocks as usize + 1;
        check_len(
            "loops_block_starts",
            "starts",
            starts.len(),
            boundaries,
            "one start per block and the end",
        )?;
        let f = self.block_starts_function()?;
        let starts_len = starts.len() as u64;
        let args = loops_block_starts::args(
            offsets,
            offsets.len().saturating_sub(1) as i32,
            slope as i32,
            job.items_per_block as i64,
            boundaries as i64,
            &*starts,
            starts_len,
        );
        let dims = LaunchDims {
            grid: boundaries.div_ceil(256) as u32,
            block: 256,
            shared_bytes: 0,
        };
        self.launch_function("loops_block_starts", &f, dims, args)
    }
}

/// One thread per boundary `b`: the largest tile `x` with `offsets[x] + slope * x <= min(b *
/// items, total)`, by binary search (the search every block would otherwise make by warps). The
/// offsets were checked on upload: non-decreasing, from 0.
/// The CUDA text is kept in `block_ranges.cuh`, next to this file.
pub const BLOCK_STARTS_SOURCE: &str = include_str!("block_ranges.cuh");

entries! {
    source: BLOCK_STARTS_SOURCE;
    undeclared: [];
    /// One thread per boundary: where each block's range starts.
    fn loops_block_starts(
        offsets: *const i32, tiles: i32, slope: i32, items: i64, boundaries: i64,
        starts: *mut i32, starts_len: u64,
    );
}
