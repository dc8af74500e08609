//! `C = A B` with a dense row-major `B` of `k` columns (the paper's Listing 4): a plain loop between
//! the tile loop and the atom loop. Its bounds are the same for every tile, so the carry schedules
//! (`work_oriented`, `merge_path`) run one carry round per column.

use loops::prelude::*;

#[for_schedules(core, except(hierarchical))]
pub fn spmm<T: Float>(a: Csr<T>, b: &[T], c: &mut [T], k: usize) {
    for row in a.tiles() {
        for j in 0..k {
            let mut sum = 0.0;
            for nz in a.atoms(row) {
                sum += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j];
            }
            c[row * k + j] = sum;
        }
    }
}

/// The same product with the columns of `C` as a `lanes` loop: under a group schedule the
/// group's lanes split between the columns (consecutive lanes, consecutive columns: the loads of
/// `B` and the stores of `C` coalesce) and the row's nonzeros, the width chosen from `k` at run
/// time; where `k` is a multiple of 4 each lane takes 4 (8 or 16 at large `k`) consecutive columns,
/// 16-byte loads of `B` and stores of `C` (kernels-gen's `schedule::lanes`); under `thread` and the
/// carry schedules it runs as the loop above.
pub mod lanes {
    use loops::prelude::*;

    #[for_schedules(all, except(hierarchical, hierarchical3))]
    pub fn spmm<T: Float>(a: Csr<T>, b: &[T], c: &mut [T], k: usize) {
        for row in a.tiles() {
            for j in lanes(0..k) {
                let mut sum = 0.0;
                for nz in a.atoms(row) {
                    sum += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j];
                }
                c[row * k + j] = sum;
            }
        }
    }
}

/// A `lanes` loop over an `i32` range that may end at `i32::MAX` (`s..e`), reading `x` at `j + off`
/// and writing `y` at `row * w + j + off` (so that `j` near `i32::MAX` lands in small buffers; an
/// `off` or `w` not a multiple of 4 takes the unaligned side of the four-value path): the strides'
/// arithmetic must not wrap the loop's type.
pub mod shifted {
    // The generated wrappers take the GPU and the kernel's seven parameters.
    #![allow(clippy::too_many_arguments)]
    use loops::prelude::*;

    #[for_schedules(all, except(hierarchical, hierarchical3))]
    pub fn lanes_shifted<T: Float>(
        a: Csr<T>,
        x: &[T],
        y: &mut [T],
        s: i32,
        e: i32,
        w: i64,
        off: i64,
    ) {
        for row in a.tiles() {
            for j in lanes(s..e) {
                let mut sum = 0.0;
                for nz in a.atoms(row) {
                    sum += a.values[nz] * x[(j as i64 + off) as usize];
                }
                y[(row as i64 * w + j as i64 + off) as usize] = sum;
            }
        }
    }
}

/// `C = max(A B + bias, 0)` with the bias as the accumulator's value before the atom loop: under
/// `lrb` a long row's pieces start from zero and the last one combines them from the bias
/// (kernels-gen's `schedule::pieces`), so the value before the loop counts once.
pub mod long_rows {
    use loops::prelude::*;

    #[for_schedules(lrb, warp)]
    pub fn spmm_bias_relu<T: Float>(a: Csr<T>, b: &[T], bias: &[T], c: &mut [T], k: usize) {
        for row in a.tiles() {
            for j in lanes(0..k) {
                let mut sum = bias[j];
                for nz in a.atoms(row) {
                    sum += a.values[nz] * b[(a.col_indices[nz] as usize) * k + j];
                }
                c[row * k + j] = max(sum, 0.0);
            }
        }
    }
}
