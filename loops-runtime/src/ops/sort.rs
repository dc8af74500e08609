//! Segmented sort: each row of a CSR matrix sorted by column, values carried, stable; and the same
//! machinery sorting the columns of a CSC being built ([`super::transpose`](mod@super::transpose)).
//!
//! The approach is the LRB paper's (logarithmic radix binning: Fox, Tripathy, Green, HPEC 2019):
//! segments are binned by `ceil(log2(length))` on the GPU ([`Gpu::bin_tiles`], kept with the
//! matrix), then each non-empty bin is one launch of the kernel fit for its lengths
//! (`sort.cuh`), except the group bins, which share one launch when two or more are non-empty
//! (`loops_segsort_groups_*`: a launch costs more than a small bin's sort):
//!
//! | bins | lengths | kernel |
//! |---|---|---|
//! | 0 | 0, 1 | none (a transpose still writes its entry: a group of one lane) |
//! | 1..=5 | 2..=32 | a group of `2^b` lanes, one key per lane, bitonic by shuffles |
//! | 6..=12 | 33..=4096 | one block, `2^b` keys in shared memory, bitonic |
//! | 13.. | longer | chunks of 4096 sorted by blocks into a key buffer, merge passes between two key buffers (one per bin past 12; merge path, 2048 keys per block in shared memory), then the keys written out |
//!
//! Stability costs nothing: the sort key of an entry is 64-bit, its column in the high half and its
//! position in the row in the low half, so no two keys of a segment are equal and any network is
//! stable. Only the keys move; each value is fetched once at the end, by the position in its key.
//!
//! Scratch: none for rows up to 4096 entries; with longer rows, two key buffers (8 bytes per
//! nonzero each) and a copy of the values. The only host round trip is the binning's read of the
//! 33 bin starts, once per matrix (the bins are kept with it).

use cudarc::driver::CudaFunction;
use kernels_gen::schedule::lrb::BINS;
use kernels_gen::schedule::LaunchDims;

use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::{LoopsError, Result};
use crate::formats::{DeviceCsr, TileSet};
use crate::launch::binning::TileBins;
use crate::launch::entry::{entries, Ptr};
use crate::launch::preprocess::Preprocessed;
use crate::launch::KernelArgs;

/// The segmented sort's kernels (`loops_segsort_*`): the templates, and the entry points of CSR
/// rows for `f32` and `f64`.
pub const SORT_SOURCE: &str = include_str!("sort.cuh");

/// Entries a block sorts in shared memory (`LOOPS_SEGSORT_CHUNK`): the longest medium segment and
/// the chunk of a long one.
pub(crate) const CHUNK: usize = 4096;
/// `log2(CHUNK)`: the last bin sorted by one block.
const CHUNK_LOG2: usize = 12;
/// The last bin sorted by a group of lanes (32 entries).
const LAST_GROUP_BIN: usize = 5;
/// Threads of a block of the group kernels (`LOOPS_SEGSORT_WARP_BLOCK`).
const GROUP_BLOCK: u32 = 256;
/// Threads of a block of the long-segment kernels (`LOOPS_SEGSORT_LONG_BLOCK`).
const LONG_BLOCK: u32 = 256;
/// Keys each thread of a merge pass makes (`LOOPS_SEGSORT_MERGE_ITEMS`).
const MERGE_ITEMS: usize = 8;
/// Keys a block of a merge pass makes at a time (`LOOPS_SEGSORT_MERGE_TILE`): its threads' share,
/// and a divisor of twice the narrowest run (`CHUNK`), so that no tile straddles two pairs of runs.
const MERGE_TILE: usize = LONG_BLOCK as usize * MERGE_ITEMS;

