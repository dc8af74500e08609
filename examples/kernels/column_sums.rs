//! Column sums, atom-major (the paper's Listing 5 shape): every atom adds its value to its column.
//! The body never asks an atom's row, so every schedule runs it as one flat loop over the entries
//! (`kernels_gen::schedule::tile_only`): the stamps differ in name only.

use loops::prelude::*;

#[for_schedules(core)]
pub fn column_sums<T: Float>(a: Csr<T>, colsum: &mut [T]) {
    for nz in a.all_atoms() {
        atomic_add(&mut colsum[a.col_indices[nz] as usize], a.values[nz]);
    }
}
