//! The variance of each row's stored values, in two passes: the mean, then the squared
//! deviations from it.

use loops::prelude::*;

#[for_schedules(
    thread,
    group4,
    warp,
    group64,
    block,
    work_oriented,
    merge_path,
    split3,
    hierarchical3,
    lrb,
    auto
)]
pub fn row_variance<T: Float>(a: Csr<T>, var: &mut [T]) {
    for row in a.tiles() {
        let mut sum = 0.0;
        let mut n = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz];
            n += 1.0;
        }
        let mut squares = 0.0;
        for nz in a.atoms(row) {
            let d = a.values[nz] - sum / n;
            squares += d * d;
        }
        if n > 0.0 {
            var[row] = squares / n;
        } else {
            var[row] = 0.0;
        }
    }
}