/// One launch of a segmented sort: the bin's segments are `order[first .. first + count]` (the
/// binning's order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Segments of at most `lanes` entries, a group of `lanes` lanes each.
    Group {
        /// Lanes per segment (a power of two up to 32).
        lanes: u32,
        /// The first segment's place in the order.
        first: u32,
        /// Segments.
        count: u32,
    },
    /// The segments of every group bin from `first_bin` (0 or 1) to 5 in one launch, bin `b`'s
    /// in `order[starts[b] .. starts[b + 1]]`: a plan with two or more non-empty group bins.
    Groups {
        /// The first bin launched for.
        first_bin: u32,
        /// The bin starts 0..=6 of the binning.
        starts: [u32; LAST_GROUP_BIN + 2],
    },
    /// Segments of at most `keys` entries, one block of `threads` each.
    Block {
        /// Keys in shared memory (a power of two, 64 to `CHUNK`).
        keys: u32,
        /// Threads per block.
        threads: u32,
        /// The first segment's place in the order.
        first: u32,
        /// Segments.
        count: u32,
    },
    /// Segments longer than `CHUNK`: chunks, then one merge pass per entry of `pass_firsts`,
    /// then the finish.
    Long {
        /// The first segment's place in the order.
        first: u32,
        /// Segments.
        count: u32,
        /// Pass `p` runs over the segments of bins `13 + p` and up: `pass_firsts[p] .. first +
        /// count` of the order.
        pass_firsts: Vec<u32>,
    },
}

/// The launches that sort the binned segments whose bin starts are `bin_starts` (the order is
/// grouped by bin, bins ascending). Bin 0 (lengths 0 and 1) is sorted already, so only
/// `with_bin0` launches for it (a transpose, whose entries must still be written out).
pub fn plan(bin_starts: &[u32; BINS + 1], with_bin0: bool) -> Vec<Step> {
    let range = |b: usize| (bin_starts[b], bin_starts[b + 1] - bin_starts[b]);
    let mut steps = Vec::new();
    let first_bin = if with_bin0 { 0 } else { 1 };
    for b in first_bin..=LAST_GROUP_BIN {
        let (first, count) = range(b);
        if count > 0 {
            steps.push(Step::Group {
                lanes: 1 << b,
                first,
                count,
            });
        }
    }
    // Several group bins: one launch for all (a launch costs more than a small bin's sort).
    if steps.len() > 1 {
        let mut starts = [0u32; LAST_GROUP_BIN + 2];
        starts.copy_from_slice(&bin_starts[..LAST_GROUP_BIN + 2]);
        steps = vec![Step::Groups {
            first_bin: first_bin as u32,
            starts,
        }];
    }
    for b in LAST_GROUP_BIN + 1..=CHUNK_LOG2 {
        let (first, count) = range(b);
        if count > 0 {
            let keys = 1u32 << b;
            steps.push(Step::Block {
                keys,
                threads: (keys / 2).min(256),
                first,
                count,
            });
        }
    }
    let first = bin_starts[CHUNK_LOG2 + 1];
    let count = bin_starts[BINS] - first;
    if count > 0 {
        // The last non-empty bin sets the passes: its segments, up to 2^b entries, need b - 12
        // doublings of the sorted runs of CHUNK.
        let last = (CHUNK_LOG2 + 1..BINS)
            .rev()
            .find(|&b| bin_starts[b + 1] > bin_starts[b])
            .expect("a long segment is in some bin");
        let pass_firsts = (CHUNK_LOG2 + 1..=last).map(|b| bin_starts[b]).collect();
        steps.push(Step::Long {
            first,
            count,
            pass_firsts,
        });
    }
    steps
}

/// Blocks per segment of a long-segment launch over `count` segments of at most `longest`
/// entries, a block taking `per_block` of them at a time: enough blocks to fill `sm_count` SMs
/// about 8 deep, no more than the longest segment has pieces for.
pub(crate) fn blocks_per_segment(count: u32, longest: u64, per_block: usize, sm_count: u32) -> u32 {
    let fill = (sm_count.max(1) as u64 * 8).div_ceil(count.max(1) as u64);
    let chunks = longest.div_ceil(per_block.max(1) as u64).max(1);
    // count * blocks stays below 2^31 (a grid's limit): count <= nnz / 4096.
    fill.min(chunks).clamp(1, 1 << 16) as u32
}

/// The blocks of a [`Step::Groups`] launch (`loops_segsort_group_blocks` summed over its bins).
pub(crate) fn group_blocks(first_bin: u32, starts: &[u32; LAST_GROUP_BIN + 2]) -> u64 {
    (first_bin as usize..=LAST_GROUP_BIN)
        .map(|b| {
            let count = (starts[b + 1] - starts[b]) as u64;
            (count << b).div_ceil(GROUP_BLOCK as u64)
        })
        .sum()
}

