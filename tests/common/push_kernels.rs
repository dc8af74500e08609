//! A user's kernels written from the README with the cooperative append `push` and a tile-only
//! body, each in a module of its own (`#[for_schedules]` makes one module per schedule beside the
//! kernel): run on the GPU by `tests/gpu_frontier.rs`, compiled by NVRTC in `tests/nvrtc_push.rs`.
#![allow(dead_code)]
pub mod loud_rows {
    use loops::prelude::*;

    /// The rows whose largest |value| is above `t`, to a list.
    #[for_schedules(all)]
    pub fn loud_rows<T: Float>(a: Csr<T>, t: T, list: &mut [u32], count: &mut [u32]) {
        for row in a.tiles() {
            let mut m = 0.0;
            for nz in a.atoms(row) {
                m = max(m, a.values[nz].abs());
            }
            if m > t {
                push(&mut list, &mut count[0], row as u32);
            }
        }
    }
}

pub mod loud_entries {
    use loops::prelude::*;

    /// The entries whose |value| is above `t`: their positions to a list, their values beside
    /// at the same place (the position `push` returns).
    #[for_schedules(all)]
    pub fn loud_entries<T: Float>(
        a: Csr<T>,
        t: T,
        list: &mut [u32],
        values: &mut [T],
        count: &mut [u64],
    ) {
        for row in a.tiles() {
            for nz in a.atoms(row) {
                if a.values[nz].abs() > t {
                    let p = push(&mut list, &mut count[0], nz as u32);
                    if p < values.len() {
                        values[p] = a.values[nz];
                    }
                }
            }
        }
    }
}

pub mod first_above {
    use loops::prelude::*;

    /// Tile-only: the rows whose first stored value is above `t`, to a list (no atom loop).
    #[for_schedules(all)]
    pub fn first_above<T: Float>(a: Csr<T>, t: T, list: &mut [u32], count: &mut [u32]) {
        for row in a.tiles() {
            let start = a.row_offsets[row] as usize;
            if a.row_offsets[row + 1] as usize > start && a.values[start] > t {
                push(&mut list, &mut count[0], row as u32);
            }
        }
    }
}

pub mod parity {
    use loops::prelude::*;

    /// Tile-only, two counters picked per lane: every row pushes through `count[row % 2]`, so
    /// the lanes of one warp append through different counters (each counter's lanes are
    /// aggregated apart). The positions of the two counters overlap in `list`; the counts are
    /// what is checked.
    #[for_schedules(all)]
    pub fn parity<T: Float>(a: Csr<T>, list: &mut [u32], count: &mut [u32]) {
        for row in a.tiles() {
            push(&mut list, &mut count[row % 2], row as u32);
        }
    }
}

pub mod reduce {
    use loops::prelude::*;

    /// Tile-only reductions into tile-invariant slots, summed in a register over each thread's
    /// tiles and flushed once per block (`kernels_gen::schedule::tile_only::aggregated_atomics`):
    /// the tiles' lengths less 3 added to `sum[k]` (i32, wrapping), the longest max-ed into
    /// `longest[0]` (u64) and the shortest nonempty min-ed into `shortest[0]` (i64).
    #[for_schedules(all)]
    pub fn tile_stats(
        g: Offsets,
        sum: &mut [i32],
        longest: &mut [u64],
        shortest: &mut [i64],
        k: usize,
    ) {
        for t in g.tiles() {
            let len = g.offsets[t + 1] - g.offsets[t];
            atomic_add(&mut sum[k], len as i32 - 3);
            atomic_max(&mut longest[0], len as u64);
            if len > 0 {
                atomic_min(&mut shortest[0], len as i64);
            }
        }
    }
}

pub mod repeat {
    use loops::prelude::*;

    /// Tile-only, pushes staged per block past the staging area: tile `t` pushes `t * 16 + j` for
    /// each `j` below its length (a block round of tiles 0-15 long pushes up to 15 per thread, more
    /// than the area holds: the claims past it take the warp's direct push).
    #[for_schedules(all)]
    pub fn repeat_tiles(g: Offsets, list: &mut [u32], count: &mut [u32]) {
        for t in g.tiles() {
            let len = g.offsets[t + 1] - g.offsets[t];
            for j in 0..len {
                push(&mut list, &mut count[0], (t * 16) as u32 + j as u32);
            }
        }
    }
}
