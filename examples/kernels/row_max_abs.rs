//! The largest magnitude in each row: a tile reduction that is not a sum.

use loops::prelude::*;

#[for_schedules(core)]
pub fn row_max_abs<T: Float>(a: Csr<T>, m: &mut [T]) {
    for row in a.tiles() {
        let mut best = 0.0;
        for nz in a.atoms(row) {
            best = max(best, a.values[nz].abs());
        }
        m[row] = best;
    }
}
