//! The largest value of each row, how many atoms hold it, and the column of the first: a selection
//! with a tally (`if v > m { m = v; n = 1; .. } else if v == m { n += 1; }`) that a carry schedule
//! combines across the threads and blocks sharing a row: the larger value's count, or the sum of
//! the counts where the values are equal.

use loops::prelude::*;

// The other schedules run it in examples/user_kernels; the snapshot holds the carry protocol's.
#[for_schedules(merge_path)]
pub fn count_max<T: Float>(a: Csr<T>, best: &mut [T], count: &mut [u32], at: &mut [i32]) {
    for row in a.tiles() {
        let mut m = T::NEG_INFINITY;
        let mut n = 0u32;
        let mut c = -1;
        for nz in a.atoms(row) {
            let v = a.values[nz];
            if v > m {
                m = v;
                n = 1;
                c = a.col_indices[nz];
            } else if v == m {
                n += 1;
            }
        }
        best[row] = m;
        count[row] = n;
        at[row] = c;
    }
}
