//! SpMV on a COO matrix, two ways: row-major (tiles are rows, the entries of a row reduced into
//! `y[row]`), and atom-major (every entry adds its product into its row, `a.tile_of(nz)`, with an
//! atomic; `y` must start at zero).

use loops::prelude::*;

pub mod rows {
    use super::*;
    #[for_schedules(core)]
    pub fn spmv_coo<T: Float>(a: Coo<T>, x: &[T], y: &mut [T]) {
        for row in a.tiles() {
            let mut sum = 0.0;
            for nz in a.atoms(row) {
                sum += a.values[nz] * x[a.col_indices[nz] as usize];
            }
            y[row] = sum;
        }
    }
}

pub mod atoms {
    use super::*;
    #[for_schedules(core)]
    pub fn spmv_coo_atoms<T: Float>(a: Coo<T>, x: &[T], y: &mut [T]) {
        for nz in a.all_atoms() {
            atomic_add(
                &mut y[a.tile_of(nz)],
                a.values[nz] * x[a.col_indices[nz] as usize],
            );
        }
    }
}
