//! What an SpMV moves through the memory system, counted at the hardware's granularity: the
//! matrix and `y` stream once, and each row's gathers of `x` cost whole 32-byte sectors. The
//! benchmarks divide these counts by a kernel's time and by the device copy's bandwidth, so "how
//! close to the limit" is a number for every matrix (`examples/bench/README.md`, "Traffic model").
//!
//! Three counts of `x`'s gathers bound what the hardware moves:
//! - [`SpmvTraffic::gathered_bytes`]: the sectors each row touches, counted once per row: the
//!   requests that reach L2 when a row's gathers share L1 lines but rows do not (a row on one
//!   thread, warp or block);
//! - [`SpmvTraffic::x_touched_bytes`]: `x`'s distinct sectors: what DRAM serves if L2 keeps all
//!   of `x` (the floor);
//! - [`SpmvTraffic::x_dram_bytes`]: what DRAM serves through an L2 of the device's size, by a
//!   set-associative LRU model fed the rows' sector requests in row order (GPUs run rows roughly
//!   in that order). Equal to the floor when `x` fits in L2 with room to spare; between the floor
//!   and `gathered_bytes` when it does not.

use crate::Float;

/// A 32-byte sector: the unit L2 and DRAM move.
pub const SECTOR_BYTES: u64 = 32;

/// Ways of the modelled L2's sets (the model's assumption; NVIDIA does not document the L2's
/// associativity, and 16 keeps the model within a few percent of a fully associative LRU on
/// streams that fit).
const WAYS: usize = 16;

/// The byte counts of one SpMV on one matrix (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpmvTraffic {
    /// Row offsets, column indices and values read once, `y` written once.
    pub stream_bytes: u64,
    /// `x`'s sectors counted once per row that touches them.
    pub gathered_bytes: u64,
    /// `x`'s distinct sectors.
    pub x_touched_bytes: u64,
    /// `x`'s sectors DRAM serves through the modelled L2.
    pub x_dram_bytes: u64,
    /// The L2 size the model used.
    pub l2_bytes: u64,
}

impl SpmvTraffic {
    /// What DRAM moves by the model: the stream plus `x` through L2.
    pub fn dram_bytes(&self) -> u64 {
        self.stream_bytes + self.x_dram_bytes
    }

    /// What L2 serves to the SMs: the stream plus every row's sectors of `x`.
    pub fn l2_bytes_served(&self) -> u64 {
        self.stream_bytes + self.gathered_bytes
    }

    /// Sectors of `x` gathered per nonzero (1.0: every nonzero pays a sector of its own;
    /// `size_of::<T>() / 32`: rows read `x` densely).
    pub fn sectors_per_nonzero(&self, nnz: usize) -> f64 {
        if nnz == 0 {
            0.0
        } else {
            self.gathered_bytes as f64 / SECTOR_BYTES as f64 / nnz as f64
        }
    }
}

/// Counts an SpMV's traffic on the CSR `(row_offsets, col_indices)` with `cols` columns and
/// elements of `T`, through an L2 of `l2_bytes` (the device's `limits().l2_bytes`; 0 models no
/// L2, so DRAM serves every gathered sector). Column indices past `cols` are counted in the
/// last sector (a checked matrix has none). Linear in the nonzeros, plus 16 probes per request.
pub fn spmv_traffic<T: Float>(
    row_offsets: &[usize],
    col_indices: &[usize],
    cols: usize,
    l2_bytes: u64,
) -> SpmvTraffic {
    let t = std::mem::size_of::<T>() as u64;
    gather_traffic(row_offsets, col_indices, cols, t, t, l2_bytes)
}

/// [`spmv_traffic`] for an SpMM `C = A B` with `B` and `C` row-major of `k` columns: each nonzero
/// gathers a row of `B` (`k` elements) instead of one entry of `x`, and the stream writes `C`'s
/// rows. The counts keep [`SpmvTraffic`]'s names (`x` is `B`). A row of `B` of 32 bytes or more
/// is modelled as whole sectors (the row's, `ceil(k · size / 32)`, rows aligned to them, as the op
/// reads them) cached in L2 as one unit; narrower rows share sectors as `x`'s entries do.
pub fn spmm_traffic<T: Float>(
    row_offsets: &[usize],
    col_indices: &[usize],
    cols: usize,
    k: usize,
    l2_bytes: u64,
) -> SpmvTraffic {
    let t = std::mem::size_of::<T>() as u64;
    gather_traffic(row_offsets, col_indices, cols, k as u64 * t, t, l2_bytes)
}

