//! SpMV on a CSC matrix (tiles are columns), two ways: `y = A^T x` as a per-column reduction (the
//! tile's dot product), and `y = A x` by scattering each column's products into `y` with atomics
//! (`y` must start at zero).

use loops::prelude::*;

pub mod transposed {
    use super::*;
    /// `y = A^T x`: one dot product per column.
    #[for_schedules(core)]
    pub fn spmv_csc_t<T: Float>(a: Csc<T>, x: &[T], y: &mut [T]) {
        for col in a.tiles() {
            let mut sum = 0.0;
            for nz in a.atoms(col) {
                sum += a.values[nz] * x[a.row_indices[nz] as usize];
            }
            y[col] = sum;
        }
    }
}

pub mod scatter {
    use super::*;
    /// `y += A x`: every column scatters `a_rc * x_c` into `y[r]`.
    #[for_schedules(core)]
    pub fn spmv_csc<T: Float>(a: Csc<T>, x: &[T], y: &mut [T]) {
        for col in a.tiles() {
            let xc = x[col];
            for nz in a.atoms(col) {
                atomic_add(&mut y[a.row_indices[nz] as usize], a.values[nz] * xc);
            }
        }
    }
}
