//! A sparse product whose every term is soft-thresholded, `y[row] = sum soft_threshold(a * x, t)`:
//! a kernel calling a helper (`soft_threshold`, which calls `excess`) from another module.

use crate::math::{excess, soft_threshold};
use loops::prelude::*;

#[for_schedules(
    core,
    except(group2, split, hierarchical),
    group4,
    split3,
    hierarchical3
)]
pub fn shrink_sum<T: Float>(a: Csr<T>, x: &[T], t: T, y: &mut [T]) {
    for row in a.tiles() {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += soft_threshold(a.values[nz] * x[a.col_indices[nz] as usize], t);
        }
        y[row] = sum;
    }
}
