//! CSR to CSC on the GPU: the column counts (one atomic per entry), their prefix sum (the column
//! offsets), a scatter of each entry's key to a slot of its column (an atomic cursor per column),
//! then each column sorted by the segmented sort of [`super::sort`], which also writes the row
//! indices and fetches the values (`transpose.cuh`).
//!
//! The scatter's slots are in no particular order; the sort key (row, position in the row) puts
//! each column's entries in CSR order: rows ascending, and a row's repeated column (possible in a
//! matrix built from parts) in its order. So the result is exactly the CPU's CSC, every time.
//!
//! Scratch: the counts and cursors (4 bytes per column each), the keys (8 bytes per nonzero), and
//! with columns of more than 4096 entries a second key buffer. One host round trip, a
//! small one: the columns' bin starts (33 numbers, [`Gpu::bin_tiles`]); the CSC's tile sizes
//! (what an upload counts on the host: the log2 histogram, the longest column, the longest run of
//! empty columns) are counted by a kernel and read back after it (36 numbers, no further wait).

use kernels_gen::schedule::auto::TileStats;
use kernels_gen::schedule::lrb::{bin_upper_edge, BINS};
use kernels_gen::schedule::LaunchDims;

use super::sort::{has_long, plan, SegmentedSort};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Float;
use crate::error::Result;
use crate::formats::{
    check_fits_32, tile_sizes, Csc32, DeviceCsc, DeviceCsr, DeviceOffsets, TileSet, TileSizes,
};
use crate::launch::entry::entries;
use crate::launch::KernelArgs;

/// The transpose's kernels (`loops_transpose_*`) and the segmented sort's for CSC columns
/// (`loops_segsort_*_csc_{f32,f64}`): `sort.cuh`'s templates, then `transpose.cuh`.
pub const TRANSPOSE_SOURCE: &str = concat!(
    "#define LOOPS_SEGSORT_CORE_ONLY\n",
    include_str!("sort.cuh"),
    include_str!("transpose.cuh")
);

/// Threads of the count, scan and scatter blocks (`LOOPS_TRANSPOSE_BLOCK`).
const BLOCK: u32 = 256;
/// Counts per tile of the scan (`LOOPS_TRANSPOSE_TILE`).
const TILE: usize = 256 * 8;
/// Threads of the one block scanning the tile sums (`LOOPS_TRANSPOSE_SUMS_BLOCK`).
const SUMS_BLOCK: u32 = 1024;

const KERNEL: &str = "loops_transpose";

/// Slots of the statistics kernel's state (`LOOPS_TRANSPOSE_STATS_LEN`): the histogram of the
/// [`BINS`] log2 bins, then the empty columns, the columns of one entry, the longest column and the
/// longest run of empty columns.
pub const STATS_LEN: usize = BINS + 4;

/// The tile sizes an upload would count from the column offsets ([`tile_sizes`]), from what
/// `loops_transpose_stats` counted of them (`state`, [`STATS_LEN`] slots).
fn sizes_of_stats(cols: usize, nnz: usize, state: &[u32]) -> TileSizes {
    let mut histogram = [0u64; BINS];
    for (h, &count) in histogram.iter_mut().zip(state) {
        *h = count as u64;
    }
    let (empty, ones, longest, run) = (
        state[BINS] as u64,
        state[BINS + 1] as u64,
        state[BINS + 2] as u64,
        state[BINS + 3] as u64,
    );
    let stats = TileStats {
        tiles: cols as u64,
        atoms: nnz as u64,
        max_tile_atoms: longest,
        longest_empty_run: run,
        empty_tiles: empty,
        histogram,
    };
    // As `choose_mdt_of_sizes`: the tallest bin of the non-empty sizes (bin 0 holds only the
    // columns of one entry then), the larger bin of a tie.
    let mut positive = histogram;
    positive[0] = ones;
    let split_mdt = if longest == 0 {
        1
    } else {
        let tallest = (0..BINS)
            .max_by_key(|&b| (positive[b], b))
            .expect("BINS > 0");
        bin_upper_edge(tallest).min(longest)
    };
    TileSizes { stats, split_mdt }
}

