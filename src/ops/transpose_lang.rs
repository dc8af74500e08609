//! The transpose's passes over the entries and the columns in the loops language (issue 39): the
//! column counts (an atom loop, one atomic add per entry), the scatter (an atom loop: each entry
//! takes its column's next slot with an atomic add and writes its sort key there) and the columns'
//! tile-size statistics (a tile-only body over the columns). Each is stamped under every named
//! schedule (`#[for_schedules(all)]`, checked on the GPU under each one in
//! `tests/gpu_transpose_lang.rs`); [`transpose`] runs [`COUNT_SCHEDULE`], [`SCATTER_SCHEDULE`]
//! and `thread` (a tile-only body runs one thread per tile under every schedule).
//!
//! The rest stays in the runtime ([`loops_runtime::ops::transpose::transpose_with`]), one line
//! each why: the scan of the counts is a grid-wide prefix sum, and a kernel of the language has no
//! step across its whole grid; the columns' sort is the segmented sort's shared-memory sorts.
//! The scatter's slots are arbitrary; the sort by key (row, position in the row) makes the result
//! exactly the CPU's CSC, as the hand-written passes do.
//!
//! Not yet the op: `CsrOps::transpose` runs the hand-written passes. Measured on an H200 in one run
//! (`examples/bench/results/h200/transpose_lang/`): count and scatter as fast as the hand-written
//! kernels on large matrices (3 to 5 µs slower on small ones), the statistics slower (the
//! hand-written kernel keeps a histogram per block in shared memory, which the language cannot
//! say; this one adds to global counters): the whole transpose 0.93x of the hand-written one on
//! the full generated set, 0.92x on the real matrices in f32 (0.89x in f64), below issue 39's
//! bar (0.97x, no matrix below 0.9x).

use crate::{DeviceBuffer, DeviceCsc, DeviceCsr, DeviceOffsets, Float, Gpu, Result};
use loops_runtime::ops::transpose::{transpose_with, TransposePasses};

/// The column counts, stamped under every schedule.
pub mod count {
    use crate::prelude::*;

    /// `counts[c] += 1` for every stored entry's column `c`.
    #[for_schedules(all)]
    pub fn column_counts<T: Float>(a: Csr<T>, counts: &mut [i32]) {
        for row in a.tiles() {
            for nz in a.atoms(row) {
                atomic_add(&mut counts[a.col_indices[nz] as usize], 1);
            }
        }
    }
}

/// The scatter, stamped under every schedule.
pub mod scatter {
    use crate::prelude::*;

    /// Every entry `nz` of row `row` takes the next slot of its column (`cursors[c]`, advanced
    /// with an atomic add) and writes there its key: the row in the high 32 bits, its position
    /// in the row in the low ones.
    #[for_schedules(all)]
    pub fn scatter_keys<T: Float>(a: Csr<T>, cursors: &mut [i32], keys: &mut [u64]) {
        for row in a.tiles() {
            for nz in a.atoms(row) {
                let slot = atomic_add(&mut cursors[a.col_indices[nz] as usize], 1);
                let at = nz - a.row_offsets[row] as usize;
                keys[slot as usize] = ((row as u64) << 32) | (at as u64);
            }
        }
    }
}

/// The columns' statistics, stamped under every schedule.
pub mod stats {
    use crate::prelude::*;