entries! {
    // A policy's entry points take its own parameters first (`LOOPS_..._PARAMS`, a macro
    // argument of their `#define`): `[policy]`, launched with `after(policy, ...)`.
    source: include_str!("sort.cuh");
    undeclared: [];
    /// The CSR rows' policy (`saved`: the long rows' copy of the values, or null).
    fn csr_policy<T: Float [f32, f64]> = "LOOPS_SEGSORT_CSR_PARAMS" (
        offsets: *const i32, indices: *mut i32, values: *mut T, saved: *mut T,
    );
    /// The groups of bins 0..=5 in one launch, `s0..s6` their starts.
    fn loops_segsort_groups = "loops_segsort_groups_*" [policy] (
        order: *const u32, first_bin: u32, s0: u32, s1: u32, s2: u32, s3: u32, s4: u32, s5: u32,
        s6: u32,
    );
    /// A group of lanes per segment.
    fn loops_segsort_group = "loops_segsort_group*_*" [policy] (
        order: *const u32, first: u32, count: u32,
    );
    /// A block per segment.
    fn loops_segsort_block = "loops_segsort_block*_*" [policy] (order: *const u32, first: u32);
    /// Long segments: their chunks sorted.
    fn loops_segsort_chunks = "loops_segsort_chunks_*" [policy] (
        order: *const u32, first: u32, per_segment: u32, sorted_chunks: *mut u64,
    );
    /// Long segments: the merged keys stored.
    fn loops_segsort_finish = "loops_segsort_finish_*" [policy] (
        order: *const u32, first: u32, per_segment: u32, even: *const u64, odd: *const u64,
    );
    /// One merge pass between long segments' sorted runs of `width` keys: one entry point for
    /// every policy.
    fn loops_segsort_merge_pass(
        seg_offsets: *const i32, order: *const u32, first: u32, per_segment: u32, width: u64,
        from: *const u64, to: *mut u64,
    );
}

/// The kernels of one policy (`csr_f32`, `csc_f64`, ...) of a source, and the launches of a plan.
pub(crate) struct SegmentedSort<'s> {
    pub gpu: &'s Gpu,
    /// The name of the kernel in errors and the source's name.
    pub kernel: &'static str,
    pub source: &'static str,
    /// The policy's suffix of the entry points.
    pub policy: String,
}

