//! Sparse matrix-vector product `y = A x` (the paper's Listing 3).

use loops::prelude::*;

/// `y[row] = sum over the row's nonzeros of A[row, col] * x[col]`, for f32 and f64.
#[for_schedules(all)]
pub fn spmv<T: Float>(a: Csr<T>, x: &[T], y: &mut [T]) {
    for row in a.tiles() {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        y[row] = sum;
    }
}