/// The counts of [`spmv_traffic`] for entries of `x` (or rows of `B`) of `entry` bytes and
/// matrix values of `value` bytes; the output's rows are `entry` bytes too.
fn gather_traffic(
    row_offsets: &[usize],
    col_indices: &[usize],
    cols: usize,
    entry: u64,
    value: u64,
    l2_bytes: u64,
) -> SpmvTraffic {
    let entry = entry.max(1);
    let rows = row_offsets.len().saturating_sub(1);
    let nnz = col_indices.len() as u64;
    let index = std::mem::size_of::<u32>() as u64;
    let stream_bytes = (rows as u64 + 1) * index + nnz * (index + value) + rows as u64 * entry;

    // The unit the model tracks: a sector, or a whole row of B when one spans sectors.
    let unit_sectors = if entry > SECTOR_BYTES {
        entry.div_ceil(SECTOR_BYTES)
    } else {
        1
    };
    let unit_bytes = unit_sectors * SECTOR_BYTES;
    let unit_of = |c: u64| {
        if unit_sectors > 1 {
            c
        } else {
            (c * entry) / SECTOR_BYTES
        }
    };
    let units = if unit_sectors > 1 {
        (cols as u64).max(1)
    } else {
        ((cols as u64 * entry).div_ceil(SECTOR_BYTES)).max(1)
    } as usize;
    // The row that last requested each unit (u32::MAX: none yet), so a unit counts once a row.
    let mut last_row = vec![u32::MAX; units];
    let mut touched = 0u64;
    let mut requests = 0u64;
    let mut l2 = Lru::new(l2_bytes / unit_sectors);
    let mut misses = 0u64;
    for row in 0..rows {
        let (begin, end) = (row_offsets[row], row_offsets[row + 1]);
        let begin = begin.min(col_indices.len());
        for &c in &col_indices[begin..end.clamp(begin, col_indices.len())] {
            let s = unit_of(c as u64).min(units as u64 - 1) as usize;
            if last_row[s] == row as u32 {
                continue;
            }
            if last_row[s] == u32::MAX {
                touched += 1;
            }
            last_row[s] = row as u32;
            requests += 1;
            if !l2.access(s as u64) {
                misses += 1;
            }
        }
    }
    SpmvTraffic {
        stream_bytes,
        gathered_bytes: requests * unit_bytes,
        x_touched_bytes: touched * unit_bytes,
        x_dram_bytes: misses * unit_bytes,
        l2_bytes,
    }
}

/// A set-associative LRU cache of sectors: `WAYS` ways per set, the sets filling `bytes`.
struct Lru {
    sets: usize,
    /// Per way: the sector held (u64::MAX: empty) and when it was last used.
    tags: Vec<u64>,
    used: Vec<u64>,
    clock: u64,
}

impl Lru {
    fn new(bytes: u64) -> Lru {
        let sets = (bytes / SECTOR_BYTES) as usize / WAYS;
        Lru {
            sets,
            tags: vec![u64::MAX; sets * WAYS],
            used: vec![0; sets * WAYS],
            clock: 0,
        }
    }

