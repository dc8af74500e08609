//! Kernels with `#[block_shared]` arrays (`kernels_gen::schedule::block_shared`): run on the GPU
//! by `tests/gpu_block_shared.rs`, compiled by NVRTC in `tests/nvrtc_transpose_lang.rs`.
#![allow(dead_code)]

/// A tile-only body (stamped under every schedule: each is the `thread` kernel) with one array
/// of each kind: unsigned add and max mixed, a signed min, a 64-bit add, a signed max.
pub mod sizes {
    use loops::prelude::*;

    /// Over the tiles of `a`: `hist` gets each tile's log2 size bin (slots 0..32) and the
    /// longest tile (slot 33); `low[t % 4]` the least `vals[t]`, `wide[t % 3]` the sum of
    /// `vals[t]` as `u64` bits, `high[t % 2]` the largest `vals[t]` as `i32`.
    #[for_schedules(all)]
    pub fn block_sizes(
        a: Offsets,
        vals: &[i64],
        #[block_shared] hist: &mut [u32; 34],
        #[block_shared] low: &mut [i64; 4],
        #[block_shared] wide: &mut [u64; 3],
        #[block_shared] high: &mut [i32; 2],
    ) {
        for t in a.tiles() {
            let size = (a.offsets[t + 1] - a.offsets[t]) as u32;
            let mut bin = 0;
            if size > 1 {
                bin = 32 - (size - 1).leading_zeros();
            }
            atomic_add(&mut hist[bin as usize], 1);
            atomic_max(&mut hist[33], size);
            atomic_min(&mut low[t % 4], vals[t]);
            atomic_add(&mut wide[t % 3], vals[t] as u64);
            atomic_max(&mut high[t % 2], vals[t] as i32);
        }
    }
}

/// An atom loop under `thread` (the one schedule of a body with atoms that lowers the array):
/// a histogram of the column indices modulo 16.
pub mod columns {
    use loops::prelude::*;

    #[load_balanced(schedule = "thread")]
    pub fn column_hist<T: Float>(a: Csr<T>, #[block_shared] hist: &mut [u32; 16]) {
        for row in a.tiles() {
            for nz in a.atoms(row) {
                atomic_add(&mut hist[(a.col_indices[nz] % 16) as usize], 1);
            }
        }
    }
}
