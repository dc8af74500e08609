//! Column sums, atom-major (the paper's Listing 5 shape): every atom adds its value to its column.

use loops::prelude::*;

#[for_schedules(core)]
pub fn column_sums<T: Float>(a: Csr<T>, colsum: &mut [T]) {
    for nz in a.all_atoms() {
        atomic_add(&mut colsum[a.col_indices[nz] as usize], a.values[nz]);
    }
}