impl SegmentedSort<'_> {
    fn function(&self, entry: &str) -> Result<CudaFunction> {
        self.gpu.function(self.kernel, self.source, entry)
    }

    fn launch(&self, entry: &str, grid: u64, block: u32, args: KernelArgs<'_>) -> Result<()> {
        let f = self.function(entry)?;
        let grid = u32::try_from(grid).map_err(|_| LoopsError::InvalidBinning {
            detail: format!("{entry}: a grid of {grid} blocks"),
        })?;
        let dims = LaunchDims {
            grid,
            block,
            shared_bytes: 0,
        };
        self.gpu.launch_function(entry, &f, dims, args)
    }

    /// Runs `steps` on the segments `seg_offsets` binned as `bins`. `policy` holds the policy's
    /// own parameters (cloned into every launch). Long segments take their chunks' keys in
    /// `long_keys.0` and `long_keys.1` (each as long as the entries; unused without long segments).
    pub fn run<'a>(
        &self,
        steps: &[Step],
        seg_offsets: &'a DeviceBuffer<i32>,
        bins: &'a TileBins,
        policy: &KernelArgs<'a>,
        long_keys: Option<(&'a DeviceBuffer<u64>, &'a DeviceBuffer<u64>)>,
    ) -> Result<()> {
        // Every entry point of the policy takes the policy's parameters, then the order.
        let order = &bins.order;
        let name = &self.policy;
        for step in steps {
            match step {
                &Step::Group {
                    lanes,
                    first,
                    count,
                } => {
                    let args = loops_segsort_group::after(policy.clone(), order, first, count);
                    let grid = (count as u64 * lanes as u64).div_ceil(GROUP_BLOCK as u64);
                    self.launch(
                        &format!("loops_segsort_group{lanes}_{name}"),
                        grid,
                        GROUP_BLOCK,
                        args,
                    )?;
                }
                Step::Groups { first_bin, starts } => {
                    let [s0, s1, s2, s3, s4, s5, s6] = *starts;
                    let args = loops_segsort_groups::after(
                        policy.clone(),
                        order,
                        *first_bin,
                        s0,
                        s1,
                        s2,
                        s3,
                        s4,
                        s5,
                        s6,
                    );
                    let grid = group_blocks(*first_bin, starts);
                    self.launch(
                        &format!("loops_segsort_groups_{name}"),
                        grid,
                        GROUP_BLOCK,
                        args,
                    )?;
                }
                &Step::Block {
                    keys,
                    threads,
                    first,
                    count,
                } => {
                    let args = loops_segsort_block::after(policy.clone(), order, first);
                    self.launch(
                        &format!("loops_segsort_block{keys}_{name}"),
                        count as u64,
                        threads,
                        args,
                    )?;
                }
                Step::Long {
                    first,
                    count,
                    pass_firsts,
                } => {
                    let (first, count) = (*first, *count);
                    let (even, odd) = long_keys.ok_or_else(|| LoopsError::InvalidBinning {
                        detail: "long segments but no key buffers".into(),
                    })?;
                    let sms = self.gpu.limits().sm_count;
                    let end = first + count;
                    let longest = 1u64 << (CHUNK_LOG2 + pass_firsts.len());
                    let per = blocks_per_segment(count, longest, CHUNK, sms);
                    let args = loops_segsort_chunks::after(policy.clone(), order, first, per, even);
                    self.launch(
                        &format!("loops_segsort_chunks_{name}"),
                        count as u64 * per as u64,
                        LONG_BLOCK,
                        args,
                    )?;
                    for (p, &pass_first) in pass_firsts.iter().enumerate() {
                        let (from, to) = if p % 2 == 0 { (even, odd) } else { (odd, even) };
                        let pass_count = end - pass_first;
                        let pass_per = blocks_per_segment(pass_count, longest, MERGE_TILE, sms);
                        let args = loops_segsort_merge_pass::args(
                            seg_offsets,
                            &bins.order,
                            pass_first,
                            pass_per,
                            (CHUNK as u64) << p,
                            from,
                            to,
                        );
                        self.launch(
                            "loops_segsort_merge_pass",
                            pass_count as u64 * pass_per as u64,
                            LONG_BLOCK,
                            args,
                        )?;
                    }
                    let args =
                        loops_segsort_finish::after(policy.clone(), order, first, per, even, odd);
                    self.launch(
                        &format!("loops_segsort_finish_{name}"),
                        count as u64 * per as u64,
                        LONG_BLOCK,
                        args,
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// Every entry point a sort of `policy` (`csr_f32`, `csc_f64`, ...) may launch, as [`Step`]s
/// name them: for the NVRTC tests.
pub fn entry_points(policy: &str) -> Vec<String> {
    let mut entries: Vec<String> = (0..=LAST_GROUP_BIN)
        .map(|b| format!("loops_segsort_group{}_{policy}", 1 << b))
        .collect();
    entries.push(format!("loops_segsort_groups_{policy}"));
    entries.extend(
        (LAST_GROUP_BIN + 1..=CHUNK_LOG2)
            .map(|b| format!("loops_segsort_block{}_{policy}", 1 << b)),
    );
    entries.push(format!("loops_segsort_chunks_{policy}"));
    entries.push(format!("loops_segsort_finish_{policy}"));
    entries.push("loops_segsort_merge_pass".to_string());
    entries
}

/// Whether `steps` has long segments.
pub(crate) fn has_long(steps: &[Step]) -> bool {
    steps.iter().any(|s| matches!(s, Step::Long { .. }))
}

/// Sorts each row's column indices ascending, values carried, stable (see the module docs).
pub fn segmented_sort<T: Float>(gpu: &Gpu, a: &mut DeviceCsr<T>) -> Result<()> {
    if a.is_wide() {
        return Err(LoopsError::WideUnsupported {
            kernel: "segmented_sort".into(),
            schedule: "lrb segmented sort".into(),
            param: "a".into(),
            atoms: a.nnz(),
            why: "its keys keep positions in 32 bits".into(),
        });
    }
    if a.nnz() == 0 {
        return Ok(());
    }
    let a = &*a;
    let bins = a.preprocessed().bins(gpu, &a.offsets, a.rows())?;
    let steps = plan(&bins.bin_starts, false);
    if steps.is_empty() {
        return Ok(());
    }
    let long = has_long(&steps);
    let scratch = if long {
        Some((
            gpu.uninit::<u64>(a.nnz())?,
            gpu.uninit::<u64>(a.nnz())?,
            gpu.uninit::<T>(a.nnz())?,
        ))
    } else {
        None
    };
    // Without long rows, no copy of the values is saved (null).
    let saved = match &scratch {
        Some((_, _, saved)) => Ptr::at(saved, 0),
        None => Ptr::null(),
    };
    let policy = csr_policy::args(&a.offsets, &a.indices, &a.values, saved);
    let sort = SegmentedSort {
        gpu,
        kernel: "loops_segmented_sort",
        source: SORT_SOURCE,
        policy: format!("csr_{}", T::RUST_NAME),
    };
    let long_keys = scratch.as_ref().map(|(even, odd, _)| (even, odd));
    sort.run(&steps, &a.offsets, bins, &policy, long_keys)
}

/// Puts the first `nnz` of `indices` and of `values` into `a` in place of its own,
/// keeping its offsets and what is kept with them (the bins of its rows): how a benchmark sorts
/// the same shuffled rows again and again, as a program sorts a matrix whose entries it rewrote.
/// Queued on `gpu`'s stream (a device-to-device copy).
pub fn overwrite_entries<T: Float>(
    gpu: &Gpu,
    a: &mut DeviceCsr<T>,
    indices: &DeviceBuffer<i32>,
    values: &DeviceBuffer<T>,
) -> Result<()> {
    let nnz = a.nnz();
    for (param, len) in [("indices", indices.len()), ("values", values.len())] {
        if len < nnz {
            return Err(LoopsError::BufferTooShort {
                kernel: "overwrite_entries".into(),
                param: param.into(),
                len,
                required: nnz,
                why: "one per entry of the matrix".into(),
            });
        }
    }
    if nnz == 0 {
        return Ok(());
    }
    gpu.copy_device(
        indices.device_ptr(),
        a.indices.device_ptr(),
        nnz * std::mem::size_of::<i32>(),
        "overwrite_entries: indices",
    )?;
    gpu.copy_device(
        values.device_ptr(),
        a.values.device_ptr(),
        nnz * std::mem::size_of::<T>(),
        "overwrite_entries: values",
    )
}

/// The CPU reference of [`segmented_sort`]: each row of a CSR matrix (`offsets`, `indices`,
/// `values`, as in [`Csr32`](crate::host::Csr32)) sorted by column, values carried, equal columns in
/// their order (a stable sort). Panics on offsets that do not fit the arrays.
pub fn sort_rows_reference<T: Copy>(offsets: &[i32], indices: &mut [i32], values: &mut [T]) {
    let mut row: Vec<(i32, T)> = Vec::new();
    for w in offsets.windows(2) {
        let range = w[0] as usize..w[1] as usize;
        row.clear();
        row.extend(
            indices[range.clone()]
                .iter()
                .copied()
                .zip(values[range.clone()].iter().copied()),
        );
        // `sort_by_key` is stable.
        row.sort_by_key(|&(c, _)| c);
        for (k, &(c, v)) in row.iter().enumerate() {
            indices[range.start + k] = c;
            values[range.start + k] = v;
        }
    }
}

/// Shuffles the entries of each row (column index and value together), by a generator seeded with
/// `seed`: unsorted input for [`segmented_sort`]'s tests and benchmark.
pub fn shuffle_rows<T>(offsets: &[i32], indices: &mut [i32], values: &mut [T], seed: u64) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for w in offsets.windows(2) {
        let (start, end) = (w[0] as usize, w[1] as usize);
        // Fisher-Yates on both arrays at once.
        for i in (start + 1..end).rev() {
            let j = rng.random_range(start..=i);
            indices.swap(i, j);
            values.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests;
