//! The variance of each row's stored values in two atom loops: the mean, then the squared
//! deviations from it. A carry schedule runs each loop in a launch of its own; the first keeps
//! each row's sum and count in the call's tile state for the second.

use loops::prelude::*;

// The other schedules run it in examples/user_kernels; the snapshot holds the passes'.
#[for_schedules(work_oriented)]
pub fn row_variance<T: Float>(a: Csr<T>, var: &mut [T]) {
    for row in a.tiles() {
        let mut sum = 0.0;
        let mut n = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz];
            n += 1.0;
        }
        let mean = sum / max(n, 1.0);
        let mut squares = 0.0;
        for nz in a.atoms(row) {
            let d = a.values[nz] - mean;
            squares += d * d;
        }
        var[row] = squares / max(n, 1.0);
    }
}
