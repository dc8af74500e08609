//! `y = alpha A x + beta y`: an epilogue that reads its own output, right only if it runs exactly once
//! per row with the complete sum.

use loops::prelude::*;

#[for_schedules(core)]
pub fn spmv_axpby<T: Float>(a: Csr<T>, x: &[T], y: &mut [T], alpha: T, beta: T) {
    for row in a.tiles() {
        let mut sum = 0.0;
        for nz in a.atoms(row) {
            sum += a.values[nz] * x[a.col_indices[nz] as usize];
        }
        y[row] = alpha * sum + beta * y[row];
    }
}
