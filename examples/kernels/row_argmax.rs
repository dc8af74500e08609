//! The largest value of each row and the column holding it, the first among equal values: a
//! selection (`if v > m { m = v; c = ..; }`) that a carry schedule combines across the threads and
//! blocks sharing a row, by value, then position.

use loops::prelude::*;

// The other schedules run it in examples/user_kernels; the snapshot holds the carry protocol's.
#[for_schedules(merge_path)]
pub fn row_argmax<T: Float>(a: Csr<T>, best: &mut [T], at: &mut [i32]) {
    for row in a.tiles() {
        let mut m = T::NEG_INFINITY;
        let mut c = -1;
        for nz in a.atoms(row) {
            let v = a.values[nz];
            if v > m {
                m = v;
                c = a.col_indices[nz];
            }
        }
        best[row] = m;
        at[row] = c;
    }
}