entries! {
    // The transposition's own entry points (its source also holds sort.cuh's, declared there).
    source: include_str!("transpose.cuh"), after crate::ops::sort::SORT_SOURCE;
    undeclared: [];
    /// The columns' policy of the segmented sort (`sort.cuh`'s entry points, `csc_f32`, ...).
    fn csc_policy<T: Float [f32, f64]> = "LOOPS_TRANSPOSE_CSC_PARAMS" (
        col_offsets: *const i32, scattered: *const u64, csr_offsets: *const i32,
        csr_values: *const T, row_indices: *mut i32, values: *mut T,
    );
    /// `counts[col] += 1` for every entry's column.
    fn loops_transpose_count(indices: *const i32, nnz: u32, counts: *mut i32);
    /// Each tile's sum of `counts`.
    fn loops_transpose_tile_sums(counts: *const i32, n: u32, tile_sums: *mut i32);
    /// The exclusive scan of the tile sums, in place (one block).
    fn loops_transpose_scan_sums(tile_sums: *mut i32, tiles: u32);
    /// The column offsets (and the scatter's cursors) from the counts and the scanned tile sums.
    fn loops_transpose_scan_apply(
        counts: *const i32, n: u32, tile_sums: *const i32, col_offsets: *mut i32, cursors: *mut i32,
    );
    /// Each entry's key (row, position) at its column's next cursor.
    fn loops_transpose_scatter(
        offsets: *const i32, rows: u32, indices: *const i32, nnz: u32, cursors: *mut i32,
        keys: *mut u64,
    );
    /// The CSC's tile-size statistics, from its column offsets.
    fn loops_transpose_stats(col_offsets: *const i32, cols: u32, state: *mut u32);
}

fn launch(gpu: &Gpu, entry: &str, grid: usize, block: u32, args: KernelArgs<'_>) -> Result<()> {
    let f = gpu.function(KERNEL, TRANSPOSE_SOURCE, entry)?;
    let dims = LaunchDims {
        grid: grid.max(1) as u32,
        block,
        shared_bytes: 0,
    };
    gpu.launch_function(entry, &f, dims, args)
}

/// The three passes of the transpose that read or write per entry or per column: the rest (the
/// scan of the counts, the bins, the sort of each column) is [`transpose_with`]'s own.
/// [`HandWritten`] is `transpose.cuh`'s; `loops::ops::transpose_lang` has them in the loops
/// language.
pub trait TransposePasses<T: Float> {
    /// `counts[c] += 1` for every entry's column `c` (`counts`: `cols` zeros).
    fn count(&self, gpu: &Gpu, a: &DeviceCsr<T>, counts: &mut DeviceBuffer<i32>) -> Result<()>;
    /// Every entry `e` of row `r` takes a slot of its column `c`, `slot = cursors[c]++` (an
    /// atomic: which slot is arbitrary), and writes there its key `(r << 32) | (e - offsets[r])`.
    fn scatter(
        &self,
        gpu: &Gpu,
        a: &DeviceCsr<T>,
        cursors: &mut DeviceBuffer<i32>,
        keys: &mut DeviceBuffer<u64>,
    ) -> Result<()>;
    /// The columns' tile-size statistics into `state` ([`STATS_LEN`] zeros): the log2 histogram
    /// (LRB bins), the empty columns, the columns of one entry, the longest column, the longest
    /// run of empty columns. `columns` is the CSC's column layout, whose own sizes are not known
    /// yet: a placeholder, fit only for a tile-only launch (one thread per column).
    fn stats(
        &self,
        gpu: &Gpu,
        columns: &DeviceOffsets,
        state: &mut DeviceBuffer<u32>,
    ) -> Result<()>;
}

/// `transpose.cuh`'s count, scatter and statistics kernels.
pub struct HandWritten;

impl<T: Float> TransposePasses<T> for HandWritten {
    fn count(&self, gpu: &Gpu, a: &DeviceCsr<T>, counts: &mut DeviceBuffer<i32>) -> Result<()> {
        let nnz = a.nnz();
        let args = loops_transpose_count::args(&a.indices, nnz as u32, counts);
        launch(
            gpu,
            "loops_transpose_count",
            stride_grid(gpu, nnz),
            BLOCK,
            args,
        )
    }

