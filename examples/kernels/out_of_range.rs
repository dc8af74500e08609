//! Kernels that index out of range on purpose, for checked mode (tests/gpu_checked.rs): checked,
//! the access is not made and the launch returns an error naming the kernel, the array, the
//! index, the length and this file's line.

use loops::prelude::*;

/// A store out of range, under a tile-mapped, a group and a carry schedule.
pub mod shift_down {
    use super::*;
    /// `y[row + 1] = (A x)[row]`: the last row writes one past the end of `y`.
    #[for_schedules(thread, warp, merge_path)]
    pub fn shift_down(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
        for row in a.tiles() {
            let mut sum = 0.0f32;
            for nz in a.atoms(row) {
                sum += a.values[nz] * x[a.col_indices[nz] as usize];
            }
            y[row + 1] = sum;
        }
    }
}

/// A read out of range.
pub mod peek {
    use super::*;
    /// `y[row] = x[row + 1]`: the last row reads one past the end of `x`.
    #[for_schedules(thread)]
    pub fn peek(a: Csr<f32>, x: &[f32], y: &mut [f32]) {
        for row in a.tiles() {
            let mut count = 0.0f32;
            for nz in a.atoms(row) {
                count += a.values[nz];
            }
            y[row] = count + x[row + 1];
        }
    }
}