    /// Whether `sector` was held; it is held (most recently used) afterwards.
    fn access(&mut self, sector: u64) -> bool {
        if self.sets == 0 {
            return false;
        }
        self.clock += 1;
        // Spread neighbouring sectors over sets, as the hardware's hashed set index does.
        let set = (sector.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) as usize % self.sets;
        let ways = set * WAYS..(set + 1) * WAYS;
        let mut oldest = ways.start;
        for w in ways {
            if self.tags[w] == sector {
                self.used[w] = self.clock;
                return true;
            }
            if self.used[w] < self.used[oldest] {
                oldest = w;
            }
        }
        self.tags[oldest] = sector;
        self.used[oldest] = self.clock;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;

    /// Rows of `per_row` nonzeros at the columns `f(row, j)`.
    fn csr(
        rows: usize,
        per_row: usize,
        f: impl Fn(usize, usize) -> usize,
    ) -> (Vec<usize>, Vec<usize>) {
        let offsets = (0..=rows).map(|r| r * per_row).collect();
        let cols = (0..rows)
            .flat_map(|r| (0..per_row).map(move |j| (r, j)))
            .map(|(r, j)| f(r, j))
            .collect();
        (offsets, cols)
    }

    #[test]
    fn a_dense_row_band_gathers_one_sector_per_eight_f32() {
        // Every row reads the same 64 consecutive columns: 8 sectors per row, 8 distinct.
        let (o, c) = csr(1000, 64, |_, j| j);
        let t = spmv_traffic::<f32>(&o, &c, 64, 4 * MB);
        assert_eq!(t.gathered_bytes, 1000 * 8 * 32);
        assert_eq!(t.x_touched_bytes, 8 * 32);
        assert_eq!(
            t.x_dram_bytes,
            8 * 32,
            "x fits in L2: each sector misses once"
        );
        assert_eq!(t.stream_bytes, 1001 * 4 + 64_000 * 8 + 1000 * 4);
        assert!((t.sectors_per_nonzero(64_000) - 0.125).abs() < 1e-12);
    }

    #[test]
    fn scattered_gathers_pay_a_sector_each() {
        // Columns 1 KiB apart: no two nonzeros share a sector.
        let (o, c) = csr(100, 10, |r, j| (r * 10 + j) * 256);
        let t = spmv_traffic::<f32>(&o, &c, 1000 * 256, 4 * MB);
        assert_eq!(t.gathered_bytes, 1000 * 32);
        assert_eq!(t.x_touched_bytes, 1000 * 32);
        assert!((t.sectors_per_nonzero(1000) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn an_x_larger_than_l2_misses_on_every_pass() {
        // Every row sweeps the same 2 MB of x (f64) with a 1 MB L2: LRU keeps nothing useful.
        let cols = (2 * MB / 8) as usize;
        let (o, c) = csr(3, cols / 4, |_, j| j * 4);
        let small = spmv_traffic::<f64>(&o, &c, cols, MB);
        assert_eq!(small.x_touched_bytes, 2 * MB);
        assert_eq!(small.gathered_bytes, 3 * 2 * MB);
        assert!(
            small.x_dram_bytes > 5 * MB,
            "{} of {} re-read",
            small.x_dram_bytes,
            small.gathered_bytes
        );
        // With a 16 MB L2 only the first pass misses.
        let big = spmv_traffic::<f64>(&o, &c, cols, 16 * MB);
        assert!(
            big.x_dram_bytes <= 2 * MB + 2 * MB / 10,
            "{}",
            big.x_dram_bytes
        );
        // No L2: DRAM serves every request.
        let none = spmv_traffic::<f64>(&o, &c, cols, 0);
        assert_eq!(none.x_dram_bytes, none.gathered_bytes);
        assert_eq!(none.dram_bytes(), none.stream_bytes + none.gathered_bytes);
    }

    #[test]
    fn empty_and_out_of_range_inputs_do_not_panic() {
        let t = spmv_traffic::<f32>(&[0], &[], 0, MB);
        assert_eq!(t.gathered_bytes, 0);
        assert_eq!(t.stream_bytes, 4);
        let t = spmv_traffic::<f32>(&[0, 2], &[0, 99], 8, MB);
        assert_eq!(t.gathered_bytes, 32, "both land in the one sector of 8 f32");
        let t = spmv_traffic::<f32>(&[0, 5], &[0, 1], 8, MB);
        assert_eq!(t.gathered_bytes, 32, "offsets past the indices are clipped");
        let t = spmv_traffic::<f32>(&[2, 1], &[0, 1], 8, MB);
        assert_eq!(t.gathered_bytes, 0, "decreasing offsets are an empty row");
    }
    #[test]
    fn spmm_rows_of_b_are_whole_sectors() {
        // k = 32 in f32: each nonzero gathers a 128-byte row of B (4 sectors).
        let (o, c) = csr(100, 10, |r, j| (r * 10 + j) % 50);
        let t = spmm_traffic::<f32>(&o, &c, 50, 32, 4 * MB);
        assert_eq!(t.gathered_bytes, 1000 * 128);
        assert_eq!(t.x_touched_bytes, 50 * 128, "B's 50 rows");
        assert_eq!(t.x_dram_bytes, 50 * 128, "B fits in L2");
        assert_eq!(t.stream_bytes, 101 * 4 + 1000 * 8 + 100 * 128);
        // k = 1 is the SpMV model.
        assert_eq!(
            spmm_traffic::<f64>(&o, &c, 50, 1, MB),
            spmv_traffic::<f64>(&o, &c, 50, MB)
        );
        // B larger than L2 (no L2 at all): every request from DRAM.
        let t = spmm_traffic::<f32>(&o, &c, 50, 32, 0);
        assert_eq!(t.x_dram_bytes, t.gathered_bytes);
    }
}