    fn scatter(
        &self,
        gpu: &Gpu,
        a: &DeviceCsr<T>,
        cursors: &mut DeviceBuffer<i32>,
        keys: &mut DeviceBuffer<u64>,
    ) -> Result<()> {
        let (rows, nnz) = (a.rows(), a.nnz());
        let args = loops_transpose_scatter::args(
            &a.offsets,
            rows as u32,
            &a.indices,
            nnz as u32,
            cursors,
            keys,
        );
        // Each thread of the scatter takes a run of consecutive entries (ITEMS of them).
        let scatter_grid = nnz
            .div_ceil(TILE)
            .min(gpu.limits().sm_count.max(1) as usize * 8);
        launch(gpu, "loops_transpose_scatter", scatter_grid, BLOCK, args)
    }

    fn stats(
        &self,
        gpu: &Gpu,
        columns: &DeviceOffsets,
        state: &mut DeviceBuffer<u32>,
    ) -> Result<()> {
        let cols = columns.num_tiles();
        let args = loops_transpose_stats::args(columns.offsets(), cols as u32, state);
        launch(
            gpu,
            "loops_transpose_stats",
            stride_grid(gpu, cols),
            BLOCK,
            args,
        )
    }
}

/// Grid-stride kernels over `n` items: enough blocks to fill the device.
fn stride_grid(gpu: &Gpu, n: usize) -> usize {
    n.div_ceil(BLOCK as usize)
        .min(gpu.limits().sm_count.max(1) as usize * 8)
}

/// The CSC of `a` (see the module docs). A matrix of more than `i32::MAX` nonzeros (64-bit
/// offsets) is [`LoopsError::TooLarge`](crate::LoopsError::TooLarge): CSC indices are 32-bit.
pub fn transpose<T: Float>(gpu: &Gpu, a: &DeviceCsr<T>) -> Result<DeviceCsc<T>> {
    transpose_with(gpu, a, &HandWritten)
}

/// [`transpose`] with the given count, scatter and statistics passes; the scan of the counts (a
/// grid-wide prefix sum, which the loops language cannot say: its kernels have no grid-wide
/// step) and the columns' sort (`sort.cuh`'s shared-memory sorts) are `transpose.cuh`'s.
pub fn transpose_with<T: Float, P: TransposePasses<T> + ?Sized>(
    gpu: &Gpu,
    a: &DeviceCsr<T>,
    passes: &P,
) -> Result<DeviceCsc<T>> {
    let (rows, cols, nnz) = (a.rows(), a.cols(), a.nnz());
    check_fits_32("Csc", rows, cols, nnz)?;
    // A wide matrix has more nonzeros than i32::MAX: refused by the check above.
    if nnz == 0 {
        let col_offsets = gpu.zeros::<i32>(cols + 1)?;
        return Ok(DeviceCsc::from_device_parts(
            rows,
            col_offsets,
            tile_sizes(&vec![0; cols + 1]),
            DeviceBuffer::empty(),
            DeviceBuffer::empty(),
        ));
    }
    let mut counts = gpu.zeros::<i32>(cols)?;
    passes.count(gpu, a, &mut counts)?;

    let tiles = cols.div_ceil(TILE);
    let tile_sums = gpu.uninit::<i32>(tiles)?;
    let args = loops_transpose_tile_sums::args(&counts, cols as u32, &tile_sums);
    launch(gpu, "loops_transpose_tile_sums", tiles, BLOCK, args)?;
    let args = loops_transpose_scan_sums::args(&tile_sums, tiles as u32);
    launch(gpu, "loops_transpose_scan_sums", 1, SUMS_BLOCK, args)?;
    let col_offsets = gpu.uninit::<i32>(cols + 1)?;
    let mut cursors = gpu.uninit::<i32>(cols)?;
    let args =
        loops_transpose_scan_apply::args(&counts, cols as u32, &tile_sums, &col_offsets, &cursors);
    launch(gpu, "loops_transpose_scan_apply", tiles, BLOCK, args)?;

    let mut keys = gpu.uninit::<u64>(nnz)?;
    passes.scatter(gpu, a, &mut cursors, &mut keys)?;

    // The CSC's tile sizes, counted on the GPU: reading the column offsets back and counting them
    // on the host took longer than all the kernels (about 15 ms for a million columns).
    let mut state = gpu.zeros::<u32>(STATS_LEN)?;
    let placeholder = TileSizes {
        stats: TileStats {
            tiles: cols as u64,
            atoms: nnz as u64,
            max_tile_atoms: nnz as u64,
            longest_empty_run: 0,
            empty_tiles: 0,
            histogram: [0; BINS],
        },
        split_mdt: 1,
    };
    let columns = DeviceOffsets::from_device_parts(col_offsets, cols, nnz, placeholder);
    passes.stats(gpu, &columns, &mut state)?;
    let col_offsets = columns.into_offsets();
    // Binning the columns reads their bin starts back, which waits for every kernel so far: the
    // statistics are then read without a second wait. (The bins are not kept with the CSC: its
    // cache is made with it, after the sizes; an `lrb` launch on it bins it again.)
    let bins = gpu.bin_tiles(&col_offsets, cols, None)?;
    let sizes = sizes_of_stats(cols, nnz, &gpu.download(&state)?);
    let csc = DeviceCsc::from_device_parts(
        rows,
        col_offsets,
        sizes,
        gpu.uninit::<i32>(nnz)?,
        gpu.uninit::<T>(nnz)?,
    );
    let steps = plan(&bins.bin_starts, true);
    let odd = if has_long(&steps) {
        Some(gpu.uninit::<u64>(nnz)?)
    } else {
        None
    };
    let policy = csc_policy::args(
        csc.col_offsets(),
        &keys,
        &a.offsets,
        &a.values,
        csc.row_indices(),
        csc.values(),
    );
    let sort = SegmentedSort {
        gpu,
        kernel: KERNEL,
        source: TRANSPOSE_SOURCE,
        policy: format!("csc_{}", T::RUST_NAME),
    };
    // Long columns sort their chunks back into the scattered keys (each block reads its chunk
    // before it writes it), then merge between them and `odd`.
    let long_keys = odd.as_ref().map(|odd| (&keys, odd));
    sort.run(&steps, csc.col_offsets(), &bins, &policy, long_keys)?;
    drop(policy);
    Ok(csc)
}