    /// What an upload counts of a tile set's sizes, from its offsets: `state` (36 zeros) gets
    /// the log2 size histogram (slots 0..32, the LRB bins: sizes 0 and 1 in bin 0, else
    /// `32 - (size - 1).leading_zeros()`), then the empty tiles, the tiles of one atom, the
    /// longest tile and the longest run of empty tiles (measured from the run's first tile by a
    /// search for the first offset past its own).
    ///
    /// The first `q = ⌈tiles / 64⌉` threads count 64 tiles each (`t`, `t + q`, `t + 2q`, ...: a
    /// warp reads 32 neighbouring offsets at a time) in registers, and add their counts with an
    /// atomic per run of tiles of one bin (neighbouring tiles mostly share a bin) and four at
    /// the end; the other threads have nothing to do. An atomic per tile on the same few
    /// counters took longer than the rest of the transpose (0.8 ms for 2 million columns on an
    /// H200), and so did one thread in 32 counting 32 neighbouring tiles (a warp's lanes idle).
    /// Still slower than a block's histogram in shared memory: tiles `q` apart rarely share a
    /// bin (see `examples/bench/results/h200/transpose_lang/`).
    #[for_schedules(all)]
    pub fn tile_stats(cols: Offsets, state: &mut [u32]) {
        for t in cols.tiles() {
            let n = cols.num_tiles();
            let q = (n + 63) / 64;
            if t < q {
                let mut bin_now = 0;
                let mut run = 0;
                let mut ones = 0;
                let mut empty = 0;
                let mut longest = 0;
                let mut empty_run = 0;
                for k in 0..64 {
                    let c = t + k * q;
                    if c >= n {
                        break;
                    }
                    let at = cols.offsets[c];
                    let size = (cols.offsets[c + 1] - at) as u32;
                    let mut bin = 0;
                    if size > 1 {
                        bin = 32 - (size - 1).leading_zeros();
                    }
                    if bin != bin_now && run > 0 {
                        atomic_add(&mut state[bin_now as usize], run);
                        run = 0;
                    }
                    bin_now = bin;
                    run += 1;
                    longest = max(longest, size);
                    if size == 1 {
                        ones += 1;
                    }
                    if size == 0 {
                        empty += 1;
                        if c == 0 || cols.offsets[c - 1] != at {
                            let mut lo = c + 1;
                            let mut hi = cols.num_tiles() + 1;
                            for _step in 0..40 {
                                if lo >= hi {
                                    break;
                                }
                                let mid = lo + (hi - lo) / 2;
                                if cols.offsets[mid] > at {
                                    hi = mid;
                                } else {
                                    lo = mid + 1;
                                }
                            }
                            empty_run = max(empty_run, (lo - 1 - c) as u32);
                        }
                    }
                }
                if run > 0 {
                    atomic_add(&mut state[bin_now as usize], run);
                }
                if empty > 0 {
                    atomic_add(&mut state[32], empty);
                }
                if ones > 0 {
                    atomic_add(&mut state[33], ones);
                }
                if longest > state[34] {
                    atomic_max(&mut state[34], longest);
                }
                if empty_run > state[35] {
                    atomic_max(&mut state[35], empty_run);
                }
            }
        }
    }
}

/// The schedule of the op's count.
pub const COUNT_SCHEDULE: &str = "work_oriented";
/// The schedule of the op's scatter.
pub const SCATTER_SCHEDULE: &str = "work_oriented";

/// The CUDA of the kernels above under the schedules [`transpose`] runs, for the NVRTC compile
/// test: (name, plain, bounds-checked).
pub(super) const SOURCES: &[(&str, &str, &str)] = &[
    (
        "column_counts",
        count::work_oriented::column_counts::CUDA_SOURCE,
        count::work_oriented::column_counts::CUDA_SOURCE_CHECKED,
    ),
    (
        "scatter_keys",
        scatter::work_oriented::scatter_keys::CUDA_SOURCE,
        scatter::work_oriented::scatter_keys::CUDA_SOURCE_CHECKED,
    ),
    (
        "tile_stats",
        stats::thread::tile_stats::CUDA_SOURCE,
        stats::thread::tile_stats::CUDA_SOURCE_CHECKED,
    ),
];

/// The language's passes under the given schedules (the count's, the scatter's, the
/// statistics'), for [`transpose_with`].
#[derive(Clone, Copy, Debug)]
pub struct LanguagePasses {
    pub count: &'static str,
    pub scatter: &'static str,
    pub stats: &'static str,
}

impl Default for LanguagePasses {
    fn default() -> Self {
        LanguagePasses {
            count: COUNT_SCHEDULE,
            scatter: SCATTER_SCHEDULE,
            stats: "thread",
        }
    }
}

impl<T: Float> TransposePasses<T> for LanguagePasses {
    fn count(&self, gpu: &Gpu, a: &DeviceCsr<T>, counts: &mut DeviceBuffer<i32>) -> Result<()> {
        count::launch(self.count, gpu, a, counts)
    }

    fn scatter(
        &self,
        gpu: &Gpu,
        a: &DeviceCsr<T>,
        cursors: &mut DeviceBuffer<i32>,
        keys: &mut DeviceBuffer<u64>,
    ) -> Result<()> {
        scatter::launch(self.scatter, gpu, a, cursors, keys)
    }

    fn stats(
        &self,
        gpu: &Gpu,
        columns: &DeviceOffsets,
        state: &mut DeviceBuffer<u32>,
    ) -> Result<()> {
        stats::launch(self.stats, gpu, columns, state)
    }
}

/// The CSC of `a`, as `CsrOps::transpose` builds it (the same checks and result), with the
/// count, scatter and statistics of this module under their default schedules.
pub fn transpose<T: Float>(gpu: &Gpu, a: &DeviceCsr<T>) -> Result<DeviceCsc<T>> {
    transpose_with(gpu, a, &LanguagePasses::default())
}

/// [`transpose`] with the passes under the given schedules.
pub fn transpose_under<T: Float>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    passes: LanguagePasses,
) -> Result<DeviceCsc<T>> {
    transpose_with(gpu, a, &passes)
}
