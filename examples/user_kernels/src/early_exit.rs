//! `break` and `continue` under every schedule: each row counts its atoms in even columns, leaving
//! out its last atom, where the loop breaks. Where a schedule cuts a row between threads, each
//! piece stops on its own; only the piece holding the last atom reaches the `break`, so the count
//! is the same under every schedule.

use loops::prelude::*;

#[for_schedules(
    core,
    except(group2, split, hierarchical),
    group4,
    split3,
    hierarchical3
)]
pub fn count_before_last(a: Csr<f32>, counts: &mut [u32]) {
    for row in a.tiles() {
        let mut count = 0u32;
        for nz in a.atoms(row) {
            if nz + 1 == a.row_offsets[row + 1] as usize {
                break;
            }
            if a.col_indices[nz] % 2 == 1 {
                continue;
            }
            count += 1;
        }
        counts[row] = count;
    }
}