/// The CPU reference of [`transpose`]: the CSC of the CSR matrix (`rows`, `cols`, `offsets`,
/// `indices`, `values`, as in [`Csr32`](crate::host::Csr32)) by a counting sort on the
/// column, which keeps CSR order within each column (rows ascending; a row's repeated column in
/// its order). For a matrix without repeated entries, the same arrays as [`Csc32::from_sprs`].
/// Panics on offsets or indices that do not fit.
pub fn transpose_reference<T: Copy>(
    rows: usize,
    cols: usize,
    offsets: &[i32],
    indices: &[i32],
    values: &[T],
) -> Csc32<T> {
    let mut col_offsets = vec![0i32; cols + 1];
    for &c in indices {
        col_offsets[c as usize + 1] += 1;
    }
    for c in 0..cols {
        col_offsets[c + 1] += col_offsets[c];
    }
    let mut next: Vec<usize> = col_offsets[..cols].iter().map(|&o| o as usize).collect();
    let mut row_indices = vec![0i32; indices.len()];
    let mut out = Vec::with_capacity(values.len());
    let mut source = vec![0usize; indices.len()];
    for r in 0..rows {
        for e in offsets[r] as usize..offsets[r + 1] as usize {
            let slot = &mut next[indices[e] as usize];
            row_indices[*slot] = r as i32;
            source[*slot] = e;
            *slot += 1;
        }
    }
    out.extend(source.iter().map(|&e| values[e]));
    Csc32 {
        rows,
        cols,
        col_offsets,
        row_indices,
        values: out,
    }
}

#[cfg(test)]
mod tests {
    use super::super::sort::SORT_SOURCE;
    use super::*;

    #[test]
    fn the_source_agrees_with_the_rust_constants() {
        for (name, value) in [
            ("LOOPS_TRANSPOSE_BLOCK", BLOCK as usize),
            ("LOOPS_TRANSPOSE_ITEMS", TILE / BLOCK as usize),
            ("LOOPS_TRANSPOSE_SUMS_BLOCK", SUMS_BLOCK as usize),
            ("LOOPS_TRANSPOSE_STATS_BINS", BINS),
        ] {
            assert!(
                TRANSPOSE_SOURCE.contains(&format!("#define {name} {value}\n")),
                "#define {name} {value}"
            );
        }
        assert!(TRANSPOSE_SOURCE.starts_with("#define LOOPS_SEGSORT_CORE_ONLY\n"));
        assert!(TRANSPOSE_SOURCE.contains(SORT_SOURCE));
    }

    /// `loops_transpose_stats`, its threads one after another.
    fn model_stats(offsets: &[i32]) -> Vec<u32> {
        let cols = offsets.len() - 1;
        let mut state = vec![0u32; STATS_LEN];
        for c in 0..cols {
            let at = offsets[c];
            let size = (offsets[c + 1] - at) as u32;
            let bin = if size <= 1 {
                0
            } else {
                32 - (size - 1).leading_zeros() as usize
            };
            state[bin] += 1;
            state[BINS + 2] = state[BINS + 2].max(size);
            if size == 1 {
                state[BINS + 1] += 1;
            }
            if size == 0 {
                state[BINS] += 1;
                if c == 0 || offsets[c - 1] != at {
                    let (mut lo, mut hi) = (c + 1, cols + 1);
                    while lo < hi {
                        let mid = lo + (hi - lo) / 2;
                        if offsets[mid] > at {
                            hi = mid;
                        } else {
                            lo = mid + 1;
                        }
                    }
                    state[BINS + 3] = state[BINS + 3].max((lo - 1 - c) as u32);
                }
            }
        }
        state
    }

    #[test]
    fn the_stats_kernel_counts_what_an_upload_counts() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut cases: Vec<Vec<i32>> = vec![
            vec![],
            vec![0],
            vec![1],
            vec![0, 0, 0],
            vec![1, 1, 1, 1],
            vec![0, 0, 3, 0, 0, 0, 1, 1, 0, 20, 0, 2, 9, 0, 0],
            vec![5000, 0, 70_000, 1, 0, 0],
        ];
        for _ in 0..50 {
            let n = rng.random_range(1..400);
            let zeros = rng.random_range(0.0..1.0);
            cases.push(
                (0..n)
                    .map(|_| {
                        if rng.random_bool(zeros) {
                            0
                        } else {
                            rng.random_range(1..300)
                        }
                    })
                    .collect(),
            );
        }
        for lengths in cases {
            let mut offsets = vec![0i32];
            for len in &lengths {
                offsets.push(offsets.last().unwrap() + len);
            }
            let (cols, nnz) = (lengths.len(), *offsets.last().unwrap() as usize);
            assert_eq!(
                sizes_of_stats(cols, nnz, &model_stats(&offsets)),
                tile_sizes(&offsets),
                "{lengths:?}"
            );
        }
    }

    /// `loops_transpose_row_of`.
    fn row_of(offsets: &[i32], mut lo: usize, mut hi: usize, e: usize) -> usize {
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if offsets[mid] as usize <= e {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    #[test]
    fn the_scatter_finds_each_entrys_row() {
        // Runs of empty rows (at the start, inside, at the end), rows of one entry, long rows.
        let lengths = [0, 0, 3, 0, 0, 0, 1, 1, 0, 20, 0, 2, 9, 0, 0];
        let mut offsets = vec![0i32];
        for len in lengths {
            offsets.push(offsets.last().unwrap() + len);
        }
        let (rows, nnz) = (lengths.len(), *offsets.last().unwrap() as usize);
        let truth: Vec<usize> = (0..rows)
            .flat_map(|r| std::iter::repeat_n(r, lengths[r] as usize))
            .collect();
        let items = TILE / BLOCK as usize;
        for first in (0..nnz).step_by(items) {
            let mut row = row_of(&offsets, 0, rows, first);
            for (e, &want) in truth
                .iter()
                .enumerate()
                .take((first + items).min(nnz))
                .skip(first)
            {
                if offsets[row + 1] as usize <= e {
                    row = row_of(&offsets, row + 1, rows, e);
                }
                assert_eq!(row, want, "entry {e}");
            }
        }
    }

    #[test]
    fn the_reference_is_sprs_csc_and_keeps_csr_order() {
        let m = crate::generate::power_law::<f64>(300, 200, 6.0, 2.0, false, 3);
        let csr = crate::host::Csr32::from_sprs(&m).unwrap();
        let t = transpose_reference(csr.rows, csr.cols, &csr.offsets, &csr.indices, &csr.values);
        assert_eq!(t, Csc32::from_sprs(&m).unwrap());
        // Repeated entries of a row, and rows out of column order: CSR order within a column.
        let t = transpose_reference(3, 3, &[0, 3, 3, 5], &[2, 0, 2, 2, 1], &[10, 11, 12, 13, 14]);
        assert_eq!(t.col_offsets, [0, 1, 2, 5]);
        assert_eq!(t.row_indices, [0, 2, 0, 0, 2]);
        assert_eq!(t.values, [11, 14, 10, 12, 13]);
    }
}
